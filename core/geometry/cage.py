"""Cage mode: a coarse tet cage from a 5-tet cube grid that strictly bounds the surface, with the surface embedded."""
import numpy as np

from ..errors import InvalidInputError
from .embedding import barycentric_in_tets
from .grid import Grid, locate, triangle_tet_pairs
from .meshinput import NO_VOLUME
from .winding import WindingNumber

# Triangle-tet overlap slack in unit coordinates (longest side 1): touching counts, so the cage strictly contains
# the surface despite rounding.
_OVERLAP_EPS = 1e-9
# Interior sample points of a tet (barycentric): the centroid, halfway to each vertex, halfway to each face centre.
_SAMPLES = np.array([[0.25] * 4]
                    + [[0.625 if i == j else 0.125 for j in range(4)] for i in range(4)]
                    + [[0.125 if i == j else 0.2916666666666667 for j in range(4)] for i in range(4)])
# A tet's mass share never drops below this fraction of a full tet, so no cage node is massless.
MASS_FLOOR = 0.05
# Below this inside fraction of the kept cage volume, an open mesh encloses nothing.
_MIN_OPEN_FRACTION = 1e-3


def inside_fractions(winding, grid, tet_ids, tet_nodes, node_w):
    """Fraction of each tet inside the surface (|winding| > 0.5) at its 4 corners and 9 interior samples."""
    pos = grid.node_positions(tet_nodes.reshape(-1)).reshape(-1, 4, 3)
    pts = np.einsum("sc,tcd->tsd", _SAMPLES, pos).reshape(-1, 3)
    inner = (np.abs(winding(pts)) > 0.5).reshape(len(tet_ids), len(_SAMPLES)).sum(axis=1)
    corners = (node_w[tet_nodes] > 0.5).sum(axis=1)
    return (inner + corners) / (len(_SAMPLES) + 4.0)


def build_cage(surface, resolution):
    """Cage of `surface` (a SurfaceMesh) in unit coordinates: returns (nodes, tets, vertex_tet, mass_weights, info)."""
    v, t = surface.unit_vertices, surface.triangles
    grid = Grid(v.min(axis=0), v.max(axis=0), resolution)
    pair_tet, pair_tri = triangle_tet_pairs(grid, v, t, _OVERLAP_EPS * 1.0)
    winding = WindingNumber(v, t)
    node_w = np.abs(winding(grid.all_node_positions()))

    all_ids = np.arange(grid.num_cells * 5, dtype=np.int64)
    all_nodes = grid.tet_nodes(all_ids)
    touched = np.zeros(len(all_ids), bool)
    touched[pair_tet] = True
    inside = node_w[all_nodes].mean(axis=1) > 0.5
    vertex_tet = locate(grid, v)
    keep = touched | inside
    keep[vertex_tet] = True
    kept = np.flatnonzero(keep)
    kept_nodes = all_nodes[kept]

    fraction = np.where(touched[kept] | ~inside[kept], 0.0, 1.0)
    sampled = np.flatnonzero(touched[kept] | ~inside[kept])
    fraction[sampled] = inside_fractions(winding, grid, kept[sampled], kept_nodes[sampled], node_w)

    node_ids, tets = np.unique(kept_nodes, return_inverse=True)
    tets = tets.reshape(-1, 4)
    nodes = grid.node_positions(node_ids)
    tet_of_vertex = np.searchsorted(kept, vertex_tet)

    vol = np.where(kept % 5 == 4, grid.h ** 3 / 3.0, grid.h ** 3 / 6.0)
    est_volume = float((vol * fraction).sum())
    closed = surface.is_closed()
    volume = abs(surface.enclosed_volume_unit()) if closed else est_volume
    if volume <= (1e-12 if closed else _MIN_OPEN_FRACTION) * vol.sum():
        raise InvalidInputError(NO_VOLUME)
    floored = np.maximum(fraction, MASS_FLOOR)
    mass_weights = floored * (volume / float((vol * floored).sum()))
    info = {"grid_cells": [int(d) for d in grid.dims], "cell_size_unit": grid.h, "closed": closed,
            "mesh_volume_unit": volume, "winding_volume_unit": est_volume, "cage_volume_unit": float(vol.sum())}
    return nodes, tets, tet_of_vertex, mass_weights, info


def embed_vertices(vertices, nodes, tets, tet_of_vertex):
    """Barycentric weights of each vertex in its cage tet."""
    return barycentric_in_tets(vertices, tet_of_vertex, nodes, tets)
