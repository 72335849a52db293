"""Lookups in compressed-row lists whose rows are sorted, shared by the solver's and the contact's kernels."""
from .jit import njit


@njit(cache=True, inline="always")
def csr_find(row_ptr, col, i, j):
    """The index of entry j in row i of a compressed-row list with sorted rows (row_ptr, col), or −1."""
    lo, hi = row_ptr[i], row_ptr[i + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if col[mid] < j:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < row_ptr[i + 1] and col[lo] == j else -1
