"""Edge–edge detection timings: a 100k-edge soft-body surface across the sharp edges of 10k-triangle box steps,
and two touching spheres' full render edge sets against each other.

Prints the median (and min) time per call of edge_contacts (BVH refit + kernel + compaction), the one-off
feature_edges / EdgeBVH build, and the numba compile (first call) separately.
Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/contact_edges.py
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contact import latlong_sphere  # noqa: E402  (benchmarks/contact.py)
from core.contact.edges import EdgeBVH, edge_contacts, feature_edges, unique_edges  # noqa: E402

REPEATS = 7


def subdivided_box(lo, hi, n):
    """A box whose 6 faces are n x n quad grids: 12 n^2 outward triangles, vertices shared along its edges."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    verts, tris = [], []
    g = np.linspace(0.0, 1.0, n + 1)
    U, V = np.meshgrid(g, g, indexing="ij")
    for axis in range(3):
        for side in (0, 1):
            a, b = (axis + 1) % 3, (axis + 2) % 3
            p = np.zeros(((n + 1) ** 2, 3))
            p[:, axis] = (lo, hi)[side][axis]
            p[:, a] = lo[a] + U.ravel() * (hi[a] - lo[a])
            p[:, b] = lo[b] + V.ravel() * (hi[b] - lo[b])
            i = len(np.concatenate(verts)) if verts else 0
            k = i + np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
            q = [k[:-1, :-1].ravel(), k[1:, :-1].ravel(), k[1:, 1:].ravel(), k[:-1, 1:].ravel()]
            t = np.concatenate([np.stack([q[0], q[1], q[2]], 1), np.stack([q[0], q[2], q[3]], 1)])
            tris.append(t if side == 1 else t[:, ::-1])
            verts.append(p)
    v, t = np.concatenate(verts), np.concatenate(tris)
    # weld the faces' shared border vertices (the box is then closed)
    _, first, inverse = np.unique(np.round(v, 12), axis=0, return_index=True, return_inverse=True)
    return v[first], inverse.ravel()[t]


def steps(n):
    """Three separate boxes as stairs (12 n^2 triangles each), tops at z = 0, -0.5, -1; first top edge at x = -0.5."""
    parts = [subdivided_box((-1.45 + k, -1.0, -1.5), (-0.5 + k, 1.0, -0.5 * k), n) for k in range(3)]
    offs = np.cumsum([0] + [len(p[0]) for p in parts])
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] + o for p, o in zip(parts, offs)])


def timed(call):
    first = time.perf_counter()
    out = call()
    compile_s = time.perf_counter() - first
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - t0)
    return compile_s, f"{np.median(times) * 1e3:.2f} ms (min {np.min(times) * 1e3:.2f})", out


def main():
    dt = 1 / 120
    print("SoftFEM edge-edge detection benchmark (median of %d, ms per call)" % REPEATS)
    cv, ct = steps(17)
    EdgeBVH(cv[:3], [[0, 1]])   # load (or compile) the BVH build kernel outside the timing
    t0 = time.perf_counter()
    fe, faces = feature_edges(cv, ct, min_angle_deg=30.0)
    t1 = time.perf_counter()
    other = EdgeBVH(cv, fe)
    t2 = time.perf_counter()
    print(f"collider: {len(ct)} triangles, {len(fe)} feature edges; feature_edges {1e3 * (t1 - t0):.1f} ms, "
          f"EdgeBVH build {1e3 * (t2 - t1):.1f} ms (once)")

    # a sphere of radius 0.5 resting on the first step's top edge (x = -0.5, z = 0), 2 mm into it, falling at 1 m/s
    bv, bt = latlong_sphere(180, 190, 0.5, (-0.5 + 0.3, 0.0, 0.4 - 0.002))
    edges = unique_edges(bt)
    p0 = bv
    p1 = bv + dt * np.array([0.0, 0.0, -1.0])
    comp, ms, ec = timed(lambda: edge_contacts(edges, p0, p1, other, cv, cv, 0.0, 1e-4, 0.01, faces=faces,
                                               triangles=ct))
    print(f"body {len(edges)} edges vs steps: {ms} ({len(ec)} contacts), "
          f"first call (compile or cache load) {comp:.1f} s")

    # the stage benchmark's body size: 100k render vertices (about 300k edges) on the same step edge
    bv, bt = latlong_sphere(250, 400, 0.5, (-0.5 + 0.3, 0.0, 0.4 - 0.002))
    edges = unique_edges(bt)
    p0, p1 = bv, bv + dt * np.array([0.0, 0.0, -1.0])
    comp, ms, ec = timed(lambda: edge_contacts(edges, p0, p1, other, cv, cv, 0.0, 1e-4, 0.01, faces=faces,
                                               triangles=ct))
    print(f"body {len(bv)} vertices / {len(edges)} edges vs steps: {ms} ({len(ec)} contacts)")

    # two spheres side by side, 1 mm into each other at their equators and closing at 1 m/s: every render
    # edge against every render edge of the other (pole to pole, the latitude-longitude fans of 140 edges
    # meeting at one point would make a contact patch of ~20k close pairs)
    av, at = latlong_sphere(130, 140, 0.5, (0.0, 0.0, 0.0))
    bv2, bt2 = latlong_sphere(130, 140, 0.5, (0.999, 0.0, 0.0))
    ea, eb = unique_edges(at), unique_edges(bt2)
    t0 = time.perf_counter()
    bvh_b = EdgeBVH(bv2, eb)
    t1 = time.perf_counter()
    a1, b1 = av + dt * np.array([0.5, 0, 0]), bv2 - dt * np.array([0.5, 0, 0])
    comp, ms, ec = timed(lambda: edge_contacts(ea, av, a1, bvh_b, bv2, b1, 0.001, 1e-4))
    print(f"body {len(av)} vertices / {len(ea)} edges vs body {len(eb)} edges: {ms} ({len(ec)} contacts); "
          f"EdgeBVH build {1e3 * (t1 - t0):.1f} ms (once)")


if __name__ == "__main__":
    main()
