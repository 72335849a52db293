"""Which CG preconditioner the add-on should use per body stiffness: ms per frame, CG iterations and accuracy of
block-Jacobi, multigrid and "auto" with the preconditioner reset every frame, as the add-on does (issue 14).

At the add-on's settings (4 substeps at 24 fps: Δt = 1/96, CG cap 50, tolerance 1e-3, one Newton iteration;
sleeping off), World.reset_preconditioner() before every 4th step, so multigrid builds its hierarchy once a frame.
Scenes (kind:E[:resolution]): "cube" is Blender's default cube (0.2 m) caged at the resolution (default 12), dropped
5 cm on a floor; "ball" a 1 m icosphere (3 subdivisions) so; "beam" the 1 m cantilever of stiff_cantilever.py (24×6×6
cubes, 5,184 tets) pinned at x = 0; "rubber" the cube with the add-on's Rubber preset (neo-Hookean, E = 3.6e6,
ρ = 1100, damping 2e-4 s, friction 0.8). The others are corotated, ν = 0.45, ρ = 1000, damping 0.001 s, friction 0.5.
Stiffness number S = E Δt² / (ρ h²), h the mean tet edge. "off": the largest distance of any node from a converged
run's (multigrid, cap 1000, tolerance 1e-8) over the run, in mm and in % of the body's size (its largest extent).
Usage: .venv/bin/python benchmarks/preconditioner_choice.py [--scenes cube:1e5,beam:3.6e6,rubber,cube:1e6:6]
       [--rounds 2] [--frames 24] [--preconditioners jacobi,multigrid,auto] [--reset 4]
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "core")]

import core  # noqa: E402
from contact_scenes import box_surface, plane, soft_ball  # noqa: E402
from fem_testmeshes import box  # noqa: E402

DT = 1.0 / 96.0
SUBSTEPS = 4


def build(kind, E, resolution):
    """(world, body) of a scene at rest."""
    world = core.World(settings=core.SolverSettings(cg_iterations=50))
    world.sleeping = False
    if kind == "beam":
        mesh = box(24, 6, 6, 1.0, 0.25, 0.25)
        material = core.Material(youngs_modulus=E, poisson_ratio=0.45, density=1000.0, damping_stiffness=0.001)
        return world, world.add_body(mesh, material, pinned=np.flatnonzero(mesh.nodes[:, 0] < 1e-9))
    world.add_collider(*plane(20.0), friction=0.5)
    if kind == "ball":
        mesh, _ = soft_ball(3, 0.5, (0.0, 0.0, 0.5505), resolution)
    else:
        v, t = box_surface((-0.1, -0.1, 0.0505), (0.1, 0.1, 0.2505))
        mesh = core.tetrahedralize(v, t, resolution=resolution, mode="cage")
    if kind == "rubber":
        material = core.Material(youngs_modulus=3.6e6, poisson_ratio=0.45, density=1100.0, damping_stiffness=2e-4,
                                 friction=0.8, model="neo_hookean")
    else:
        material = core.Material(youngs_modulus=E, poisson_ratio=0.45, density=1000.0, damping_stiffness=0.001)
    return world, world.add_body(mesh, material)


def stiffness_number(body, dt):
    """E Δt² / (ρ h²), h the mean edge length of the body's tets."""
    x, tets = body.mesh.nodes, body.mesh.tets
    h = np.mean([np.linalg.norm(x[tets[:, a]] - x[tets[:, b]], axis=1).mean()
                 for a in range(4) for b in range(a + 1, 4)])
    m = body.material
    return m.youngs_modulus * dt * dt / (m.density * h * h)


def run(kind, E, resolution, frames, preconditioner, reset, cg_iterations=50, cg_tolerance=1e-3):
    """Seconds per frame, CG iterations per step, whether each step's solves all stopped at the cap, node positions
    per step, the world and the body."""
    world, body = build(kind, E, resolution)
    world.settings.preconditioner = preconditioner
    world.settings.cg_iterations = cg_iterations
    world.settings.cg_tolerance = cg_tolerance
    frame_secs, its, capped, path = [], [], [], []
    for step in range(frames * SUBSTEPS):
        if step % SUBSTEPS == 0:
            frame_secs.append(0.0)
        t0 = time.perf_counter()
        if reset and step % reset == 0:
            world.reset_preconditioner()
        world.step(DT)
        frame_secs[-1] += time.perf_counter() - t0
        its.append(world.stats["cg_iterations"])
        capped.append(its[-1] >= cg_iterations * world.stats["solves"])
        path.append(body.x.copy())
    return np.array(frame_secs), np.array(its), np.array(capped), np.array(path), world, body


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", default="cube:1e5,cube:3.6e6,beam:3.6e6,rubber")
    parser.add_argument("--frames", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--reset", type=int, default=SUBSTEPS, help="steps between resets (0: never)")
    parser.add_argument("--preconditioners", default="jacobi,multigrid,auto")
    args = parser.parse_args()
    print(f"Δt = 1/96, cap 50, tol 1e-3, reset every {args.reset or 'never'} steps; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for spec in args.scenes.split(","):
        kind, E, resolution = (spec.split(":") + ["3.6e6", "12"][spec.count(":"):])[:3]
        E, resolution = float(E), int(resolution)
        _, _, _, ref, world, body = run(kind, E, resolution, args.frames, "multigrid", 0, 1000, 1e-8)
        s = stiffness_number(body, DT)
        size = np.ptp(ref[0], axis=0).max()
        print(f"{spec}: {world.model.num_tets} tets, S = {s:.0f}; "
              f"largest node motion {np.linalg.norm(ref - ref[0], axis=2).max() * 1e3:.1f} mm", flush=True)
        lines = {}
        for _ in range(args.rounds):
            for pre in args.preconditioners.split(","):
                secs, its, capped, path, _, _ = run(kind, E, resolution, args.frames, pre, args.reset)
                off = np.linalg.norm(path - ref, axis=2).max()
                lines.setdefault(pre, []).append(np.median(secs[1:]) * 1e3)
                print(f"  {pre:9s} {lines[pre][-1]:6.1f} ms/frame | CG iterations a step median {np.median(its):.0f}, "
                      f"max {its.max()} | at cap {100 * np.mean(capped):.0f} % of steps | off {off * 1e3:.3f} mm "
                      f"({100 * off / size:.2f} %) "
                      f"| load {os.getloadavg()[0]:.2f}", flush=True)
        if args.rounds > 1:
            for pre, ms in lines.items():
                print(f"  {pre:9s} {min(ms):.1f}-{max(ms):.1f} ms/frame over {args.rounds} rounds")


if __name__ == "__main__":
    main()
