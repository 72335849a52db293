"""Conforming mode: fTetWild's tets whose boundary follows the surface within an envelope; vertices embedded in them."""
import numpy as np

from ..errors import InvalidInputError
from ..tetmesh import signed_volumes
from .embedding import embed_points_nearest
from .ftetwild import TIME_LIMIT, ftetwild
from .simplify import MAX_TRIANGLES, simplify_to

# Default envelope: the largest distance of the tets' boundary from the surface, a fraction of the bounding-box
# diagonal (fTetWild's epsilon).
ENVELOPE = 1e-3
# Tets below this quality count as slivers in the report.
SLIVER_QUALITY = 0.05


def build_conforming(surface, resolution, envelope=ENVELOPE, time_limit=TIME_LIMIT, progress=None):
    """Conforming tets of `surface` (a SurfaceMesh, any triangle soup fTetWild accepts) in unit coordinates, target
    edge 1/resolution of the longest side: returns (nodes, tets, tet_of_vertex, weights, info). Inputs above
    MAX_TRIANGLES are simplified first (vertex clustering), and the envelope grows to half the clustering cell."""
    if not isinstance(envelope, (int, float, np.number)) or not 1e-5 <= envelope <= 0.1:
        raise InvalidInputError(f"envelope must be a fraction of the bounding-box diagonal in [1e-5, 0.1], "
                                f"got {envelope!r}")
    v = surface.unit_vertices
    diag = float(np.linalg.norm(v.max(axis=0) - v.min(axis=0)))
    sv, st, cell = simplify_to(v, surface.triangles)
    if cell is not None:   # the clustered surface is already up to ~half a cell off: so may the tets be
        envelope = max(float(envelope), 0.5 * cell / diag)
    nodes, tets = ftetwild(sv, st, 1.0 / resolution, float(envelope), time_limit=time_limit, progress=progress)
    vol = signed_volumes(nodes, tets)
    flip = vol < 0
    tets[flip, 2], tets[flip, 3] = tets[flip, 3].copy(), tets[flip, 2].copy()
    keep = np.abs(vol) > 0.0
    used, tets = np.unique(tets[keep], return_inverse=True)
    nodes, tets = nodes[used], tets.reshape(-1, 4)
    tet_of_vertex, weights, distance = embed_points_nearest(nodes, tets, v)
    closed = surface.is_closed()
    tet_volume = float(signed_volumes(nodes, tets).sum())
    volume = abs(surface.enclosed_volume_unit()) if closed else tet_volume
    info = {"closed": closed, "mesh_volume_unit": volume, "cage_volume_unit": tet_volume,
            "cell_size_unit": 1.0 / resolution, "grid_cells": [], "envelope_unit": envelope * diag,
            "ftetwild_triangles": int(len(st)), "simplified": cell is not None,
            "vertices_inside": float(np.mean(distance == 0.0)),
            "vertices_within_envelope": float(np.mean(distance <= envelope * diag)),
            "embedding_distance_max_unit": float(distance.max())}
    return nodes, tets, tet_of_vertex, weights, info
