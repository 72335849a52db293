"""Auto resolution's tet budget: Blender's 2 m icosphere and default cube, a 2 m bar and Suzanne (from the shared models, when there) dropped 0.5 m onto a floor at the
add-on's default material, caged at resolution 12 and at "auto" with several budgets. Per cage: tets, ms per step
(median), the volume kept (least over the run), and the landing's first swing (peak-to-peak height of the top over
the 0.6 s after landing) as a ratio of resolution 12's.

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

DT = 1.0 / 96.0


def enclosed_volume(x, tris):
    a, b, c = x[tris[:, 0]], x[tris[:, 1]], x[tris[:, 2]]
    return float(np.einsum("nd,nd->n", a, np.cross(b, c)).sum() / 6.0)


def drop(vertices, triangles, resolution, budget, seconds):
    """(tets, ms per step, least volume ratio, top's peak-to-peak over the 0.6 s after landing)."""
    v = vertices - [0.0, 0.0, vertices[:, 2].min() - 0.5]
    tm = core.tetrahedralize(v, triangles, resolution=resolution, tet_budget=budget)
    world = core.World()
    world.add_collider(np.array([[-20, -20, 0], [20, -20, 0], [20, 20, 0], [-20, 20, 0]], float),
                       np.array([[0, 1, 2], [0, 2, 3]]), friction=0.5)
    body = world.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0,
                                            damping_stiffness=0.01, friction=0.5))
    v0 = enclosed_volume(v, triangles)
    times, volume, top, low = [], [], [], []
    for _ in range(int(round(seconds / DT))):
        t0 = time.perf_counter()
        world.step(DT)
        times.append(time.perf_counter() - t0)
        r = tm.embedding.positions(body.x)
        volume.append(enclosed_volume(r, triangles) / v0)
        top.append(r[:, 2].max())
        low.append(r[:, 2].min())
    landed = int(np.argmax(np.array(low) < 0.002))
    swing = np.array(top[landed:landed + int(0.6 / DT)])
    return len(tm.tets), 1e3 * float(np.median(times[landed:])), min(volume), float(swing.max() - swing.min())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budgets", type=int, nargs="+", default=[750, 1500, 3000])
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    meshes = {"icosphere": icosphere(2, 1.0), "cube": box_surface((-1, -1, -1), (1, 1, 1)),
              "bar": box_surface((-1, -0.15, -0.15), (1, 0.15, 0.15))}
    if os.path.exists(SUZANNE):   # the developers' shared models, when there
        meshes["suzanne"] = load_obj(SUZANNE)
    print(f"{'mesh':10s} {'cage':>10s} {'tets':>6s} {'ms/step':>8s} {'volume':>7s} {'swing':>7s} {'vs 12':>6s}")
    for name, (v, t) in meshes.items():
        ref = None
        for res in [12] + [("auto", b) for b in args.budgets]:
            resolution, budget = (res, 1) if res == 12 else res
            tets, ms, vol, swing = drop(v, t, resolution, budget, args.seconds)
            ref = swing if ref is None else ref
            label = "12" if res == 12 else f"auto {budget}"
            print(f"{name:10s} {label:>10s} {tets:6d} {ms:8.2f} {vol:7.3f} {swing:7.3f} {swing / ref:6.2f}", flush=True)


if __name__ == "__main__":
    main()
