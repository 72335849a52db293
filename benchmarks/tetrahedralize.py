"""Benchmark of core.tetrahedralize: every shared model at resolutions 8/16/32 and a 278k-triangle bunny.

Usage: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/tetrahedralize.py [--repeats 3]
Prints the JIT compile time (cold, in a subprocess with an empty numba cache), then median wall and CPU times
(CPU: this process, both threads; the machine is shared, so wall time depends on the load average printed).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
MODELS = os.path.join(os.path.dirname(ROOT), "shared", "models")

import core  # noqa: E402
from core.geometry.obj import load_obj  # noqa: E402


def subdivide(v, t):
    """Split every triangle into 4 at its (shared) edge midpoints."""
    e = np.sort(np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]]), axis=1)
    edges, inv = np.unique(e, axis=0, return_inverse=True)
    mid = len(v) + inv.reshape(3, -1).T  # midpoint ids of edges (01, 12, 20)
    v2 = np.concatenate([v, 0.5 * (v[edges[:, 0]] + v[edges[:, 1]])])
    a, b, c = t.T
    m01, m12, m20 = mid.T
    t2 = np.concatenate([np.stack(x, axis=1) for x in
                         ((a, m01, m20), (b, m12, m01), (c, m20, m12), (m01, m12, m20))])
    return v2, t2


def timed(fn, repeats):
    """Median wall time, median CPU time of this process (all threads) and the last result."""
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return float(np.median(wall)), float(np.median(cpu)), out


def cold_compile():
    code = ("import sys,time; sys.path.insert(0, %r); t0=time.perf_counter(); import core, numpy as np;"
            "from core.geometry.obj import load_obj; v,t=load_obj(%r); t1=time.perf_counter();"
            "core.tetrahedralize(v,t,resolution=4); t2=time.perf_counter();"
            "print(f'{t2-t1:.1f}')") % (ROOT, os.path.join(MODELS, "suzanne.obj"))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout.strip()
        warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout.strip()
    return cold, warm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    import numba
    print(f"numba threads: {numba.get_num_threads()}, cpu count: {os.cpu_count()}, "
          f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    cold, warm = cold_compile()
    print(f"JIT: first call with an empty numba cache {cold} s (compile); with the cache filled {warm} s (load)")
    core.tetrahedralize(*load_obj(os.path.join(MODELS, "suzanne.obj")), resolution=4)  # warm this process
    print(f"{'model':16s} {'tris':>7s} {'res':>4s} {'nodes':>6s} {'tets':>6s} {'q_min':>6s} {'split':>5s} "
          f"{'cage/mesh vol':>13s} {'wall s':>7s} {'cpu s':>6s}")
    meshes = [(name, load_obj(os.path.join(MODELS, name + ".obj")))
              for name in ("spot", "cow", "homer", "stanford-bunny", "teapot", "suzanne")]
    for name, (v, t) in meshes:
        for res in (8, 16, 32):
            sec, cpu, tm = timed(lambda: core.tetrahedralize(v, t, resolution=res), args.repeats)
            r = tm.report
            print(f"{name:16s} {len(t):7d} {res:4d} {r['nodes']:6d} {r['tets']:6d} {r['quality_min']:6.3f} "
                  f"{r['split_tets']:5d} {r['cage_volume'] / r['mesh_volume']:13.3f} {sec:7.3f} {cpu:6.3f}")
    v, t = subdivide(*dict(meshes)["stanford-bunny"])
    sec, cpu, tm = timed(lambda: core.tetrahedralize(v, t, resolution=32), args.repeats)
    r = tm.report
    print(f"{'bunny x4 subdiv':16s} {len(t):7d} {32:4d} {r['nodes']:6d} {r['tets']:6d} {r['quality_min']:6.3f} "
          f"{r['split_tets']:5d} {r['cage_volume'] / r['mesh_volume']:13.3f} {sec:7.3f} {cpu:6.3f}")
    x = tm.nodes + 0.01
    sec, _, _ = timed(lambda: tm.embedding.positions(x), 20)
    print(f"embedding.positions for {len(v)} vertices: {sec * 1e3:.2f} ms (median of 20)")


if __name__ == "__main__":
    main()
