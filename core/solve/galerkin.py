"""Numba kernels building the multigrid's levels over block-CSR arrays (row_ptr, col, data (nnzb, r, c)): a body's
fine matrix with its contact rows' curvature blocks, block sparse products and transposes for the smoothed prolongator and the
Galerkin coarse operator Pᵀ A P."""
import numpy as np

from ..csr import csr_find
from ..jit import get_num_threads, njit, prange


@njit(cache=True)
def body_matrix(row_ptr, col, data, free, n0, n1, node, coef, kb):
    """Rows/columns n0:n1 of S (A + Jᵀ W J) S in A's block pattern (S zeroes pinned nodes' rows and columns):
    each contact curvature block's coupling coefᵢ coefⱼ K of nodes i, j of the body is added where A has a block (i, j),
    and as |coefᵢ coefⱼ| K on both diagonal blocks where it has none (which adds a positive semi-definite term, so
    the coarse levels never see the body softer than it is)."""
    k0 = row_ptr[n0]
    out_ptr = row_ptr[n0:n1 + 1] - k0
    out_col = col[k0:row_ptr[n1]] - n0
    out = data[k0:row_ptr[n1]].copy()
    n = n1 - n0
    diag = np.empty(n, np.int64)
    for i in range(n):
        diag[i] = -1
        for q in range(out_ptr[i], out_ptr[i + 1]):
            j = out_col[q]
            if j == i:
                diag[i] = q
            f = free[n0 + i] * free[n0 + j]
            for a in range(3):
                for b in range(3):
                    out[q, a, b] *= f
    for blk in range(node.shape[0]):
        for s in range(node.shape[1]):
            i = node[blk, s] - n0
            if i < 0 or i >= n or free[n0 + i] == 0.0:
                continue
            for t in range(node.shape[1]):
                j = node[blk, t] - n0
                if j < 0 or j >= n or free[n0 + j] == 0.0:
                    continue
                w = coef[blk, s] * coef[blk, t]
                q = csr_find(out_ptr, out_col, i, j)
                if q < 0:
                    q, w = diag[i], abs(w)
                for a in range(3):
                    for b in range(3):
                        out[q, a, b] += w * kb[blk, a, b]
    return out_ptr, out_col, out, diag


@njit(cache=True)
def product_pattern(a_ptr, a_col, b_ptr, b_col, num_cols):
    """The block pattern (c_ptr, c_col, rows sorted) of C = A B (block-CSR, sorted rows), B with num_cols block columns."""
    n = a_ptr.shape[0] - 1
    marker = np.full(num_cols, -1, np.int64)
    c_ptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        count = 0
        for q in range(a_ptr[i], a_ptr[i + 1]):
            j = a_col[q]
            for p in range(b_ptr[j], b_ptr[j + 1]):
                k = b_col[p]
                if marker[k] != i:
                    marker[k] = i
                    count += 1
        c_ptr[i + 1] = c_ptr[i] + count
    c_col = np.empty(c_ptr[n], np.int64)
    marker[:] = -1
    for i in range(n):
        fill = c_ptr[i]
        for q in range(a_ptr[i], a_ptr[i + 1]):
            j = a_col[q]
            for p in range(b_ptr[j], b_ptr[j + 1]):
                k = b_col[p]
                if marker[k] != i:
                    marker[k] = i
                    c_col[fill] = k
                    fill += 1
        c_col[c_ptr[i]:fill] = np.sort(c_col[c_ptr[i]:fill])
    return c_ptr, c_col


