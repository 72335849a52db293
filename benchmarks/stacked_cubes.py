"""Blender's default cubes stacked on a floor at the add-on's defaults (two, or --cubes N): ms per step with each CG
preconditioner.

Each cube (0.2 m, 8 vertices) caged at resolution 12, E = 1e5, ν = 0.45, ρ = 1000, damping 0.01 s, friction 0.5,
Δt = 1/96, CG cap 50, tolerance 1e-3, sleeping off; the cubes fall 0.5 mm onto the floor and onto each other. The
first --warmup steps are not timed (landing; JIT from the disk cache), the next --steps are.
Usage: .venv/bin/python benchmarks/stacked_cubes.py [--cubes 2] [--steps 48] [--warmup 48]
       [--preconditioners jacobi,multigrid,auto]
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "core")]

from test_scenes_defaults import DT, default_cube, world_on_floor  # noqa: E402


def run(preconditioner, warmup, steps, cubes, size=0.2):
    world = world_on_floor()
    world.sleeping = False
    world.settings.preconditioner = preconditioner
    for k in range(cubes):
        default_cube(world, size, 0.0005 + k * (size + 0.004))
    for _ in range(warmup):
        world.step(DT)
    times, cg, its, res, used = [], [], [], [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        world.step(DT)
        times.append(time.perf_counter() - t0)
        s = world.stats
        cg.append(s["seconds"]["cg"])
        its.append(s["cg_iterations"])
        res.append(s["cg_residual"])
        used.append(s["preconditioner"])
    kinds = ", ".join(f"{k} {used.count(k)}" for k in sorted(set(used)))
    print(f"{preconditioner:9s} | {np.median(times) * 1e3:6.1f} ms/step (CG {np.median(cg) * 1e3:5.1f}) | CG iterations "
          f"{np.median(its):.0f} (max {max(its)}) | residual median {np.median(res):.1e}, max {max(res):.1e} | "
          f"steps by {kinds} | {world.model.num_tets} tets", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cubes", type=int, default=2)
    parser.add_argument("--steps", type=int, default=48)
    parser.add_argument("--warmup", type=int, default=48)
    parser.add_argument("--preconditioners", default="jacobi,multigrid,auto")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (other processes)")
    for pre in args.preconditioners.split(","):
        run(pre, args.warmup, args.steps, args.cubes)


if __name__ == "__main__":
    main()
