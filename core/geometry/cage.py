"""Cage mode: a coarse tet cage from a 5-tet cube grid that strictly bounds the surface, with the surface embedded."""
import numpy as np

from ..errors import InvalidInputError
from ..tetmesh import signed_volumes
from .embedding import barycentric_in_tets
from .features import split_features
from .holes import CAP_RADIUS, CappedWinding, HoleCaps
from .grade import bisect_thin, touched_tets, relocate
from .grid import TEMPLATES, Grid, inside_tets, locate, triangle_tet_pairs
from .meshinput import NO_VOLUME
from .quality import CAGE_QUALITY_BOUND
from .relax import relax
from .thin_parts import CELLS_THROUGH, thin_vertices

# Triangle-tet overlap slack in unit coordinates (longest side 1): touching counts, so the cage strictly contains
# the surface despite rounding.
_OVERLAP_EPS = 1e-9
# A tet's mass share never drops below this fraction of a full tet, so no cage node is massless.
MASS_FLOOR = 0.05
# Nor its share of the material's stiffness below this. A linear tet's strain is uniform, so the material inside it
# stores exactly its fill times the full tet's energy: a cage is as stiff as the body, not as its (larger) cage
# (a 1 m × 10 cm bar clamped at one end sagged 0.17× the Timoshenko beam's tip deflection at resolution 12, 0.69× at
# 48, with full-stiffness tets; 0.31× and 0.88× with this floor, 0.42× and 0.96× with 0.25). But an outer tet that
# holds surface points with little stiffness folds under a contact: a Suzanne resting on a floor had 4 cage tets
# inverted at a floor of 0.05, none at 0.2; Blender's 2 m icosphere dropped 1 m, one (filled 1/6) still inverted
# after 4 s at 0.25, none at 0.5.
STIFFNESS_FLOOR = 0.5
# A graded cage's cells are no finer than the uniform cage's over this (three halvings of its edge).
GRADE_FLOOR = 8
# An open mesh encloses nothing if less than this fraction of its cage has winding number above _OPEN_INSIDE.
_MIN_OPEN_FRACTION = 0.05
# (a thin open bowl has |winding| up to ~0.8 in its hollow, an open box's inside ~0.8-0.95, a capped ball ~1)
_OPEN_INSIDE = 0.85


def inside_fractions(corner_w, centre_w, threshold):
    """Rough fraction of each tet inside the surface (|winding| > threshold at its corners (k,4) and centroid (k,)):
    the centroid counts twice, each corner once. Mass only needs the distribution right: the total is rescaled."""
    return ((corner_w > threshold).sum(axis=1) + 2.0 * (centre_w > threshold)) / 6.0


class _NoClearInside(Exception):
    """An open mesh whose winding number shows no clear inside (the fraction of its cage above _OPEN_INSIDE)."""


def build_cage(surface, resolution, relax_passes=2, grade=False):
    """Cage of `surface` (a SurfaceMesh) in unit coordinates: returns (nodes, tets, vertex_tet, mass_weights,
    stiffness_weights, info). The winding number decides inside wherever it shows a clear inside (closed meshes, and
    open ones such as a bunny with holes in its base or Suzanne, as before); an open mesh where it does not (a car
    body with open windows: ~0.5 at its centre) is tried again with its holes capped (holes.py): the winding number
    of the mesh with each boundary loop narrower than 2 x CAP_RADIUS of its size closed by a flat fan."""
    try:
        return _build_cage(surface, resolution, relax_passes, None, grade)
    except _NoClearInside as no_inside:
        caps = HoleCaps(surface.unit_vertices, surface.triangles)
        measured = (f"{NO_VOLUME} (open mesh: |winding number| above {_OPEN_INSIDE} in {no_inside.args[0]:.1%} of its "
                    f"cage, at least {_MIN_OPEN_FRACTION:.0%} needed")
        if caps.capped == 0:
            raise InvalidInputError(f"{measured}; none of its {caps.loops} boundary loops is a hole narrower than "
                                    f"{2 * CAP_RADIUS:.2f} x its size)") from None
        try:
            return _build_cage(surface, resolution, relax_passes, caps, grade)
        except _NoClearInside as still:
            raise InvalidInputError(f"{measured}; {still.args[0]:.1%} with its {caps.capped} holes narrower than "
                                    f"{2 * CAP_RADIUS:.2f} x its size capped)") from None


