"""Body.undrawn_bend: how far a coarse render surface, drawn flat between its vertices, is from the cage's shape,
checked against the sagitta of a parabolic bend."""
import numpy as np

import core
from core.geometry.primitives import box_surface
from test_shape_recovery import subdivide


def slab(subdivisions=0):
    """A 2 m x 2 m x 0.1 m slab (8 vertices; its triangles split in four `subdivisions` times)."""
    v, t = box_surface((-1.0, -1.0, -0.05), (1.0, 1.0, 0.05))
    for _ in range(subdivisions):
        v, t = subdivide(v, t)
    mesh = core.tetrahedralize(v, t, resolution=12)
    mesh.embedding.triangles = t
    world = core.World()
    return world.add_body(mesh, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0))


def bent(x, a):
    """Node positions x bent into z += a x² (a parabolic drape along x)."""
    y = x.copy()
    y[:, 2] += a * x[:, 0] ** 2
    return y


def test_a_flat_drawn_slab_misses_its_bend_by_the_parabolas_sagitta():
    body = slab()
    rest = body.x.copy()
    assert body.undrawn_bend() < 1e-12
    turn = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    body.x[:] = rest @ turn.T + (3.0, -2.0, 1.0)                    # moved rigidly: drawn as it is
    assert body.undrawn_bend() < 1e-9
    for a in (0.1, 0.4):
        body.x[:] = bent(rest, a)
        # the faces' corners are at x = ±1: drawn flat at z + a, the cage's surface runs through z at x = 0
        # (the cage's cells, 2.17 m / 12, interpolate the parabola within a h² / 8 = 0.4 % of a)
        assert abs(body.undrawn_bend() - a) < 0.01 * a, (a, body.undrawn_bend())


def test_a_subdivided_slab_draws_its_bend():
    body = slab(subdivisions=3)
    body.x[:] = bent(body.x.copy(), 0.4)
    # its edges span 0.25 m along x: a chord of the parabola sags at most a (0.25 / 2)² = 6.3 mm (measured 5.6)
    assert body.undrawn_bend() < 0.01
