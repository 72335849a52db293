"""Benchmark of conforming mode (fTetWild) against cage mode: the Stanford bunny (69k triangles) and it subdivided
(278k), plus spot and the car-like open shell; seconds, tets, quality, embedding.

Usage: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/conforming.py [--resolution 12] [--models bunny,...]
Needs ../shared/models and pytetwild. Wall times on a shared machine: the load average is printed.
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "benchmarks"), os.path.join(ROOT, "tests", "core")]
MODELS = os.path.join(os.path.dirname(ROOT), "shared", "models")

import core  # noqa: E402
from core.geometry.obj import load_obj  # noqa: E402
from tetrahedralize import subdivide  # noqa: E402


def meshes(names):
    for name in names:
        if name == "car":
            import open_shapes
            yield "car-like open shell", open_shapes.car_shell()
        elif name == "bunny278k":
            yield "bunny subdivided", subdivide(*load_obj(os.path.join(MODELS, "stanford-bunny.obj")))
        else:
            yield name, load_obj(os.path.join(MODELS, {"bunny": "stanford-bunny"}.get(name, name) + ".obj"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--resolution", type=int, default=12)
    ap.add_argument("--models", default="spot,car,bunny,bunny278k")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    for name, (v, t) in meshes(args.models.split(",")):
        row = [f"{name} ({len(t):,} triangles)"]
        for mode in ("cage", "conforming"):
            t0 = time.perf_counter()
            tm = core.tetrahedralize(v, t, resolution=args.resolution, mode=mode)
            seconds = time.perf_counter() - t0
            r = tm.report
            row.append(f"{mode}: {seconds:.2f} s, {r['tets']:,} tets, quality min {r['quality_min']:.2f}")
            if mode == "conforming":
                row.append(f"fTetWild saw {r['ftetwild_triangles']:,} triangles, envelope {r['envelope']:.3g}; "
                           f"vertices inside {r['vertices_inside']:.1%}, within the envelope "
                           f"{r['vertices_within_envelope']:.1%}")
        print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
