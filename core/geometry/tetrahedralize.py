"""The public entry point: tetrahedralize a Blender-style triangle mesh into a TetMesh with the surface embedded."""
import time

import numpy as np

from ..errors import InvalidInputError
from ..tetmesh import TetMesh
from .cage import GRADE_FLOOR, build_cage, embed_vertices
from .conforming import ENVELOPE, SLIVER_QUALITY, build_conforming
from .ftetwild import TIME_LIMIT
from .embedding import Embedding
from .meshinput import SurfaceMesh
from .quality import min_dihedral_angles, tet_quality
from .thin_parts import CELLS_THROUGH, thin_part

MODES = ("cage", "conforming")
MAX_RESOLUTION = 256
# The most tets a cage of resolution "auto" has: near the first thesis seed's 300-1,300 tets per object, where a body
# keeps its volume and its swing (benchmarks/RESULTS.md, "Auto resolution") at a fraction of resolution 12's cost
TET_BUDGET = 1500


def tetrahedralize(vertices, triangles, resolution=12, mode="cage", relax=True, cell_size=None, envelope=ENVELOPE,
                   time_limit=TIME_LIMIT, progress=None, tet_budget=TET_BUDGET, graded=False):
    """Tet mesh for a surface mesh (vertices (n,3) float, triangles (m,3) int, world units).

    mode="cage" (default): a coarse cage of 5-tet cubes, `resolution` cells along the longest bounding-box side,
    that strictly contains the surface; works for open, non-manifold and self-intersecting meshes. `relax` moves
    the outer cage nodes toward the surface (never across it).
    An open mesh is solid where its winding number shows an inside; if it shows none (a car body open in its
    windows, wheel arches and floor), each hole narrower than about a quarter of its size is capped first.
    mode="conforming": fTetWild's tets (target edge: the longest side / `resolution`) whose boundary follows the
    surface within `envelope` x the bounding-box diagonal; any triangle soup (open, non-manifold, self-intersecting);
    inputs above 6,000 triangles are simplified first (the envelope grows with it). The vertices are embedded in
    the tets (a vertex just outside goes to its nearest tet). fTetWild runs in a child process stopped after
    `time_limit` seconds; `progress(seconds)` is called while it runs.
    `cell_size` (world units), when given, replaces `resolution` by ceil(longest side / cell_size).
    resolution="auto": the finest resolution whose cage has at most `tet_budget` tets, whatever the body's size
    (conforming mode uses the same resolution for fTetWild's edge length).
    Returns a core.TetMesh with `.embedding` (one row per input vertex: `.tet`, `.weights`, `.positions(nodes)`),
    `.mass_weights` (per-tet mass factor: total mass = density * enclosed volume for closed meshes),
    `.stiffness_weights` (per-tet factor on the elastic moduli: the share of a cage tet the body fills) and `.report`
    (in cage mode its "thin_part", when a part of the surface is thinner than a cell: core.geometry.thin_parts, with
    the resolution that holds it, None past MAX_RESOLUTION).
    graded=True (cage mode): the cage's tets crossed by a part thinner than a cell are bisected until two cells go
    through it (core.geometry.grade; no finer than an eighth of a cell), children outside the surface dropped; its
    "thin_part" is then one the graded cage does not hold, with the resolution whose graded cage would.
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
    auto = isinstance(resolution, str) and resolution == "auto"
    if auto:
        if not isinstance(tet_budget, (int, np.integer)) or tet_budget < 1:
            raise InvalidInputError(f"tet_budget must be a positive whole number of tets, got {tet_budget!r}")
        resolution = auto_resolution(surface, int(tet_budget))
    if not isinstance(resolution, (int, np.integer)) or not 1 <= resolution <= MAX_RESOLUTION:
        raise InvalidInputError(f"resolution must be an integer in [1, {MAX_RESOLUTION}] or 'auto', got {resolution!r}")
    if mode == "cage":
        unit_nodes, tets, tet_of_vertex, mass_weights, stiffness_weights, info = build_cage(
            surface, int(resolution), relax_passes=2 if relax else 0, grade=bool(graded))
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
        "grid_cells": info["grid_cells"], "auto": auto, "graded": info.get("graded", False),
    }
    if auto:
        report["tet_budget"] = int(tet_budget)
    if not info["closed"]:
        report["holes_capped"] = info.get("holes_capped", 0)
    if mode == "cage":
        part = thin_part(surface, info["cell_size_unit"])
        if part is not None and info["graded"] and part["thickness"] / surface.scale >= (
                CELLS_THROUGH * info["cell_size_unit"] / GRADE_FLOOR):
            part = None      # the graded cage holds it
        if part is not None:
            need = part["resolution"] if not info["graded"] else -(-part["resolution"] // GRADE_FLOOR)
            report["thin_part"] = {"centre": [float(c) for c in part["centre"]], "thickness": part["thickness"],
                                   "vertices": len(part["vertices"]),
                                   "resolution": need if need <= MAX_RESOLUTION else None}
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


def auto_resolution(surface, budget):
    """The largest cage resolution (2 at least) whose cage of `surface` has at most `budget` tets. A cage's count grows
    like r³ for a bulky body and like r² for a thin one: the growth measured between two trial cages predicts the
    resolution, then bisection finds the exact one (a few cage builds, each a fraction of a second)."""
    good, bad = 1, MAX_RESOLUTION + 1          # count(good) <= budget < count(bad)
    counts = {}

    def within(r):
        if r not in counts:
            counts[r] = len(build_cage(surface, r, relax_passes=0)[1])
        return counts[r] <= budget

    for r in (6, 8):
        if within(r):
            good = max(good, r)
        else:
            bad = min(bad, r)
    growth = max(np.log(max(counts[8], 1) / max(counts[6], 1)) / np.log(8 / 6), 1.0)
    guess = int(np.floor(8 * (budget / max(counts[8], 1)) ** (1.0 / growth)))
    for r in (guess, guess + 1):
        if good < r < bad:
            if within(r):
                good = r
            else:
                bad = r
    while bad - good > 1:
        mid = (good + bad) // 2
        if within(mid):
            good = mid
        else:
            bad = mid
    return max(good, 2)
