"""Per-node arithmetic on (N,3) arrays as small kernels, and their dot product: numpy broadcasting an (N,) column or a
(3,) row over the three components runs 5-20x slower than an elementwise operation of the same size (an inner loop of
3: ~20 us a line at 1.5k nodes against ~1.3, measured), and a step runs a dozen such lines."""
import numpy as np

from .jit import njit


@njit(cache=True)
def node_rows(column, row):
    """The (N,3) array column[n] · row."""
    out = np.empty((column.shape[0], 3))
    for n in range(column.shape[0]):
        for d in range(3):
            out[n, d] = column[n] * row[d]
    return out


@njit(cache=True)
def add_rows(out, column, row):
    """out[n] += column[n] · row (column None: out[n] += row)."""
    for n in range(out.shape[0]):
        for d in range(3):
            out[n, d] += row[d] if column is None else column[n] * row[d]


@njit(cache=True)
def masked_difference(a, b, free, out):
    """out = S (a − b) (b None: S a), S zeroing the rows n where free[n] is 0; returns out."""
    for n in range(a.shape[0]):
        for d in range(3):
            out[n, d] = (a[n, d] if b is None else a[n, d] - b[n, d]) * free[n]
    return out


@njit(cache=True)
def all_finite(a, b):
    """Whether every entry of the (N,3) arrays a and b is finite."""
    for n in range(a.shape[0]):
        for d in range(3):
            if not (np.isfinite(a[n, d]) and np.isfinite(b[n, d])):
                return False
    return True


@njit(cache=True)
def dot(a, b):
    """The sum of a·b over the rows of two (n, k) arrays, in row order: the same rounding in every process. numpy's
    (BLAS's) dot rounds by the arrays' alignment in memory, which made a multigrid run differ at 1e-17 between two
    processes (grown to 2e-11 in 40 steps of three stacked cubes); and OpenBLAS's threads, once woken for a long
    vector, spin beside numba's (the 20k-tet Rubber beam's multigrid step took 0.72 against 0.45 µs/tet with
    OPENBLAS_NUM_THREADS=1)."""
    acc = 0.0
    for n in range(a.shape[0]):
        row = 0.0
        for j in range(a.shape[1]):
            row += a[n, j] * b[n, j]
        acc += row
    return acc
