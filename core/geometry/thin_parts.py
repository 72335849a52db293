"""Parts of a closed surface thinner than a cage cell: where a uniform cage cannot hold the shape, and which
Resolution would.

A cage cell that holds both sides of a part (an ear, a tail, a rope) gives the part the stiffness and the mass of its
partly filled tets, not of its own shape: it bends too little and swings too stiffly (Suzanne's ears, docs/method.md).
A part is thin where the surface, entered at a
vertex along its inward normal, is left again within one cell: a segment query on the surface's winding-number tree,
exact for any closed mesh. Its thickness is then bisected to an eighth of a cell."""
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from .winding import WindingNumber

# A thin part should have two cells through its thickness, as a bulky body has at least two (the issue's "parts
# thinner than two cells"); fewer render vertices than this in one part are taken for a crease, not a part
CELLS_THROUGH = 2
MIN_VERTICES = 4


def thin_part(surface, cell):
    """The largest part of `surface` (a SurfaceMesh, its normals outward) thinner than `cell` (unit coordinates, as
    the cage's), as a dict in world units: vertices (its render vertices' ids), centre (3,) the middle of their
    bounding box, thickness (the median of theirs, to an eighth of a cell), resolution (the cells across the longest
    side that put CELLS_THROUGH cells through it); None when there is none."""
    v = surface.unit_vertices
    idx, depth, label = _thin_components(surface, cell)
    if len(idx) == 0:
        return None
    biggest = int(np.argmax(np.bincount(label)))
    mine = label == biggest
    part = idx[mine]
    thickness = float(np.median(depth[mine]))
    box = v[part]
    return {"vertices": part, "centre": surface.origin + surface.scale * 0.5 * (box.min(axis=0) + box.max(axis=0)),
            "thickness": thickness * surface.scale, "resolution": int(np.ceil(CELLS_THROUGH / thickness))}


def thin_vertices(surface, cell):
    """The render vertices of `surface` in thin parts (at least MIN_VERTICES joined vertices whose inward normal
    leaves the surface within `cell`, unit coordinates) and that depth: (ids (k,), depth (k,))."""
    idx, depth, _ = _thin_components(surface, cell)
    return idx, depth


def _thin_components(surface, cell):
    """The thin parts' vertices (ids (k,)), their depth (k,) and their part's label (k,), parts of fewer than
    MIN_VERTICES vertices left out."""
    v, t = surface.unit_vertices, surface.triangles
    idx, depth = _thin_depths(surface, cell)
    thin = np.zeros(len(v), bool)
    thin[idx] = True
    a, b = np.concatenate([t[:, 0], t[:, 1], t[:, 2]]), np.concatenate([t[:, 1], t[:, 2], t[:, 0]])
    both = thin[a] & thin[b]
    graph = coo_matrix((np.ones(int(both.sum())), (a[both], b[both])), shape=(len(v), len(v)))
    _, label = connected_components(graph, directed=False)
    _, part, sizes = np.unique(label[idx], return_inverse=True, return_counts=True)
    keep = sizes[part] >= MIN_VERTICES
    return idx[keep], depth[keep], part[keep]


def _thin_depths(surface, cell):
    """The vertices whose inward normal leaves the surface within `cell`, and that depth (from above, to an eighth of
    a cell): (ids (k,), depth (k,))."""
    v, t = surface.unit_vertices, surface.triangles
    normal = _vertex_normals(v, t)
    tree = surface.winding()
    start = v - 1e-3 * cell * normal
    # the depth along the inward normal at which the surface is left: in (lo, hi], bisected from (0, cell]
    thin = (np.einsum("nd,nd->n", normal, normal) > 0.25) & tree.crossings(start, v - cell * normal)
    idx = np.flatnonzero(thin)
    lo, hi = np.zeros(len(idx)), np.full(len(idx), cell)
    for _ in range(3):
        mid = 0.5 * (lo + hi)
        crossed = tree.crossings(start[idx], v[idx] - mid[:, None] * normal[idx])
        hi, lo = np.where(crossed, mid, hi), np.where(crossed, lo, mid)
    return idx, hi


def _vertex_normals(v, t):
    """Unit area-weighted vertex normals (zero where a vertex's triangles cancel or it has none)."""
    face = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
    normal = np.zeros_like(v)
    for k in range(3):
        np.add.at(normal, t[:, k], face)
    length = np.linalg.norm(normal, axis=1)
    return normal / np.where(length > 0.0, length, 1.0)[:, None]
