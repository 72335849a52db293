"""Scenes for the self-collision tests and benchmark: voxel-built closed surfaces (a U, a bar), their cage bodies, and
the check that no render vertex has passed into its own body (generalized winding number)."""
import numpy as np

import core
from contact_scenes import box_surface, plane
from core.geometry.winding import WindingNumber

# +x, -x, +y, -y, +z, -z faces of a unit cube as corner offsets, counter-clockwise seen from outside
_FACES = [((1, 0, 0), [(1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)]),
          ((-1, 0, 0), [(0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0)]),
          ((0, 1, 0), [(0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0)]),
          ((0, -1, 0), [(0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1)]),
          ((0, 0, 1), [(0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]),
          ((0, 0, -1), [(0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 0)])]


def voxel_surface(filled, h, origin=(0.0, 0.0, 0.0)):
    """The closed, outward-oriented boundary (vertices, triangles) of the voxels `filled` (bool (nx,ny,nz)) of edge
    h from corner origin (no two voxels may meet along an edge alone)."""
    filled = np.asarray(filled, bool)
    padded = np.pad(filled, 1)
    quads = []
    for (dx, dy, dz), corners in _FACES:
        neighbour = padded[1 + dx:padded.shape[0] - 1 + dx, 1 + dy:padded.shape[1] - 1 + dy,
                           1 + dz:padded.shape[2] - 1 + dz]
        cells = np.argwhere(filled & ~neighbour)
        quads.append(cells[:, None, :] + np.array(corners)[None])
    quads = np.concatenate(quads)
    keys, index = np.unique(quads.reshape(-1, 3), axis=0, return_inverse=True)
    q = index.reshape(-1, 4)
    tris = np.concatenate([q[:, [0, 1, 2]], q[:, [0, 2, 3]]])
    return keys * h + np.asarray(origin, float), tris.astype(np.int64)


def u_shape(h=0.025, length=16, thick=2, gap=4, width=4, origin=(0.0, 0.0, 0.0)):
    """A U lying on its side (⊐ seen from -y): two horizontal arms of length×thick voxels, `gap` voxels apart, joined
    at x = 0 by a bridge thick voxels long; width voxels deep in y."""
    filled = np.zeros((length, width, 2 * thick + gap), bool)
    filled[:, :, :thick] = True
    filled[:, :, thick + gap:] = True
    filled[:thick, :, :] = True
    return voxel_surface(filled, h, origin)


def bar(h, n=(20, 2, 2), origin=(0.0, 0.0, 0.0)):
    """A box of n voxels of edge h (its surface meshed at h)."""
    return voxel_surface(np.ones(n, bool), h, origin)


def cage_body(vertices, triangles, resolution):
    """A cage-mode TetMesh of a surface, its render triangles embedded."""
    tm = core.tetrahedralize(vertices, triangles, resolution=resolution, mode="cage")
    tm.embedding.triangles = triangles
    return tm


def passed_inside(points, triangles, thickness):
    """Per render vertex (points (P,3) of a closed surface): whether it lies inside its own surface, told by the
    generalized winding number (> 0.5) at the vertex moved half the contact thickness out along its vertex normal
    (on the surface itself the winding number is ½; a vertex pressed against another part of the surface, within
    the thickness, stays out of it, one that has passed through is in it)."""
    a, b, c = (points[triangles[:, k]] for k in range(3))
    area_normal = np.cross(b - a, c - a)
    normal = np.zeros_like(points)
    for k in range(3):
        np.add.at(normal, triangles[:, k], area_normal)
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-300)
    w = WindingNumber(points, triangles)(points + 0.5 * thickness * normal)
    return w > 0.5


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
