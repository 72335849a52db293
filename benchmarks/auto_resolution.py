"""Auto resolution and adaptive substeps against the former defaults, in `core`: Blender's 2 m icosphere and default
cube, a 2 m bar and Suzanne (from the shared models, when there) dropped 0.5 m onto a floor at the add-on's default
material, 24 fps, at most 4 substeps. Per cage (resolution 12, or "auto" with a tet budget) and substeps (all 4 every
frame, or adaptive: core.frame_substeps): tets, ms per frame after the landing (median), the steps taken, the volume
kept (least over the run), and the landing's swing (peak-to-peak height of the top over the 0.6 s after landing) as a
ratio of resolution 12's with 4 fixed substeps.

    python benchmarks/auto_resolution.py [--budgets 750 1500 3000] [--seconds 2]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import core  # noqa: E402
from core.geometry.obj import load_obj  # noqa: E402
from core.geometry.primitives import box_surface, icosphere  # noqa: E402

SUZANNE = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "models", "suzanne.obj")
FRAME = 1.0 / 24.0
SUBSTEPS = 4


def enclosed_volume(x, tris):
    a, b, c = x[tris[:, 0]], x[tris[:, 1]], x[tris[:, 2]]
    return float(np.einsum("nd,nd->n", a, np.cross(b, c)).sum() / 6.0)


def drop(vertices, triangles, resolution, budget, adaptive, seconds):
    """(tets, ms per frame after landing, steps, least volume ratio, top's peak-to-peak over 0.6 s after landing)."""
    v = vertices - [0.0, 0.0, vertices[:, 2].min() - 0.5]
    tm = core.tetrahedralize(v, triangles, resolution=resolution, tet_budget=budget)
    world = core.World()
    world.add_collider(np.array([[-20, -20, 0], [20, -20, 0], [20, 20, 0], [-20, 20, 0]], float),
                       np.array([[0, 1, 2], [0, 2, 3]]), friction=0.5)
    body = world.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0,
                                            damping_stiffness=0.01, friction=0.5))
    v0 = enclosed_volume(v, triangles)
    times, volume, top, low, steps = [], [], [], [], 0
    for _ in range(int(round(seconds / FRAME))):
        t0 = time.perf_counter()
        n = core.frame_substeps(world, FRAME, SUBSTEPS) if adaptive else SUBSTEPS
        for _ in range(n):
            world.step(FRAME / n)
        times.append(time.perf_counter() - t0)
        steps += n
        r = tm.embedding.positions(body.x)
        volume.append(enclosed_volume(r, triangles) / v0)
        top.append(r[:, 2].max())
        low.append(r[:, 2].min())
    landed = int(np.argmax(np.array(low) < 0.002))
    swing = np.array(top[landed:landed + int(round(0.6 / FRAME))])
    return (len(tm.tets), 1e3 * float(np.median(times[landed:])), steps, min(volume),
            float(swing.max() - swing.min()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budgets", type=int, nargs="+", default=[750, 1500, 3000])
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    meshes = {"icosphere": icosphere(2, 1.0), "cube": box_surface((-1, -1, -1), (1, 1, 1)),
              "bar": box_surface((-1, -0.15, -0.15), (1, 0.15, 0.15))}
    if os.path.exists(SUZANNE):   # the developers' shared models, when there
        meshes["suzanne"] = load_obj(SUZANNE)
    runs = [(12, 1, False)] + [("auto", b, False) for b in args.budgets] + [("auto", b, True) for b in args.budgets]
    print(f"load {open('/proc/loadavg').read().split()[0] if os.path.exists('/proc/loadavg') else '?'}")
    print(f"{'mesh':10s} {'cage':>10s} {'substeps':>9s} {'tets':>6s} {'ms/frame':>9s} {'steps':>6s} {'volume':>7s} "
          f"{'swing m':>8s} {'vs 12':>6s}")
    for name, (v, t) in meshes.items():
        ref = None
        for resolution, budget, adaptive in runs:
            tets, ms, steps, vol, swing = drop(v, t, resolution, budget, adaptive, args.seconds)
            ref = swing if ref is None else ref
            label = "12" if resolution == 12 else f"auto {budget}"
            print(f"{name:10s} {label:>10s} {'adaptive' if adaptive else 'fixed':>9s} {tets:6d} {ms:9.2f} {steps:6d} "
                  f"{vol:7.3f} {swing:8.3f} {swing / ref:6.2f}", flush=True)


if __name__ == "__main__":
    main()
