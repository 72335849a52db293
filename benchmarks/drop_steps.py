"""Where a step goes on the icosphere drop of benchmarks/vs_blender_softbody.py, in `core` alone.

The same ball (5 subdivisions, r = 0.5 m, caged at resolution 12: 5,933 tets, or --resolution auto) dropped from 2 m
on a 10 m plane (thickness 0.02 m) with the add-on's defaults (E = 1e5 Pa, ν = 0.45, ρ = 1000, β = 0.01 s, friction
0.5, Δt = 1/96, CG cap 50, block-Jacobi: the preconditioner the add-on picks for this body). 236 steps after the first,
each classed as in the air (no CG iteration: free fall), in flight (CG iterations, no contact) or in contact. Prints
per class the median ms per step, its CG iterations, and the median exclusive time of each part (functions timed in
place, benchmarks/part_timers.py), with the load average. Repeat it a few times: the machine is shared.
Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/drop_steps.py [--resolution auto]
"""
import argparse
import collections
import os
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
import core  # noqa: E402
from core import world as world_module  # noqa: E402
from core.contact import problem, stage  # noqa: E402
from core.fem import force_model  # noqa: E402
from core.geometry.primitives import icosphere  # noqa: E402
from core.solve import implicit_step  # noqa: E402
from part_timers import Timers  # noqa: E402

STEPS = 236
DT = 1.0 / 96.0
PARTS = ((stage.ContactStage, "resist_rolling", "rolling"), (stage.ContactStage, "problem", "contact detection"),
         (problem.ContactProblem, "solve", "contact solve"),
         (force_model.ForceModel, "update_rotations", "rotations"), (force_model.ForceModel, "forces", "forces"),
         (force_model.ForceModel, "assemble_blocks", "assembly"), (implicit_step, "pcg", "CG"),
         (world_module, "implicit_step", "implicit step (rest)"), (world_module.World, "_step", "World.step (rest)"))


def drop(resolution):
    """The ball 2 m above the plane, at the add-on's defaults (its cage at `resolution`)."""
    v, f = icosphere(5, 0.5, (0.0, 0.0, 2.5))
    mesh = core.tetrahedralize(v, f, resolution=resolution, mode="cage")
    mesh.embedding.triangles = f
    world = core.World(settings=core.SolverSettings(cg_iterations=50, preconditioner="jacobi"))
    world.add_body(mesh, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0, friction=0.5,
                                       damping_stiffness=0.01))
    plane = np.array([[-5.0, -5.0, 0.0], [5.0, -5.0, 0.0], [5.0, 5.0, 0.0], [-5.0, 5.0, 0.0]])
    world.add_collider(plane, np.array([[0, 1, 2], [0, 2, 3]]), friction=0.5, thickness=0.02, name="Plane")
    return world, mesh


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resolution", default="12", help="the cage's resolution, or auto (the add-on's default)")
    resolution = parser.parse_args().resolution
    world, mesh = drop(resolution if resolution == "auto" else int(resolution))
    timers = Timers()
    for owner, name, label in PARTS:
        timers.wrap(owner, name, label)
    world.step(DT)
    total, iterations = collections.defaultdict(list), collections.defaultdict(list)
    parts = collections.defaultdict(lambda: collections.defaultdict(list))
    for _ in range(STEPS):
        timers.seconds.clear()
        t0 = time.perf_counter()
        world.step(DT)
        spent = time.perf_counter() - t0
        s = world.stats
        kind = "contact" if s.get("contact_rows") or s["contacts"] else ("air" if s["cg_iterations"] == 0 else "flight")
        total[kind].append(spent)
        iterations[kind].append(s["cg_iterations"])
        for label, seconds in timers.seconds.items():
            parts[kind][label].append(seconds)
    print(f"icosphere drop in core, {mesh.num_tets} tets, add-on defaults (block-Jacobi), {STEPS} steps; "
          f"load {os.getloadavg()[0]:.2f}")
    for kind in ("air", "flight", "contact"):
        if not total[kind]:
            continue
        print(f"{kind:8} {len(total[kind]):4} steps: median {np.median(total[kind]) * 1e3:.2f} ms a step, "
              f"{np.sum(total[kind]) * 1e3:.0f} ms in all, {np.mean(iterations[kind]):.1f} CG iterations (mean)")
        for label, seconds in sorted(parts[kind].items(), key=lambda item: -np.median(item[1])):
            print(f"    {label:24} {np.median(seconds) * 1e3:6.3f} ms")


if __name__ == "__main__":
    main()
