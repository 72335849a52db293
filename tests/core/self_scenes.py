"""Scenes for the self-collision tests and benchmark: voxel-built closed surfaces (a U, a bar), their cage bodies, and
the check that no render vertex has passed into its own body (generalized winding number)."""
from functools import partial

import numpy as np

import core
import voxel_shapes
from contact_scenes import box_surface, plane
from core.geometry.winding import WindingNumber
from voxel_shapes import bar, u_shape, voxel_surface  # noqa: F401 (the scenes' surfaces)

passed_inside = partial(voxel_shapes.passed_inside, winding_number=WindingNumber)


def cage_body(vertices, triangles, resolution):
    """A cage-mode TetMesh of a surface, its render triangles embedded."""
    tm = core.tetrahedralize(vertices, triangles, resolution=resolution, mode="cage")
    tm.embedding.triangles = triangles
    return tm


def rod(radius, length, centre, sides=12):
    """A closed, outward-oriented cylinder along y (vertices, triangles): a thin horizontal rod collider."""
    a = 2 * np.pi * np.arange(sides) / sides
    ring = np.stack([radius * np.cos(a), np.zeros(sides), radius * np.sin(a)], 1)
    v = np.concatenate([ring + [0, -length / 2, 0], ring + [0, length / 2, 0], [[0, -length / 2, 0],
                                                                                  [0, length / 2, 0]]])
    i, j = np.arange(sides), (np.arange(sides) + 1) % sides
    tris = np.concatenate([np.stack([i, j, sides + j], 1), np.stack([i, sides + j, sides + i], 1),
                           np.stack([np.full(sides, 2 * sides), j, i], 1),
                           np.stack([np.full(sides, 2 * sides + 1), sides + i, sides + j], 1)])
    return v + np.asarray(centre, float), tris.astype(np.int64)


def tube(radius, length, centre, sides=12):
    """A closed, outward-oriented cylinder along x (vertices, triangles): rings of `sides` vertices about as far apart
    as a ring's side, each end closed by a fan round a centre vertex."""
    rings = int(round(length / (2 * np.pi * radius / sides))) + 1
    a = 2 * np.pi * np.arange(sides) / sides
    v = np.concatenate([np.stack([np.full(sides, x), radius * np.cos(a), radius * np.sin(a)], 1)
                        for x in np.linspace(-length / 2, length / 2, rings)] + [[[-length / 2, 0, 0],
                                                                                   [length / 2, 0, 0]]])
    i, j, n = np.arange(sides), (np.arange(sides) + 1) % sides, rings * sides
    tris = [np.stack([o + i, o + j, o + sides + j], 1) for o in range(0, n - sides, sides)]
    tris += [np.stack([o + i, o + sides + j, o + sides + i], 1) for o in range(0, n - sides, sides)]
    tris += [np.stack([np.full(sides, n), j, i], 1), np.stack([np.full(sides, n + 1), n - sides + i, n - sides + j], 1)]
    return v + np.asarray(centre, float), np.concatenate(tris).astype(np.int64)


def squeezed_u_world(self_collision, dt):
    """The U (arms 7.5 cm thick, 10 cm apart, 30 cm long) on a floor under a plate: (world, its surface, a function
    that moves the plate for step k: pressed down over 0.6 s to 10 cm (the upper arm would end 2.5 cm into the lower
    one), held, then lifted; dt: the step)."""
    v, f = u_shape(length=12, thick=3, gap=4)
    tm = cage_body(v, f, 8)
    world = core.World()
    world.add_body(tm, core.Material(youngs_modulus=1e6, poisson_ratio=0.3, density=500, friction=0.5),
                   self_collision=self_collision)
    world.add_collider(*plane(2.0, 0.0))
    lo, hi = np.array([0.15, -0.1, 0.0]), np.array([0.4, 0.2, 0.05])
    plate = world.add_collider(*box_surface(lo + [0, 0, 0.25], hi + [0, 0, 0.25]))

    def press(k):
        t = (k + 1) * dt
        z = 0.25 - min(t / 0.6, 1.0) * 0.15 if t < 0.8 else 0.10 + min((t - 0.8) / 0.2, 1.0) * 0.2
        world.move_collider(plate, box_surface(lo + [0, 0, z], hi + [0, 0, z])[0])
    return world, tm, v, f, press
