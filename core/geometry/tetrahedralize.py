"""The public entry point: tetrahedralize a Blender-style triangle mesh into a TetMesh with the surface embedded."""
import time

import numpy as np

from ..errors import InvalidInputError
from ..tetmesh import TetMesh
from .cage import build_cage, embed_vertices
from .conforming import ENVELOPE, SLIVER_QUALITY, build_conforming
from .ftetwild import TIME_LIMIT
from .embedding import Embedding
from .meshinput import SurfaceMesh
from .quality import min_dihedral_angles, tet_quality

MODES = ("cage", "conforming")
MAX_RESOLUTION = 256


def tetrahedralize(vertices, triangles, resolution=12, mode="cage", relax=True, cell_size=None, envelope=ENVELOPE,
                   time_limit=TIME_LIMIT, progress=None):
    """Tet mesh for a surface mesh (vertices (n,3) float, triangles (m,3) int, world units).

    mode="cage" (default): a coarse cage of 5-tet cubes, `resolution` cells along the longest bounding-box side,
    that strictly contains the surface; works for open, non-manifold and self-intersecting meshes. `relax` moves
    the outer cage nodes toward the surface (never across it).
    An open mesh whose holes are narrower than about a quarter of its size (a car's windows) is solid inside.
    mode="conforming": fTetWild's tets (target edge: the longest side / `resolution`) whose boundary follows the
    surface within `envelope` x the bounding-box diagonal; any triangle soup (open, non-manifold, self-intersecting);
    inputs above 6,000 triangles are simplified first (the envelope grows with it). The vertices are embedded in
    the tets (a vertex just outside goes to its nearest tet). fTetWild runs in a child process stopped after
    `time_limit` seconds; `progress(seconds)` is called while it runs.
    `cell_size` (world units), when given, replaces `resolution` by ceil(longest side / cell_size).
    Returns a core.TetMesh with `.embedding` (one row per input vertex: `.tet`, `.weights`, `.positions(nodes)`),
    `.mass_weights` (per-tet mass factor: total mass = density * enclosed volume for closed meshes),
    `.stiffness_weights` (per-tet factor on the elastic moduli: the share of a cage tet the body fills) and `.report`.
    """
    t0 = time.perf_counter()
    if mode not in MODES:
        raise InvalidInputError(f"mode must be one of {MODES}, got {mode!r}")
    surface = SurfaceMesh(vertices, triangles)
    if cell_size is not None:
        if not isinstance(cell_size, (int, float, np.number)) or not np.isfinite(cell_size) or cell_size <= 0:
            raise InvalidInputError(f"cell_size must be a positive length, got {cell_size!r}")
        resolution = max(1, int(np.ceil(surface.scale / cell_size - 1e-9)))
        if resolution > MAX_RESOLUTION:
            raise InvalidInputError(f"cell_size {cell_size!r} gives {resolution} cells along the longest side "
                                    f"(at most {MAX_RESOLUTION}); use a larger cell size")
    if not isinstance(resolution, (int, np.integer)) or not 1 <= resolution <= MAX_RESOLUTION:
        raise InvalidInputError(f"resolution must be an integer in [1, {MAX_RESOLUTION}], got {resolution!r}")
    if mode == "cage":
        unit_nodes, tets, tet_of_vertex, mass_weights, stiffness_weights, info = build_cage(
            surface, int(resolution), relax_passes=2 if relax else 0)
        weights = embed_vertices(surface.unit_vertices, unit_nodes, tets, tet_of_vertex)
    else:
        unit_nodes, tets, tet_of_vertex, weights, info = build_conforming(
            surface, int(resolution), envelope=envelope, time_limit=time_limit, progress=progress)
        mass_weights = np.full(len(tets), info["mesh_volume_unit"] / info["cage_volume_unit"])
        stiffness_weights = None     # the tets are the body
    nodes = surface.origin + surface.scale * unit_nodes
    quality = tet_quality(unit_nodes, tets)
    dihedral = min_dihedral_angles(unit_nodes, tets)
    s3 = surface.scale ** 3
    report = {
        "mode": mode, "resolution": int(resolution), "nodes": len(nodes), "tets": len(tets),
        "vertices": len(surface.vertices), "triangles": len(surface.triangles),
        "quality_min": float(quality.min()), "quality_mean": float(quality.mean()),
        "slivers": int((quality < SLIVER_QUALITY).sum()), "min_dihedral_deg": float(dihedral.min()),
        "closed": info["closed"], "mesh_volume": info["mesh_volume_unit"] * s3,
        "cage_volume": info["cage_volume_unit"] * s3, "cell_size": info["cell_size_unit"] * surface.scale,
        "grid_cells": info["grid_cells"],
    }
    if not info["closed"]:
        report["holes_closed"] = info.get("holes_closed", False)
    for key in ("split_tets", "duplicated_nodes", "relaxed_moves", "ftetwild_triangles", "simplified",
                "vertices_inside", "vertices_within_envelope"):
        if key in info:
            report[key] = info[key]
    if mode == "conforming":
        report["envelope"] = info["envelope_unit"] * surface.scale
        report["embedding_distance_max"] = info["embedding_distance_max_unit"] * surface.scale
    report["seconds"] = time.perf_counter() - t0
    return TetMesh(nodes, tets, embedding=Embedding(tets, tet_of_vertex, weights, triangles=surface.triangles),
                   mass_weights=mass_weights, report=report, stiffness_weights=stiffness_weights)