def _build_cage(surface, resolution, relax_passes, caps, grade):
    """build_cage with inside decided by the winding number of the surface (caps None) or of the surface with its
    holes capped (`caps`, a HoleCaps)."""
    v, t = surface.unit_vertices, surface.triangles
    grid = Grid(v.min(axis=0), v.max(axis=0), resolution)
    vertex_tet, vertex_margin = locate(grid, v)
    pair_tet, pair_tri = triangle_tet_pairs(grid, v, t, vertex_tet, vertex_margin, _OVERLAP_EPS)
    winding = surface.winding()
    if caps is not None:
        winding = CappedWinding(caps, winding)
    closed = surface.is_closed()

    def inside_w(points):
        return np.abs(winding(points))
    node_w = inside_w(grid.all_node_positions())

    keep = inside_tets(node_w, grid.dims, TEMPLATES, 0.5)
    keep[pair_tet] = True
    keep[vertex_tet] = True
    kept = np.flatnonzero(keep)
    kept_nodes = grid.tet_nodes(kept)
    mean_w = node_w[kept_nodes].mean(axis=1)
    inside = mean_w > 0.5
    touched = np.zeros(len(kept), bool)
    touched[np.searchsorted(kept, pair_tet)] = True

    copy_of, node_ids, tets, tet_of_vertex, pair_copy = split_features(
        kept, kept_nodes, inside, pair_tet, pair_tri, surface.welded_triangles, v, t, winding, grid,
        vertex_tet)
    nodes = grid.node_positions(node_ids)
    moves = relax(nodes, tets, node_ids, grid.dims, pair_copy, pair_tri, tet_of_vertex, v, t, relax_passes, CAGE_QUALITY_BOUND,
                  _OVERLAP_EPS) if relax_passes else 0

    # mass: the inside fraction of each copy (untouched inside tets are full), shared among a tet's copies
    ncopies = np.bincount(copy_of, minlength=len(kept))[copy_of]
    full = ~touched[copy_of] & inside[copy_of]
    split_tets = int((np.bincount(copy_of) > 1).sum())
    if grade:
        nodes, tets, tet_of_vertex, copy_of, ncopies, full = _graded(
            surface, grid.h, nodes, tets, tet_of_vertex, copy_of, ncopies, full, pair_copy, pair_tri, inside_w)
    # winding at the corners and centroids of the tets the surface crosses (the others are wholly in or out)
    part = np.flatnonzero(~full)
    corner_ids, corner_inv = np.unique(tets[part], return_inverse=True)
    corner_w = inside_w(nodes[corner_ids])[corner_inv.reshape(-1, 4)]
    centre_w = inside_w(nodes[tets[part]].mean(axis=1))
    fraction = np.ones(len(tets))
    fraction[part] = inside_fractions(corner_w, centre_w, 0.5)
    fraction /= ncopies
    vol = signed_volumes(nodes, tets)
    est_volume = float((vol * fraction).sum())
    cage_volume = float((vol / ncopies).sum())
    if closed:
        volume = abs(surface.enclosed_volume_unit())
        if volume <= 1e-12 * cage_volume:
            raise InvalidInputError(NO_VOLUME)
    else:
        # an open sheet has winding ~1/2 along it and up to ~0.6 in its hollows; a solid has a clear inside
        # (once every hole is capped the mesh is closed: its enclosed volume is exact)
        volume = est_volume if caps is None or not caps.closed else abs(caps.volume_unit)
        strict = (full & (mean_w[copy_of] > _OPEN_INSIDE)).astype(float)
        strict[part] = inside_fractions(corner_w, centre_w, _OPEN_INSIDE)
        strict /= ncopies
        strict_volume = float((vol * strict).sum())
        if strict_volume < _MIN_OPEN_FRACTION * cage_volume:
            raise _NoClearInside(strict_volume / cage_volume)
    floored = np.maximum(fraction, MASS_FLOOR)
    to_volume = volume / float((vol * floored).sum())
    mass_weights = floored * to_volume
    stiffness_weights = np.maximum(fraction, STIFFNESS_FLOOR / ncopies) * to_volume
    info = {"grid_cells": [int(d) for d in grid.dims], "cell_size_unit": grid.h, "closed": closed,
            "mesh_volume_unit": volume, "winding_volume_unit": est_volume, "cage_volume_unit": cage_volume,
            "split_tets": split_tets,
            "duplicated_nodes": int(len(node_ids) - len(np.unique(node_ids))), "relaxed_moves": int(moves),
            "holes_capped": 0 if caps is None else caps.capped, "graded": bool(grade)}
    return nodes, tets, tet_of_vertex, mass_weights, stiffness_weights, info


def _graded(surface, cell, nodes, tets, tet_of_vertex, copy_of, ncopies, full, pair_copy, pair_tri, inside_w):
    """The cage bisected where the surface is thinner than its cells (grade.py), children wholly outside the surface
    dropped: (nodes, tets, tet_of_vertex, copy_of, ncopies, full) of the graded cage, a child inheriting its parent's
    copy and count of copies."""
    v, t = surface.unit_vertices, surface.triangles
    thin, depth = thin_vertices(surface, cell)
    size = np.full(len(v), np.inf)
    size[thin] = np.maximum(depth / CELLS_THROUGH, cell / GRADE_FLOOR)
    # a triangle of a thin part (its three vertices in it) asks for its vertices' mean cell size
    pair_size = size[t[pair_tri]].mean(axis=1)
    pick = np.flatnonzero(np.isfinite(pair_size))
    pick = pick[np.argsort(pair_copy[pick], kind="stable")]
    nodes, tets, parent = bisect_thin(nodes, tets, pair_copy[pick], pair_tri[pick], pair_size[pick], v, t,
                                      _OVERLAP_EPS)
    child = np.bincount(parent)[parent] > 1
    if not child.any():
        return nodes, tets, tet_of_vertex, copy_of, ncopies, full
    order = np.argsort(pair_copy, kind="stable")
    touched = touched_tets(nodes, tets, parent, pair_copy[order], pair_tri[order], v, t, _OVERLAP_EPS)
    # an untouched child is wholly inside or outside: its centroid tells which; a touched one is in part
    centre_in = inside_w(nodes[tets].mean(axis=1)) > 0.5
    kept = ~child | touched | centre_in
    new_full = np.where(child, ~touched & centre_in, full[parent])
    tet_of_vertex = relocate(v, nodes, tets, parent, tet_of_vertex)
    kept[tet_of_vertex] = True
    index = np.cumsum(kept) - 1
    tets, parent, new_full = tets[kept], parent[kept], new_full[kept]
    used, tets = np.unique(tets, return_inverse=True)
    return (nodes[used], tets.reshape(-1, 4), index[tet_of_vertex], copy_of[parent], ncopies[parent], new_full)


def embed_vertices(vertices, nodes, tets, tet_of_vertex):
    """Barycentric weights of each vertex in its cage tet."""
    return barycentric_in_tets(vertices, tet_of_vertex, nodes, tets)
