"""Conforming mode: Delaunay tets of the surface vertices plus interior samples; the input vertices are the nodes."""
import numpy as np
from scipy.spatial import Delaunay, QhullError

from ..errors import InvalidInputError
from ..tetmesh import signed_volumes
from .embedding import embed_points
from .faces import matched_faces
from .grid import Grid, locate, triangle_tet_pairs
from .meshinput import NO_VOLUME
from .quality import tet_quality
from .winding import WindingNumber

USE_CAGE = "use mode='cage', which handles open and self-intersecting meshes"
# Tets below this quality are peeled from the boundary; the Delaunay volume must match the enclosed volume this well.
SLIVER_QUALITY = 0.05
_VOLUME_TOLERANCE = 0.01
_FLAT_QUALITY = 1e-6
_SLIVER_ROUNDS = 4


def _cell_centres(grid, cells):
    nx, ny = grid.dims[0], grid.dims[1]
    ijk = np.stack([cells % nx, (cells // nx) % ny, cells // (nx * ny)], axis=1)
    return grid.origin + grid.h * (ijk + 0.5)


def _surface_samples(points, tris, h):
    """Extra nodes on long edges and large triangles (spacing ~h), so Delaunay recovers large flat faces."""
    edges = np.sort(np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]]), axis=1)
    edges = np.unique(edges, axis=0)
    out = []
    for a, b in edges[np.linalg.norm(points[edges[:, 0]] - points[edges[:, 1]], axis=1) > h]:
        n = int(np.ceil(np.linalg.norm(points[b] - points[a]) / h))
        t = np.arange(1, n)[:, None] / n
        out.append(points[a] * (1 - t) + points[b] * t)
    p = points[tris]
    longest = np.max(np.linalg.norm(p - p[:, [1, 2, 0]], axis=2), axis=1)
    for k in np.flatnonzero(longest > 2 * h):
        n = int(np.ceil(longest[k] / h))
        i, j = np.meshgrid(np.arange(1, n), np.arange(1, n), indexing="ij")
        inner = (i + j) < n
        u, w = i[inner] / n, j[inner] / n
        out.append(p[k, 0] * (1 - u - w)[:, None] + p[k, 1] * u[:, None] + p[k, 2] * w[:, None])
    return np.concatenate(out) if out else np.zeros((0, 3))


def _peel_slivers(tets, quality, volumes, budget):
    """Drop sliver tets that lie on the boundary, repeatedly (removing an interior sliver would open a hole), while
    the volume they take away stays within `budget`: a thin box's faces are lined with slivers whose peeling, round
    after round, took 1.3-1.6 % of its volume and the surface's shape with it."""
    keep = np.ones(len(tets), bool)
    while True:
        on_boundary = np.any(matched_faces(tets[keep])[2], axis=1)
        drop = np.flatnonzero(keep)[on_boundary & (quality[keep] < SLIVER_QUALITY)]
        budget -= float(np.abs(volumes[drop]).sum())
        if len(drop) == 0 or budget < 0.0:
            return keep
        keep[drop] = False


def _inside_delaunay(points, winding):
    """Delaunay tets of points whose centroid is inside the surface, positively oriented, flat ones dropped."""
    try:
        tets = Delaunay(points).simplices.astype(np.int64)
    except QhullError as err:
        raise InvalidInputError(f"conforming mode: Delaunay failed ({str(err).splitlines()[0]}); {USE_CAGE}")
    tets = tets[np.abs(winding(points[tets].mean(axis=1))) > 0.5]
    flip = signed_volumes(points, tets) < 0
    tets[flip, 2], tets[flip, 3] = tets[flip, 3].copy(), tets[flip, 2].copy()
    quality = tet_quality(points, tets)
    # flat tets (four co-planar points, e.g. a planar quad) carry no volume: dropping them leaves no gap
    keep = quality >= _FLAT_QUALITY
    return tets[keep], quality[keep]


