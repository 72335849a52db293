"""What a resting body costs per step awake and asleep: Blender's default cube (8 vertices, 0.2 m) and an icosphere
(r = 0.25 m, 4 subdivisions) at the add-on's defaults (resolution 12, E = 1e5 Pa, ν = 0.45, β = 0.01 s,
Δt = 1/96 s, CG cap 50), dropped 1 cm onto a plane. Prints the median ms per step over 48 steps once each rests,
with sleeping off (world.sleeping = False) and on (after it fell asleep)."""
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "core"))

import core  # noqa: E402
from contact_scenes import box_surface, icosphere, plane  # noqa: E402
from test_scenes_defaults import defaults  # noqa: E402

DT = 1.0 / 96.0


def scene(kind, sleeping):
    w = core.World(settings=core.SolverSettings(cg_iterations=50))
    w.sleeping = sleeping
    w.add_collider(*plane(20.0), friction=0.5)
    if kind == "cube":
        v, t = box_surface((-0.1, -0.1, 0.01), (0.1, 0.1, 0.21))
    else:
        v, t = icosphere(4, 0.25, (0.0, 0.0, 0.26))
    tm = core.tetrahedralize(v, t, resolution=12, mode="cage")
    tm.embedding.triangles = t
    w.add_body(tm, defaults())
    return w


def median_step(w, steps=48):
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        w.step(DT)
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times))


def main():
    print(f"load average {os.getloadavg()[0]:.1f}")
    for kind in ("cube", "ball"):
        awake = scene(kind, False)
        for _ in range(int(2.0 / DT)):
            awake.step(DT)
        a = median_step(awake)
        asleep = scene(kind, True)
        settle = 0
        while not asleep.asleep.all() and settle < int(6.0 / DT):
            asleep.step(DT)
            settle += 1
        if not asleep.asleep.all():
            print(f"{kind}: resting awake {a:.2f} ms/step; did not fall asleep within 6 s")
            continue
        s = median_step(asleep)
        print(f"{kind}: resting awake {a:.2f} ms/step, asleep {s:.3f} ms/step ({a / s:.0f}x), "
              f"asleep after {settle * DT:.2f} s")


if __name__ == "__main__":
    main()
