"""Jelly drop (issue 15): volume kept by a 50 cm Jelly-preset ball dropped 50 cm on a plane, per material model.

The add-on's Jelly preset (addon/presets.py): E = 5 kPa, ν = 0.45, ρ = 1030 kg/m³, Rayleigh β = 0.002 s, friction
0.3. An icosphere (4 subdivisions, radius 0.25 m, lowest point 0.5 m above the plane) tetrahedralized as a cage
(resolution 12) or conforming; Δt = 1/96 s (4 substeps at 24 fps), CG capped at 50 iterations, 3 s. Prints the
volume of the cage and of the embedded render surface (divergence theorem) against their rest volumes, the smallest
signed principal stretch and how many tets sit below the stretch floor or are inverted.
Usage: .venv/bin/python benchmarks/jelly_drop.py [--models corotated,neo_hookean,stvk,mooney_rivlin]
       [--seconds 3] [--substeps 4] [--resolution 12] [--mode cage|conforming] [--report 6]
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "core")]

import core  # noqa: E402
from contact_scenes import enclosed_volume, icosphere, plane  # noqa: E402
from core.fem.hyperelastic import STRETCH_FLOOR  # noqa: E402

FPS = 24


def jelly(model):
    """The Jelly preset's material with the given constitutive model."""
    return core.Material(youngs_modulus=5.0e3, poisson_ratio=0.45, density=1030.0, damping_stiffness=0.002,
                         friction=0.3, model=model)


def smallest_stretches(x, mesh):
    """The smallest principal stretch of every tet, negative for an inverted one."""
    def edges(p):
        return np.stack([p[mesh.tets[:, k]] - p[mesh.tets[:, 0]] for k in (1, 2, 3)], axis=2)
    f = edges(x) @ np.linalg.inv(edges(mesh.nodes))
    return np.linalg.svd(f, compute_uv=False)[:, -1] * np.sign(np.linalg.det(f))


def drop(model, seconds=3.0, substeps=4, resolution=12, mode="cage", radius=0.25, height=0.5, report=0):
    """Run the drop; returns rows (t, cage volume, surface volume, least stretch, below floor, inverted)."""
    v, f = icosphere(4, radius, (0.0, 0.0, radius + height))
    mesh = core.tetrahedralize(v, f, resolution=resolution, mode=mode)
    mesh.embedding.triangles = f            # as tests/core/contact_scenes.soft_ball: the surface's edges collide too
    world = core.World(settings=core.SolverSettings(cg_iterations=50))
    world.add_collider(*plane())
    body = world.add_body(mesh, jelly(model))
    rest_cage = mesh.volumes().sum()
    rest_surface = enclosed_volume(mesh.embedding.positions(mesh.nodes), f)
    rows = []
    for frame in range(1, int(round(seconds * FPS)) + 1):
        for _ in range(substeps):
            world.step(1.0 / (FPS * substeps))
        x = body.x
        s = smallest_stretches(x, mesh)
        rows.append((frame / FPS, mesh.volumes(x).sum() / rest_cage,
                     enclosed_volume(mesh.embedding.positions(x), f) / rest_surface,
                     s.min(), int(np.sum(s < STRETCH_FLOOR)), int(np.sum(s < 0.0))))
        if report and frame % report == 0:
            print("  {:14s} t = {:4.2f} s  cage {:.3f}  surface {:.3f}  least stretch {:+.3f}  "
                  "below the floor {:4d}  inverted {:4d}".format(model, *rows[-1]), flush=True)
    return rows, mesh.num_tets


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="corotated,neo_hookean,stvk,mooney_rivlin")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--substeps", type=int, default=4)
    ap.add_argument("--resolution", type=int, default=12)
    ap.add_argument("--mode", default="cage", choices=("cage", "conforming"))
    ap.add_argument("--report", type=int, default=0, help="print every this many frames (0: only the summary)")
    a = ap.parse_args()
    for model in a.models.split(","):
        t0 = time.perf_counter()
        rows, tets = drop(model, a.seconds, a.substeps, a.resolution, a.mode, report=a.report)
        end, least = rows[-1], min(rows, key=lambda r: r[2])
        print(f"{model:14s} {tets} tets: at {end[0]:.2f} s cage {end[1]:.3f}, surface {end[2]:.3f}, least stretch "
              f"{end[3]:+.3f}, {end[4]} tets below the floor ({STRETCH_FLOOR}), {end[5]} inverted; least surface "
              f"volume {least[2]:.3f} at {least[0]:.2f} s ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
