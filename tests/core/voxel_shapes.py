"""Closed surfaces built of voxels (a U, a bar) and the check that no vertex of such a surface has passed into it, for
the self-collision tests in core and through Blender (numpy only: Blender's tests pass the add-on's winding number)."""
import numpy as np

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


def passed_inside(points, triangles, thickness, winding_number):
    """Per render vertex (points (P,3) of a closed surface): whether it lies inside its own surface, told by the
    generalized winding number (> 0.5) at the vertex moved half the contact thickness out along its vertex normal
    (on the surface itself the winding number is ½; a vertex pressed against another part of the surface, within
    the thickness, stays out of it, one that has passed through is in it). winding_number: core's WindingNumber (the
    add-on's copy in Blender)."""
    a, b, c = (points[triangles[:, k]] for k in range(3))
    area_normal = np.cross(b - a, c - a)
    normal = np.zeros_like(points)
    for k in range(3):
        np.add.at(normal, triangles[:, k], area_normal)
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-300)
    w = winding_number(points, triangles)(points + 0.5 * thickness * normal)
    return w > 0.5
