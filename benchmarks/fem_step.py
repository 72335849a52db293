"""Benchmark of one FEM step (PCG) at 5k, 20k and 100k tets, per material model and integrator.

Prints µs per tet per step (median of repeats), its split (rotations + DAPD / forces / CG), CG
iterations, peak memory per tet (tracemalloc: numpy arrays of the world and the step), and,
separately, the first step's time with a cold numba cache (JIT compile) and with a warm one.
Each size is run for each Young's modulus (--E), CG preconditioner (--preconditioners) and material model
(--models: corotated + DAPD, stvk, neo_hookean, mooney_rivlin) and integrator (--integrators: backward_euler,
1 Newton iteration; newmark, 2), side by side; "rotations" is the corotated rotations + DAPD or the hyperelastic SVD
+ per-tet stiffness.
Usage: .venv/bin/python benchmarks/fem_step.py [--sizes 5000,20000,100000] [--steps 10] [--E 1e5,3.6e6]
       [--preconditioners jacobi,multigrid] [--models corotated] [--integrators backward_euler]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "core"))

import core  # noqa: E402
from fem_testmeshes import box  # noqa: E402

DT = 1.0 / 60.0


BLOCKS = {5000: (16, 8, 7), 20000: (20, 13, 13), 100000: (40, 21, 20)}


def block(target_tets, E=1e5, preconditioner="auto", model="corotated", integrator="backward_euler"):
    """A 2 m long box of ~target_tets tets (cubic cells of 6 tets), pinned at one end, hanging under gravity."""
    nx, ny, nz = BLOCKS.get(target_tets) or (round((target_tets / 6) ** (1 / 3)),) * 3
    h = 2.0 / nx
    mesh = box(nx, ny, nz, 2.0, ny * h, nz * h)
    world = core.World(gravity=(0.0, 0.0, -9.81), settings=core.SolverSettings(preconditioner=preconditioner,
                                                                                      integrator=integrator))
    pinned = np.flatnonzero(mesh.nodes[:, 0] < 1e-9)
    body = world.add_body(mesh, core.Material(youngs_modulus=E, poisson_ratio=0.3, density=1000.0,
                                              damping_stiffness=0.01, model=model), pinned=pinned)
    return mesh, world, body


def run(target, steps, E, preconditioner, model="corotated", integrator="backward_euler"):
    mesh, world, _ = block(target, E, preconditioner, model, integrator)
    world.step(DT)                       # JIT (or cache load) outside the timings
    # memory (numpy arrays, tracemalloc) of a fresh world of the same mesh: building it (Model, State),
    # then stepping (peak while the step's work arrays and temporaries exist)
    tracemalloc.start()
    world = core.World(gravity=world.gravity, settings=world.settings)
    world.add_body(mesh, core.Material(youngs_modulus=E, poisson_ratio=0.3, density=1000.0,
                                       damping_stiffness=0.01, model=model),
                   pinned=np.flatnonzero(mesh.nodes[:, 0] < 1e-9))
    _, build_peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    world.step(DT)
    world.step(DT)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    times, stats = [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        world.step(DT)
        times.append(time.perf_counter() - t0)
        stats.append(world.stats)
    m = mesh.num_tets
    per = {k: np.median([s["seconds"][k] for s in stats]) / m * 1e6 for k in ("rotations", "forces", "cg")}
    print(f"{m:7d} tets {mesh.num_nodes:6d} nodes E {E:7.2g} {preconditioner:9s} {model:13s} {integrator:14s} | "
          f"{np.median(times) / m * 1e6:6.3f} µs/tet/step "
          f"(rotations+DAPD {per['rotations']:.3f}, forces {per['forces']:.3f}, CG {per['cg']:.3f}) | "
          f"CG iterations {np.mean([s['cg_iterations'] for s in stats]):.1f} | "
          f"{np.median(times) * 1e3:7.2f} ms/step | peak memory stepping {peak / m:.0f} B/tet "
          f"(building the world {build_peak / m:.0f} B/tet)", flush=True)


_FIRST_STEP = """
import sys, time
sys.path[:0] = [{root!r}, {tests!r}]
t0 = time.perf_counter()
import core
from fem_testmeshes import box
mesh = box(2, 2, 2)
w = core.World()
w.add_body(mesh, core.Material(poisson_ratio=0.3), pinned=[0])
t1 = time.perf_counter()
w.step(0.01)
t2 = time.perf_counter()
print(f"{{t2 - t1:.2f}}")
"""


def first_step_seconds(cache_dir):
    code = _FIRST_STEP.format(root=ROOT, tests=os.path.join(ROOT, "tests", "core"))
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000,100000")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--E", default="1e5,3.6e6", help="Young's moduli (Pa)")
    parser.add_argument("--preconditioners", default="jacobi,multigrid")
    parser.add_argument("--models", default="corotated", help="material models (core.Material(model=...))")
    parser.add_argument("--integrators", default="backward_euler", help="core.SolverSettings(integrator=...)")
    parser.add_argument("--threads", type=int, default=0, help="numba threads (default: all cores)")
    parser.add_argument("--no-jit", action="store_true", help="skip the cold/warm first-step measurement")
    args = parser.parse_args()
    import numba
    if args.threads:
        numba.set_num_threads(args.threads)
    print(f"numba {numba.__version__}, {numba.get_num_threads()} threads, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} (other processes), dt = 1/60 s, default SolverSettings "
          "but the preconditioner")
    for size in (int(s) for s in args.sizes.split(",")):
        for E in (float(e) for e in args.E.split(",")):
            for pre in args.preconditioners.split(","):
                for model in args.models.split(","):
                    for integrator in args.integrators.split(","):
                        run(size, args.steps, E, pre, model, integrator)
    if not args.no_jit:
        with tempfile.TemporaryDirectory() as tmp:
            cold = first_step_seconds(tmp)
            warm = first_step_seconds(tmp)
        print(f"first step: {cold:.1f} s with a cold numba cache (JIT compile), {warm:.2f} s from the disk cache")


if __name__ == "__main__":
    main()
