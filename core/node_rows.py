"""Per-node arithmetic on (N,3) arrays as small kernels: numpy broadcasting an (N,) column or a (3,) row over the three
components runs 5-20x slower than an elementwise operation of the same size (an inner loop of 3: ~20 us a line at
1.5k nodes against ~1.3, measured), and a step runs a dozen such lines."""
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
def all_finite(a, b):
    """Whether every entry of the (N,3) arrays a and b is finite."""
    for n in range(a.shape[0]):
        for d in range(3):
            if not (np.isfinite(a[n, d]) and np.isfinite(b[n, d])):
                return False
    return True
