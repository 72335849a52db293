"""What a neo-Hookean default would cost against the corotated one: ms per step of Blender's default cube at the add-on's
defaults, dropped on a floor, and of the 2 m default cube with its base pinned under gravity tilted 30°.

The drop: the cube (0.2 m, 8 vertices) caged at --resolution (12: 10,981 tets; auto: the add-on's Auto cage), E = 1e5, ν = 0.45, ρ = 1000, Damping
0.01 s, friction 0.5, Δt = 1/96, CG cap 50, sleeping off, falls 5 cm and settles (--steps steps; the first two not
timed). The pinned block: tests/core/test_scenes_defaults.pinned_block's scene for --steps steps, no contact.
--rounds alternates the two models that many times (a shared machine) and prints the medians.
Usage: .venv/bin/python benchmarks/default_material_cost.py [--steps 96] [--rounds 3] [--resolution auto]
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "core")]

import core  # noqa: E402
from core.geometry import embed_points  # noqa: E402
from test_scenes_defaults import DT, G, box_surface, defaults, world_on_floor  # noqa: E402

MODELS = ("corotated", "neo_hookean")


def drop(model, steps, resolution):
    world = world_on_floor()
    world.sleeping = False
    v, t = box_surface((-0.1, -0.1, 0.0505), (0.1, 0.1, 0.2505))
    world.add_body(core.tetrahedralize(v, t, resolution=resolution), defaults(model=model))
    return _timed(world, steps)


def pinned(model, steps, resolution):
    th = np.radians(30.0)
    v, t = box_surface((-1.0, -1.0, 0.0), (1.0, 1.0, 2.0))
    tm = core.tetrahedralize(v, t, resolution=resolution)
    grid = np.linspace(-1.0, 1.0, 21)
    tet, _ = embed_points(tm.nodes, tm.tets, np.array([[a, b, 0.0] for a in grid for b in grid]))
    world = core.World(gravity=(G * np.sin(th), 0.0, -G * np.cos(th)), settings=core.SolverSettings(cg_iterations=50))
    world.sleeping = False
    world.add_body(tm, defaults(model=model), pinned=np.unique(tm.tets[tet]))
    return _timed(world, steps)


def _timed(world, steps):
    secs, its = [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        world.step(DT)
        secs.append(time.perf_counter() - t0)
        its.append(world.stats["cg_iterations"])
    return np.median(secs[2:]) * 1e3, np.median(its[2:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--resolution", default="12", help="the cages' resolution, or auto (the add-on's default)")
    args = parser.parse_args()
    resolution = args.resolution if args.resolution == "auto" else int(args.resolution)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    results = {}
    for r in range(args.rounds):
        for scene in (drop, pinned):
            for model in MODELS:
                ms, its = scene(model, args.steps, resolution)
                results.setdefault((scene.__name__, model), []).append(ms)
                print(f"round {r + 1} {scene.__name__:7s} {model:12s} {ms:7.1f} ms/step, CG iterations median {its:.0f}"
                      f" | load {os.getloadavg()[0]:.2f}", flush=True)
    for scene in ("drop", "pinned"):
        co, nh = (np.median(results[(scene, m)]) for m in MODELS)
        print(f"median of {args.rounds} rounds, {scene}: corotated {co:.1f} ms/step, neo-Hookean {nh:.1f} "
              f"({nh / co:.2f}×)")


if __name__ == "__main__":
    main()
