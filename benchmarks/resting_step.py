"""A step of a body resting on a floor against the same body's step in the air, in `core` at the add-on's defaults.

The issue's 0.5 m ball (icosphere of 4 subdivisions, r = 0.25 m, cage resolution 12 or --resolution, E = 1e5 Pa, ν = 0.45,
ρ = 1000, damping 0.01 s, friction 0.5, Δt = 1/96, sleeping off): placed 1 mm above a 10 m plane and let settle for
250 steps, then 100 steps timed; the same ball falling far from anything, 100 steps timed after 20. Prints the
median ms of each, their ratio, and the resting steps' contact detections (checks after the solve), Newton steps
and CG iterations; --runs repeats the pair and prints the medians. Run:
NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/resting_step.py [--runs 3] [--resolution auto]
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "core")]
import core  # noqa: E402
from contact_scenes import plane, soft_ball  # noqa: E402

DT = 1.0 / 96.0


def ball(on_floor, resolution):
    world = core.World()
    world.sleeping = False
    if on_floor:
        world.add_collider(*plane(10.0), friction=0.5)
    mesh, _ = soft_ball(4, 0.25, (0.0, 0.0, 0.251 if on_floor else 100.0), resolution)
    world.add_body(mesh, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0, friction=0.5,
                                       damping_stiffness=0.01))
    return world


def timed(world, settle, steps):
    for _ in range(settle):
        world.step(DT)
    seconds, stats = [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        world.step(DT)
        seconds.append(time.perf_counter() - t0)
        stats.append(world.stats)
    return float(np.median(seconds)), stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--resolution", default="12", help="the cage's resolution, or auto (the add-on's default)")
    args = parser.parse_args()
    runs, resolution = args.runs, args.resolution if args.resolution == "auto" else int(args.resolution)
    air, rest = [], []
    for _ in range(runs):
        a, _ = timed(ball(False, resolution), 20, 100)
        r, stats = timed(ball(True, resolution), 250, 100)
        air.append(a)
        rest.append(r)
        mean = {k: np.mean([s.get(k, 0) for s in stats]) for k in ("contact_checks", "contact_restarts",
                                                                    "contact_iterations", "contact_rows")}
        print(f"air {a * 1e3:.2f} ms, resting {r * 1e3:.2f} ms: {r / a:.2f}x | resting, per step: "
              f"{1 + mean['contact_checks']:.2f} detections, {mean['contact_restarts']:.2f} Newton steps, "
              f"{mean['contact_iterations']:.2f} CG iterations, {mean['contact_rows']:.0f} rows | "
              f"load {os.getloadavg()[0]:.2f}", flush=True)
    if runs > 1:
        print(f"medians of {runs}: air {np.median(air) * 1e3:.2f} ms, resting {np.median(rest) * 1e3:.2f} ms, "
              f"ratio {np.median(np.array(rest) / np.array(air)):.2f}x")


if __name__ == "__main__":
    main()
