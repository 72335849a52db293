"""Stiff cantilever (issue 14): CG iterations, tip path vs a converged solve, and ms per step, per preconditioner.

A 1 m × 0.25 m × 0.25 m beam (24×6×6 cubes of 6 tets: 5,184 tets) pinned at x = 0, swinging under gravity for
one second from rest, E = 3.6e6 (Rubber), ν = 0.45, ρ = 1000, Δt = 1/96, no damping. The reference solve:
block-Jacobi CG capped at 1000 iterations with tolerance 1e-8.
Usage: .venv/bin/python benchmarks/stiff_cantilever.py [--cells 24,6,6] [--E 3.6e6] [--seconds 1]
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "core")]

import core  # noqa: E402
from fem_testmeshes import box  # noqa: E402

DT = 1.0 / 96.0


def tip_path(cells, E, seconds, **settings):
    """Tip z displacement per step, CG iterations per step, seconds per step (median)."""
    nx, ny, nz = cells
    mesh = box(nx, ny, nz, 1.0, 0.25 * ny / 6, 0.25 * nz / 6)
    world = core.World(gravity=(0.0, 0.0, -9.81), settings=core.SolverSettings(**settings))
    body = world.add_body(mesh, core.Material(youngs_modulus=E, poisson_ratio=0.45, density=1000.0),
                          pinned=np.flatnonzero(mesh.nodes[:, 0] < 1e-9))
    tip = mesh.nodes[:, 0] > 1.0 - 1e-9
    path, its, secs = [], [], []
    for _ in range(round(seconds / DT)):
        t0 = time.perf_counter()
        world.step(DT)
        secs.append(time.perf_counter() - t0)
        path.append(body.x[tip, 2].mean() - mesh.nodes[tip, 2].mean())
        its.append(world.stats["cg_iterations"])
    return np.array(path), np.array(its), float(np.median(secs[2:]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default="24,6,6")
    parser.add_argument("--E", type=float, default=3.6e6)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--cap", type=int, default=50)
    args = parser.parse_args()
    cells = tuple(int(c) for c in args.cells.split(","))
    print(f"{6 * np.prod(cells)} tets, E = {args.E:g}, load average {os.getloadavg()[0]:.1f}")
    ref, ref_its, ref_s = tip_path(cells, args.E, args.seconds, cg_iterations=1000, cg_tolerance=1e-8,
                                   preconditioner="jacobi")
    swing = np.ptp(ref)
    print(f"reference (jacobi, cap 1000, tol 1e-8): {np.median(ref_its):.0f} iterations per step (max "
          f"{ref_its.max()}), {ref_s * 1e3:.1f} ms/step, swing {swing * 1e3:.1f} mm")
    for pre in ("jacobi", "multigrid", "auto"):
        path, its, s = tip_path(cells, args.E, args.seconds, cg_iterations=args.cap, cg_tolerance=1e-3,
                                preconditioner=pre)
        off = np.abs(path - ref).max() / swing
        print(f"{pre:9s} cap {args.cap}, tol 1e-3: iterations per step median {np.median(its):.0f}, max {its.max()}"
              f" | tip path off by up to {100 * off:.2f} % of the swing | {s * 1e3:.1f} ms/step", flush=True)


if __name__ == "__main__":
    main()
