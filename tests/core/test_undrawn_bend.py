"""Body.undrawn_bend: how far a coarse render surface, drawn flat between its vertices, is from the cage's shape,
checked against the sagitta of a parabolic bend."""
import numpy as np

import core
from core.geometry.primitives import box_surface


def slab(subdivisions=0):
    """A 2 m x 2 m x 0.1 m slab (8 vertices, or its faces cut by a regular grid of `subdivisions` + 1 steps)."""
    v, t = box_surface((-1.0, -1.0, -0.05), (1.0, 1.0, 0.05))
    if subdivisions:
        v, t = _grid_box(subdivisions + 1)
    mesh = core.tetrahedralize(v, t, resolution=12)
    mesh.embedding.triangles = t
    world = core.World()
    return world.add_body(mesh, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0))


def _grid_box(n):
    """The slab's six faces as n x n grids of quads (two triangles each), outward, vertices shared."""
    index, faces = {}, []
    half = np.array([1.0, 1.0, 0.05])
    for axis in range(3):
        u, w = [a for a in range(3) if a != axis]
        for sign in (-1.0, 1.0):
            for i in range(n):
                for j in range(n):
                    quad = []
                    for di, dj in ((0, 0), (1, 0), (1, 1), (0, 1)):
                        p = np.zeros(3)
                        p[axis] = sign * half[axis]
                        p[u] = half[u] * (2.0 * (i + di) / n - 1.0)
                        p[w] = half[w] * (2.0 * (j + dj) / n - 1.0)
                        quad.append(index.setdefault(tuple(np.round(p, 9)), len(index)))
                    if sign * (1 if (u, w) in ((1, 2), (2, 0), (0, 1)) else -1) < 0:
                        quad.reverse()
                    faces += [quad[:3], [quad[0], quad[2], quad[3]]]
    return np.array(sorted(index, key=index.get)), np.array(faces, np.int64)


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
    body = slab(subdivisions=10)
    body.x[:] = bent(body.x.copy(), 0.4)
    # its vertices 0.18 m apart: a chord of the parabola sags a (0.18 / 2)² = 3.3 mm, within the cage's cells
    assert body.undrawn_bend() < 0.01