@njit(parallel=True, cache=True)
def product_values(a_ptr, a_col, a_data, b_ptr, b_col, b_data, c_ptr, c_col, num_cols, chunks):
    """The blocks of C = A B (blocks (r, m) times (m, c)) in its pattern c_ptr, c_col (product_pattern), B with
    num_cols block columns: the rows in `chunks` contiguous chunks in parallel, each with its own column marker. The
    multigrid's block shapes get loops of constant length (2-2.5x faster than loops over the run-time shape, measured
    on the Rubber default cube's products)."""
    n = a_ptr.shape[0] - 1
    r, m, c = a_data.shape[1], a_data.shape[2], b_data.shape[2]
    shape = 0 if (r, m, c) == (3, 3, 6) else 1 if (r, m, c) == (6, 3, 6) else 2 if (r, m, c) == (6, 6, 6) else 3
    c_data = np.zeros((c_ptr[n], r, c))
    for chunk in prange(chunks):
        marker = np.empty(num_cols, np.int64)
        for i in range(chunk * n // chunks, (chunk + 1) * n // chunks):
            for s in range(c_ptr[i], c_ptr[i + 1]):
                marker[c_col[s]] = s
            for q in range(a_ptr[i], a_ptr[i + 1]):
                j = a_col[q]
                for p in range(b_ptr[j], b_ptr[j + 1]):
                    s = marker[b_col[p]]
                    if shape == 0:
                        _add_block_product(a_data, q, b_data, p, c_data, s, 3, 3, 6)
                    elif shape == 1:
                        _add_block_product(a_data, q, b_data, p, c_data, s, 6, 3, 6)
                    elif shape == 2:
                        _add_block_product(a_data, q, b_data, p, c_data, s, 6, 6, 6)
                    else:
                        _add_block_product(a_data, q, b_data, p, c_data, s, r, m, c)
    return c_data


@njit(cache=True, inline="always")
def _add_block_product(a_data, q, b_data, p, c_data, s, r, m, c):
    """c_data[s] += a_data[q] b_data[p], blocks (r, m) and (m, c)."""
    for x in range(r):
        for y in range(c):
            acc = 0.0
            for z in range(m):
                acc += a_data[q, x, z] * b_data[p, z, y]
            c_data[s, x, y] += acc


def product(a_ptr, a_col, a_data, b_ptr, b_col, b_data, num_cols, pattern=None):
    """C = A B (block-CSR, sorted rows; blocks (r, m) times (m, c)), B with num_cols block columns; pattern: C's
    (c_ptr, c_col) if already known (it depends on A's and B's patterns alone)."""
    c_ptr, c_col = product_pattern(a_ptr, a_col, b_ptr, b_col, num_cols) if pattern is None else pattern
    return c_ptr, c_col, product_values(a_ptr, a_col, a_data, b_ptr, b_col, b_data, c_ptr, c_col, num_cols,
                                        get_num_threads())


@njit(cache=True)
def transpose(row_ptr, col, data, num_cols):
    """Aᵀ (block-CSR, sorted rows) of A with num_cols block columns."""
    n = row_ptr.shape[0] - 1
    t_ptr = np.zeros(num_cols + 1, np.int64)
    for q in range(row_ptr[n]):
        t_ptr[col[q] + 1] += 1
    for j in range(num_cols):
        t_ptr[j + 1] += t_ptr[j]
    fill = t_ptr[:-1].copy()
    t_col = np.empty(row_ptr[n], np.int64)
    t_data = np.empty((row_ptr[n], data.shape[2], data.shape[1]))
    for i in range(n):
        for q in range(row_ptr[i], row_ptr[i + 1]):
            s = fill[col[q]]
            fill[col[q]] += 1
            t_col[s] = i
            t_data[s] = data[q].T
    return t_ptr, t_col, t_data


@njit(cache=True)
def smoothed_prolongator(at_ptr, at_col, at_data, dinv, agg, t, omega):
    """P = T − ω D⁻¹ (A T) in the pattern of A T (which holds T's blocks: A's diagonal blocks), T having one block
    t[i] per row at column agg[i] (none where agg[i] < 0)."""
    data = np.empty_like(at_data)
    bs, k = at_data.shape[1], at_data.shape[2]
    for i in range(at_ptr.shape[0] - 1):
        for q in range(at_ptr[i], at_ptr[i + 1]):
            for x in range(bs):
                for y in range(k):
                    acc = 0.0
                    for z in range(bs):
                        acc += dinv[i, x, z] * at_data[q, z, y]
                    data[q, x, y] = -omega * acc
        if agg[i] >= 0:
            q = csr_find(at_ptr, at_col, i, agg[i])
            for x in range(bs):
                for y in range(k):
                    data[q, x, y] += t[i, x, y]
    return data


@njit(cache=True)
def tentative_csr(agg, t):
    """T as block-CSR: row i holds t[i] at column agg[i], or nothing where agg[i] < 0."""
    n = agg.shape[0]
    ptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        ptr[i + 1] = ptr[i] + (1 if agg[i] >= 0 else 0)
    col = np.empty(ptr[n], np.int64)
    data = np.empty((ptr[n], t.shape[1], t.shape[2]))
    for i in range(n):
        if agg[i] >= 0:
            col[ptr[i]] = agg[i]
            data[ptr[i]] = t[i]
    return ptr, col, data


@njit(cache=True)
def diagonal_indices(row_ptr, col):
    """The index of each row's diagonal block (−1 if none)."""
    n = row_ptr.shape[0] - 1
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = csr_find(row_ptr, col, i, i)
    return out
