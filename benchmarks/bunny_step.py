"""Benchmark of one World step of the live-playback scene in core alone: the bunny resting on a floor, where the time goes.

The stanford bunny (longest side 0.5 m, Z up as Blender imports it) tetrahedralized at the add-on's default
resolution 12 (cage mode), the add-on's default material, dropped 3 cm onto a 10 m plane of thickness 2 cm,
Δt = 1/96 s (4 substeps at 24 fps). After --settle steps, --steps steps are timed: the median step, and the
median per step of each part's exclusive time (functions wrapped in place; a part's time excludes the timed
parts it calls). The solver runs on one thread, as World.step runs a world this small.
Usage: .venv/bin/python benchmarks/bunny_step.py [--settle 48] [--steps 96] [--preconditioner auto|multigrid|jacobi]
"""
import argparse
import collections
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import core  # noqa: E402
import core.contact.problem as problem  # noqa: E402
import core.contact.stage as stage  # noqa: E402
import core.solve.linear_system as linear_system  # noqa: E402
import core.world as world_module  # noqa: E402
from core.fem.force_model import ForceModel  # noqa: E402
from core.geometry.obj import load_obj  # noqa: E402
from part_timers import Timers  # noqa: E402

BUNNY = os.path.join(ROOT, "..", "shared", "models", "stanford-bunny.obj")
DT = 1.0 / 96.0


def bunny_world(preconditioner="auto"):
    """The scene: the bunny's cage World (add-on defaults) and a floor collider."""
    v, f = load_obj(BUNNY)[:2]
    v = np.asarray(v, float)
    v = np.stack([v[:, 0], -v[:, 2], v[:, 1]], axis=1)   # Y up (the file) to Z up, as Blender's OBJ import
    lo, hi = v.min(axis=0), v.max(axis=0)
    v = (v - 0.5 * (lo + hi)) * (0.5 / (hi - lo).max())
    v[:, 2] -= v[:, 2].min() - 0.05                      # 3 cm above the plane's outer thickness
    tm = core.tetrahedralize(v, np.asarray(f), resolution=12)
    kw = {"preconditioner": preconditioner} if preconditioner != "auto" else {}   # older cores lack the knob
    world = core.World(settings=core.SolverSettings(newton_iterations=1, cg_iterations=50, **kw))
    world.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0, damping_mass=0.0,
                                     damping_stiffness=0.01, friction=0.5))
    floor = np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], float)
    world.add_collider(floor, np.array([[0, 1, 2], [0, 2, 3]]), friction=0.5, thickness=0.02)
    return tm, world


def instrument(timers):
    """Wrap the step's parts (those this version of core has)."""
    for owner, name, label in [
            (core.World, "_step", "world: other"),
            (world_module, "implicit_step", "implicit solve: other (CG loop, right-hand side)"),
            (ForceModel, "update_rotations", "implicit solve: rotations"),
            (ForceModel, "forces", "implicit solve: elastic forces"),
            (linear_system.BlockSparseSystem, "__init__", "implicit solve: assembly"),
            (linear_system.BlockSparseSystem, "apply", "implicit solve: stiffness products"),
            (stage.ContactStage, "problem", "contact rows: other"),
            (problem.ContactProblem, "solve", "implicit solve: contact solve"),
            (stage.ContactStage, "finish_problem", "contact report"),
            (stage.ContactStage, "resist_rolling", "rolling resistance"),
            (stage.ContactStage, "_gather", "contact detection: vertex rows"),
            (stage.ContactStage, "_edge_rows", "contact detection: edge rows")]:
        if hasattr(owner, name):
            timers.wrap(owner, name, label)
        else:
            print(f"(not timed: {name} does not exist in this version)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--settle", type=int, default=48, help="steps before timing (the bunny lands at ~10)")
    parser.add_argument("--steps", type=int, default=96)
    parser.add_argument("--preconditioner", default="auto")
    args = parser.parse_args()
    tm, world = bunny_world(args.preconditioner)
    for _ in range(args.settle):
        world.step(DT)
    timers = Timers()
    instrument(timers)
    steps, per_part, cg, contacts = [], collections.defaultdict(list), [], []
    for _ in range(args.steps):
        timers.seconds.clear()
        t0 = time.perf_counter()
        world.step(DT)
        steps.append(time.perf_counter() - t0)
        for k, v in timers.seconds.items():
            per_part[k].append(v)
        cg.append(world.stats["cg_iterations"])
        contacts.append(world.stats["contacts"])
    print(f"bunny cage: {tm.num_nodes} nodes, {len(tm.tets)} tets, {len(tm.embedding.tet)} render points; "
          f"load average {os.getloadavg()[0]:.1f}; steps {args.settle + 1}-{args.settle + args.steps} timed")
    print(f"step median {1e3 * np.median(steps):.2f} ms ({4e3 * np.median(steps):.1f} ms per frame at 4 substeps); "
          f"median contacts {np.median(contacts):.0f}, CG iterations {np.median(cg):.0f}")
    for k in sorted(per_part, key=lambda k: -np.median(per_part[k])):
        print(f"  {k:52s} {1e3 * np.median(per_part[k]):6.3f} ms")


if __name__ == "__main__":
    main()
