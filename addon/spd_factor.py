"""Sparse symmetric positive definite systems over cage nodes: one factorization, ordered by nested dissection."""
import numpy as np
from scipy import sparse
from scipy.sparse.linalg import splu

LEAF = 64   # parts of at most this many nodes are not split further


def factorized_spd(matrix, points):
    """solve(b) for the sparse SPD `matrix` (n, n) coupling nodes at `points` (n, 3); b is (n,) or (n, k).

    One sparse LU without pivoting (SPD needs none) of the matrix in nested-dissection order. SuperLU's own orders
    fill a cage's factor much more: the shape fit of a 20,900-node cage took 13.9 s to factorize and 129 ms a fit
    with COLAMD, 2.2 s and 65 ms so (benchmarks/shape_fit.py)."""
    order = nested_dissection(points, matrix)
    lu = splu(sparse.csr_matrix(matrix)[order][:, order].tocsc(), permc_spec="NATURAL", diag_pivot_thresh=0.0,
              options={"SymmetricMode": True})

    def solve(b):
        x = np.empty_like(b, dtype=np.float64)
        x[order] = lu.solve(np.ascontiguousarray(b[order], dtype=np.float64))
        return x
    return solve


def nested_dissection(points, matrix):
    """An order of the nodes by recursive coordinate bisection: each part (split at the median of its longest
    axis) comes before the separator between its halves (the lower half's nodes that `matrix` couples to the upper
    half), so the factor fills within parts and separators only."""
    n = len(points)
    coupled = (abs(sparse.csr_matrix(matrix)) > 0).astype(np.float64)
    order = np.empty(n, np.int64)
    end = n                     # filled from the end: a separator after both of its parts
    parts = [np.arange(n)]
    while parts:
        idx = parts.pop()
        p = points[idx]
        axis = int(np.argmax(np.ptp(p, axis=0))) if len(idx) else 0
        upper = p[:, axis] > np.median(p[:, axis]) if len(idx) > LEAF else np.zeros(len(idx), bool)
        if not upper.any():
            order[end - len(idx):end] = idx
            end -= len(idx)
            continue
        in_upper = np.zeros(n)
        in_upper[idx[upper]] = 1.0
        lower = idx[~upper]
        touches = coupled[lower] @ in_upper > 0.0
        order[end - int(touches.sum()):end] = lower[touches]
        end -= int(touches.sum())
        parts.append(lower[~touches])
        parts.append(idx[upper])
    return order
