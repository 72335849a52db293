"""The shape fit's cost (addon/shape_fit.py: the cage under an armature, hooks, shape keys, and goal targets).

An icosphere (5 subdivisions, 2,562 vertices, r = 0.5 m) caged at resolutions 12, 24 and 32 (the add-on's default
and two finer ones). Per cage: the whole ShapeFit built (once per cage and session), then its matrix factorized and one fit (three
coordinates) solved with the order the add-on uses (addon/spd_factor.py: nested dissection) and with SuperLU's
default (COLAMD) for reference, the factors' nonzeros, and the largest difference of the fits; medians of three.
Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/shape_fit.py [--resolutions 12,24,32]
"""
import os
import statistics
import sys
import time

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import splu

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
import core  # noqa: E402
from addon import shape_fit  # noqa: E402
from addon.spd_factor import factorized_spd, nested_dissection  # noqa: E402
from core.geometry.primitives import icosphere  # noqa: E402


def median_seconds(run, repeat):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main():
    resolutions = [12, 24, 32]
    if "--resolutions" in sys.argv:
        resolutions = [int(r) for r in sys.argv[sys.argv.index("--resolutions") + 1].split(",")]
    v, f = icosphere(5, 0.5)
    d = np.random.default_rng(0).normal(scale=0.01, size=v.shape)
    print(f"shape fit of an icosphere (2,562 vertices), medians of three (load {os.getloadavg()[0]:.2f})")
    print(f"{'resolution':>10} {'nodes':>7} {'built s':>8} | {'factorize s':>11} {'fit ms':>7} {'factor nnz':>11} | "
          f"{'COLAMD s':>9} {'fit ms':>7} {'factor nnz':>11} | {'difference':>10}")
    for res in resolutions:
        tm = core.tetrahedralize(v, f, resolution=res, mode="cage")
        nodes, weights = tm.tets[tm.embedding.tet], tm.embedding.weights
        edge = float(np.ptp(tm.nodes, axis=0).max()) / res
        build, fit = median_seconds(lambda: shape_fit.ShapeFit(tm.nodes, tm.tets, nodes, weights, edge), 3)
        jump = shape_fit._gradient_jumps(tm.nodes, tm.tets)
        normal = (fit.w.T @ fit.w + (shape_fit.SMOOTHING * edge * edge) * (jump.T @ jump)).tocsc()
        matrix = (normal + shape_fit.PRIOR * normal.diagonal().max() * sparse.identity(tm.num_nodes)).tocsc()
        rhs = fit.w.T @ d
        factorize, solve = median_seconds(lambda: factorized_spd(matrix, tm.nodes), 3)
        one, ours = median_seconds(lambda: solve(rhs), 3)
        colamd_build, lu = median_seconds(lambda: splu(matrix), 3)
        colamd_one, theirs = median_seconds(lambda: lu.solve(np.asfortranarray(rhs)), 3)
        order = nested_dissection(tm.nodes, matrix)
        nd = splu(sparse.csr_matrix(matrix)[order][:, order].tocsc(), permc_spec="NATURAL", diag_pivot_thresh=0.0,
                  options={"SymmetricMode": True})
        diff = np.abs(ours - theirs).max() / np.abs(theirs).max()
        print(f"{res:>10} {tm.num_nodes:>7} {build:>8.3f} | {factorize:>11.3f} {one * 1e3:>7.1f} {nd.L.nnz + nd.U.nnz:>11,} | "
              f"{colamd_build:>9.3f} {colamd_one * 1e3:>7.1f} {lu.L.nnz + lu.U.nnz:>11,} | {diff:>10.1e}")


if __name__ == "__main__":
    main()
