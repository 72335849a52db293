"""Cage mode: a coarse tet cage from a 5-tet cube grid that strictly bounds the surface, with the surface embedded."""
import numpy as np

from ..errors import InvalidInputError
from .embedding import barycentric_in_tets
from .features import split_features
from .grid import Grid, locate, triangle_tet_pairs
from .meshinput import NO_VOLUME
from .winding import WindingNumber

# Triangle-tet overlap slack in unit coordinates (longest side 1): touching counts, so the cage strictly contains
# the surface despite rounding.
_OVERLAP_EPS = 1e-9
# Interior sample points of a tet (barycentric): the centroid and the points halfway to each vertex.
_SAMPLES = np.array([[0.25] * 4] + [[0.625 if i == j else 0.125 for j in range(4)] for i in range(4)])
# A tet's mass share never drops below this fraction of a full tet, so no cage node is massless.
MASS_FLOOR = 0.05
# Below this inside fraction of the kept cage volume, an open mesh encloses nothing.
_MIN_OPEN_FRACTION = 1e-3


def inside_fractions(winding, grid, tet_ids, tet_nodes, node_w):
    """Fraction of each tet inside the surface (|winding| > 0.5) at its 4 corners and 5 interior samples."""
    pos = grid.node_positions(tet_nodes.reshape(-1)).reshape(-1, 4, 3)
    pts = np.einsum("sc,tcd->tsd", _SAMPLES, pos).reshape(-1, 3)
    inner = (np.abs(winding(pts)) > 0.5).reshape(len(tet_ids), len(_SAMPLES)).sum(axis=1)
    corners = (node_w[tet_nodes] > 0.5).sum(axis=1)
    return (inner + corners) / (len(_SAMPLES) + 4.0)


def build_cage(surface, resolution):
    """Cage of `surface` (a SurfaceMesh) in unit coordinates: returns (nodes, tets, vertex_tet, mass_weights, info)."""
    v, t = surface.unit_vertices, surface.triangles
    grid = Grid(v.min(axis=0), v.max(axis=0), resolution)
    vertex_tet, vertex_margin = locate(grid, v)
    pair_tet, pair_tri = triangle_tet_pairs(grid, v, t, vertex_tet, vertex_margin, _OVERLAP_EPS)
    winding = WindingNumber(v, t)
    node_w = np.abs(winding(grid.all_node_positions()))

    all_ids = np.arange(grid.num_cells * 5, dtype=np.int64)
    all_nodes = grid.tet_nodes(all_ids)
    touched = np.zeros(len(all_ids), bool)
    touched[pair_tet] = True
    inside = node_w[all_nodes].mean(axis=1) > 0.5
    keep = touched | inside
    keep[vertex_tet] = True
    kept = np.flatnonzero(keep)
    kept_nodes = all_nodes[kept]

    fraction = np.where(touched[kept] | ~inside[kept], 0.0, 1.0)
    sampled = np.flatnonzero(touched[kept] | ~inside[kept])
    fraction[sampled] = inside_fractions(winding, grid, kept[sampled], kept_nodes[sampled], node_w)

    copy_of, node_ids, tets, tet_of_vertex = split_features(
        kept, kept_nodes, inside[kept], pair_tet, pair_tri, surface.welded_triangles, v, t, winding, grid,
        vertex_tet)
    nodes = grid.node_positions(node_ids)
    ncopies = np.bincount(copy_of, minlength=len(kept))
    fraction = fraction[copy_of] / ncopies[copy_of]

    vol = np.where(kept[copy_of] % 5 == 4, grid.h ** 3 / 3.0, grid.h ** 3 / 6.0)
    est_volume = float((vol * fraction).sum())
    closed = surface.is_closed()
    volume = abs(surface.enclosed_volume_unit()) if closed else est_volume
    if volume <= (1e-12 if closed else _MIN_OPEN_FRACTION) * vol.sum():
        raise InvalidInputError(NO_VOLUME)
    floored = np.maximum(fraction, MASS_FLOOR)
    mass_weights = floored * (volume / float((vol * floored).sum()))
    info = {"grid_cells": [int(d) for d in grid.dims], "cell_size_unit": grid.h, "closed": closed,
            "mesh_volume_unit": volume, "winding_volume_unit": est_volume, "cage_volume_unit": float(vol[np.unique(copy_of, return_index=True)[1]].sum()),
            "split_tets": int((ncopies > 1).sum()), "duplicated_nodes": int(len(node_ids) - len(np.unique(node_ids)))}
    return nodes, tets, tet_of_vertex, mass_weights, info


def embed_vertices(vertices, nodes, tets, tet_of_vertex):
    """Barycentric weights of each vertex in its cage tet."""
    return barycentric_in_tets(vertices, tet_of_vertex, nodes, tets)
