"""Numba kernels of the multigrid V-cycle below the fine level: block-CSR products, block Gauss–Seidel sweeps and
the coarsest level's dense product, over flat arrays (block-CSR: row_ptr, col, data (nnzb, r, c)). Coarse unknowns come in
blocks of 6 (an aggregate's rigid modes), fine ones in blocks of 3; the inner loops are written out for those
widths (1.7x faster than loops over a run-time width, measured)."""
import numpy as np

from ..jit import FAST_SUMS, njit, prange


def bsr_accumulate(row_ptr, col, data, x, out, scale):
    """out += scale A x, A block-CSR with (r, c) blocks, (r, c) one of (6, 6), (3, 6), (6, 3); x (columns, c),
    out (rows, r)."""
    kernel = {(6, 6): _accumulate66, (3, 6): _accumulate36, (6, 3): _accumulate63}[data.shape[1:]]
    kernel(row_ptr, col, data, x, out, scale)


@njit(cache=True)
def _dot6(d, a, x, j):
    return (d[a, 0] * x[j, 0] + d[a, 1] * x[j, 1] + d[a, 2] * x[j, 2] + d[a, 3] * x[j, 3] + d[a, 4] * x[j, 4]
            + d[a, 5] * x[j, 5])


@njit(cache=True)
def _dot3(d, a, x, j):
    return d[a, 0] * x[j, 0] + d[a, 1] * x[j, 1] + d[a, 2] * x[j, 2]


@njit(parallel=True, cache=True, fastmath=FAST_SUMS)
def _accumulate66(row_ptr, col, data, x, out, scale):
    for i in prange(row_ptr.shape[0] - 1):
        s0 = s1 = s2 = s3 = s4 = s5 = 0.0
        for q in range(row_ptr[i], row_ptr[i + 1]):
            d, j = data[q], col[q]
            s0 += _dot6(d, 0, x, j)
            s1 += _dot6(d, 1, x, j)
            s2 += _dot6(d, 2, x, j)
            s3 += _dot6(d, 3, x, j)
            s4 += _dot6(d, 4, x, j)
            s5 += _dot6(d, 5, x, j)
        out[i, 0] += scale * s0
        out[i, 1] += scale * s1
        out[i, 2] += scale * s2
        out[i, 3] += scale * s3
        out[i, 4] += scale * s4
        out[i, 5] += scale * s5


@njit(parallel=True, cache=True, fastmath=FAST_SUMS)
def _accumulate36(row_ptr, col, data, x, out, scale):
    for i in prange(row_ptr.shape[0] - 1):
        s0 = s1 = s2 = 0.0
        for q in range(row_ptr[i], row_ptr[i + 1]):
            d, j = data[q], col[q]
            s0 += _dot6(d, 0, x, j)
            s1 += _dot6(d, 1, x, j)
            s2 += _dot6(d, 2, x, j)
        out[i, 0] += scale * s0
        out[i, 1] += scale * s1
        out[i, 2] += scale * s2


@njit(parallel=True, cache=True, fastmath=FAST_SUMS)
def _accumulate63(row_ptr, col, data, x, out, scale):
    for i in prange(row_ptr.shape[0] - 1):
        s0 = s1 = s2 = s3 = s4 = s5 = 0.0
        for q in range(row_ptr[i], row_ptr[i + 1]):
            d, j = data[q], col[q]
            s0 += _dot3(d, 0, x, j)
            s1 += _dot3(d, 1, x, j)
            s2 += _dot3(d, 2, x, j)
            s3 += _dot3(d, 3, x, j)
            s4 += _dot3(d, 4, x, j)
            s5 += _dot3(d, 5, x, j)
        out[i, 0] += scale * s0
        out[i, 1] += scale * s1
        out[i, 2] += scale * s2
        out[i, 3] += scale * s3
        out[i, 4] += scale * s4
        out[i, 5] += scale * s5


@njit(cache=True)
def block_gauss_seidel(row_ptr, col, data, diag, dinv, x, b, forward):
    """One block Gauss–Seidel sweep on A x = b in place (6×6 blocks; dinv: the inverse diagonal blocks, diag: their
    indices in data), rows in order (forward) or reversed: forward before the coarse correction and backward after
    keep the V-cycle symmetric."""
    n = x.shape[0]
    for step in range(n):
        i = step if forward else n - 1 - step
        s0, s1, s2, s3, s4, s5 = b[i, 0], b[i, 1], b[i, 2], b[i, 3], b[i, 4], b[i, 5]
        for q in range(row_ptr[i], row_ptr[i + 1]):
            if q == diag[i]:
                continue
            j = col[q]
            d = data[q]
            s0 -= _dot6(d, 0, x, j)
            s1 -= _dot6(d, 1, x, j)
            s2 -= _dot6(d, 2, x, j)
            s3 -= _dot6(d, 3, x, j)
            s4 -= _dot6(d, 4, x, j)
            s5 -= _dot6(d, 5, x, j)
        d = dinv[i]
        for a in range(6):
            x[i, a] = d[a, 0] * s0 + d[a, 1] * s1 + d[a, 2] * s2 + d[a, 3] * s3 + d[a, 4] * s4 + d[a, 5] * s5


@njit(cache=True)
def dense_correction(pt_ptr, pt_col, pt_data, inverse, p_ptr, p_col, p_data, r, z):
    """z += P M Pᵀ r, the coarsest level's correction in one call (M its dense single-precision inverse; P, Pᵀ block-CSR
    with 6 columns, resp. rows, a block; r, z (rows, 3) or (rows, 6): the level above's residual and correction)."""
    nc = pt_ptr.shape[0] - 1
    b = np.zeros((nc, 6))
    if r.shape[1] == 3:
        _accumulate63(pt_ptr, pt_col, pt_data, r, b, 1.0)
    else:
        _accumulate66(pt_ptr, pt_col, pt_data, r, b, 1.0)
    e = np.empty(6 * nc)
    dense_product(inverse, b.ravel().astype(np.float32), e)
    if z.shape[1] == 3:
        _accumulate36(p_ptr, p_col, p_data, e.reshape(nc, 6), z, 1.0)
    else:
        _accumulate66(p_ptr, p_col, p_data, e.reshape(nc, 6), z, 1.0)


@njit(parallel=True, cache=True, fastmath=True)
def dense_product(matrix, b, x):
    """x = M b for the dense (n, n) single-precision matrix M (the coarsest level's inverse); b, x flat (n,), distinct.
    Rows split across threads, each a contiguous dot product in single-precision SIMD lanes (fastmath): twice the
    lanes of a double sum (1,050 unknowns: 73-99 against 117-160 us, measured), its rounding (~1e-6 relative) far
    below what a preconditioner may change."""
    for i in prange(matrix.shape[0]):
        s = np.float32(0.0)
        for j in range(matrix.shape[1]):
            s += matrix[i, j] * b[j]
        x[i] = s