def build_conforming(surface, resolution):
    """Conforming tets of a closed surface in unit coordinates: returns (nodes, tets, vertex_node, info)."""
    if not surface.is_closed():
        raise InvalidInputError(f"conforming mode needs a closed, consistently oriented surface; {USE_CAGE}")
    v = surface.unit_vertices
    welded = surface.welded_triangles
    volume = abs(surface.enclosed_volume_unit())
    if volume <= 1e-12:
        raise InvalidInputError(NO_VOLUME)
    # one surface point per welded position of a referenced vertex
    used_ids, welded = np.unique(welded, return_inverse=True)
    welded = welded.reshape(-1, 3)
    ids = np.zeros(len(v), np.int64)
    ids[surface.triangles.reshape(-1)] = welded.reshape(-1)
    referenced = np.zeros(len(v), bool)
    referenced[surface.triangles.reshape(-1)] = True
    surf_pts = np.zeros((len(used_ids), 3))
    surf_pts[ids[referenced]] = v[referenced]

    # interior samples on a body-centred cubic lattice (its Delaunay tets are well shaped and non-degenerate):
    # grid nodes and cell centres inside the surface, away from the grid tets the surface touches
    grid = Grid(v.min(axis=0), v.max(axis=0), resolution)
    vertex_tet, margin = locate(grid, v)
    pair_tet, _ = triangle_tet_pairs(grid, v, surface.triangles, vertex_tet, margin, 1e-9)
    touched_cells = np.unique(pair_tet // 5)
    near = np.zeros(int(np.prod(grid.dims + 1)), bool)
    near[grid.tet_nodes(np.unique(pair_tet)).reshape(-1)] = True
    free_cells = np.ones(grid.num_cells, bool)
    free_cells[touched_cells] = False
    free_cells = np.flatnonzero(free_cells)
    winding = WindingNumber(v, surface.triangles)
    lattice = np.concatenate([grid.node_positions(np.flatnonzero(~near)), _cell_centres(grid, free_cells)])
    samples = lattice[np.abs(winding(lattice)) > 0.5]

    fixed = np.concatenate([surf_pts, _surface_samples(surf_pts, welded, grid.h)])
    # interior samples that end up in slivers are removed and the Delaunay redone (a few rounds)
    for _ in range(_SLIVER_ROUNDS):
        points = np.concatenate([fixed, samples])
        tets, quality = _inside_delaunay(points, winding)
        bad = np.unique(tets[quality < SLIVER_QUALITY])
        bad = bad[bad >= len(fixed)] - len(fixed)
        if len(bad) == 0:
            break
        samples = np.delete(samples, bad, axis=0)
    tets = tets[_peel_slivers(tets, quality, signed_volumes(points, tets), 0.5 * _VOLUME_TOLERANCE * volume)]
    kept_volume = float(np.abs(signed_volumes(points, tets)).sum())
    used = np.zeros(len(points), bool)
    used[tets.reshape(-1)] = True
    if not np.all(used[:len(surf_pts)]) or abs(kept_volume - volume) > _VOLUME_TOLERANCE * volume:
        raise InvalidInputError(
            f"conforming mode could not recover the surface (tet volume {kept_volume / volume:.3f} x the enclosed "
            f"volume, {int((~used[:len(surf_pts)]).sum())} surface vertices without a tet; the mesh may "
            f"self-intersect); {USE_CAGE}")
    # drop interior samples that lost all their tets, renumber
    new_id = np.cumsum(used) - 1
    nodes = points[used]
    tets = new_id[tets]
    vertex_node = np.where(referenced, new_id[ids], -1)
    info = {"closed": True, "mesh_volume_unit": volume, "cage_volume_unit": kept_volume,
            "interior_samples": int(used[len(surf_pts):].sum()), "cell_size_unit": grid.h,
            "grid_cells": [int(d) for d in grid.dims]}
    return nodes, tets, vertex_node, info


def identity_embedding(nodes, tets, vertex_node, vertices):
    """Each input vertex on its node (weight 1 on that corner of one tet holding it); unreferenced vertices are
    located by point search and must lie inside the tets."""
    first_tet = np.full(len(nodes), -1, np.int64)
    corner = np.zeros(len(nodes), np.int64)
    flat = tets.reshape(-1)
    order = np.arange(len(flat))[::-1]  # the lowest slot wins
    first_tet[flat[order]] = order // 4
    corner[flat[order]] = order % 4
    tet = np.empty(len(vertices), np.int64)
    weights = np.zeros((len(vertices), 4))
    on_node = vertex_node >= 0
    tet[on_node] = first_tet[vertex_node[on_node]]
    weights[np.flatnonzero(on_node), corner[vertex_node[on_node]]] = 1.0
    if not np.all(on_node):
        t, w = embed_points(nodes, tets, vertices[~on_node])
        if np.any(t < 0):
            raise InvalidInputError(f"conforming mode: {int((t < 0).sum())} unreferenced vertices lie outside the "
                                    f"surface; remove them or {USE_CAGE}")
        tet[~on_node] = t
        weights[~on_node] = w
    return tet, weights
