"""Blender's default cube dropped on a floor at the add-on's defaults: ms per step, CG iterations and accuracy per CG
preconditioner.

The cube (0.2 m, 8 vertices) caged at resolution 12 (10,981 tets), E = 1e5, ν = 0.45, ρ = 1000, damping 0.01 s,
friction 0.5, Δt = 1/96, CG cap 50, tolerance 1e-3, sleeping off, falls --drop metres onto the floor and settles.
Every step after the first two is timed. Accuracy: the largest distance of any cage node from a converged run's
(block-Jacobi, cap 1000, tolerance 1e-8) over the run, and at its end. --rounds runs the preconditioners in turn
that many times (interleaved, for a shared machine) and prints each round and the medians over the rounds.
Usage: .venv/bin/python benchmarks/default_cube_solver.py [--steps 96] [--drop 0.05] [--rounds 1]
       [--preconditioners jacobi,multigrid,auto] [--E 1e5]
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "core")]

from test_scenes_defaults import DT, default_cube, world_on_floor  # noqa: E402


def run(steps, drop, E, preconditioner, cg_iterations=50, cg_tolerance=1e-3):
    """Per step: seconds, CG iterations, CG residual, preconditioner used; and the cage positions per step."""
    world = world_on_floor()
    world.sleeping = False
    world.settings.preconditioner = preconditioner
    world.settings.cg_iterations = cg_iterations
    world.settings.cg_tolerance = cg_tolerance
    _, body = default_cube(world, 0.2, drop + 0.0005, youngs_modulus=E)
    rows, path = [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        world.step(DT)
        s = world.stats
        rows.append((time.perf_counter() - t0, s["cg_iterations"], s["cg_residual"], s["preconditioner"],
                     s["solves"], s["seconds"]["cg"]))
        path.append(body.x.copy())
    return rows[2:], np.array(path), world.model.num_tets


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=96)
    parser.add_argument("--drop", type=float, default=0.05, help="height of the fall (m)")
    parser.add_argument("--E", type=float, default=1e5)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--cap", type=int, default=50)
    parser.add_argument("--preconditioners", default="jacobi,multigrid,auto")
    args = parser.parse_args()
    _, ref, tets = run(args.steps, args.drop, args.E, "jacobi", 1000, 1e-8)
    print(f"{tets} tets, E = {args.E:g}, drop {args.drop} m, {args.steps} steps, cap {args.cap}, tol 1e-3; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    summary = {}
    for r in range(args.rounds):
        for pre in args.preconditioners.split(","):
            rows, path, _ = run(args.steps, args.drop, args.E, pre, args.cap)
            secs, its, res, used, solves, cg = zip(*rows)
            its = np.array(its)
            # the cap is per solve; a step with contact may run up to 3 solves (their iterations add up)
            at_cap = np.mean(its >= args.cap * np.array(solves))
            err = np.linalg.norm(path - ref, axis=2).max(axis=1)
            kinds = ", ".join(f"{k} {used.count(k)}" for k in sorted(set(used)))
            line = (np.median(secs) * 1e3, np.median(its), its.max(), at_cap, np.median(res), max(res),
                    err.max() * 1e3, err[-1] * 1e3, np.median(cg) * 1e3)
            summary.setdefault(pre, []).append(line)
            print(f"round {r + 1} {pre:9s} | {line[0]:6.1f} ms/step (CG {line[8]:5.1f}) | CG iterations median {line[1]:.0f}, max "
                  f"{line[2]} | at cap {100 * line[3]:.0f} % of steps | residual median {line[4]:.1e}, max "
                  f"{line[5]:.1e} | off the converged run by up to {line[6]:.3f} mm ({line[7]:.3f} mm at the end) | "
                  f"steps by {kinds} | load {os.getloadavg()[0]:.2f}", flush=True)
    if args.rounds > 1:
        for pre, lines in summary.items():
            m = np.median(np.array(lines), axis=0)
            print(f"median of {args.rounds} rounds {pre:9s} | {m[0]:6.1f} ms/step (CG {m[8]:5.1f}) | CG iterations median {m[1]:.0f}, "
                  f"max {m[2]:.0f} | at cap {100 * m[3]:.0f} % | off by up to {m[6]:.3f} mm")


if __name__ == "__main__":
    main()
