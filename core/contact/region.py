"""The contact region's local model: the Newton system's H = A + Jᵀ W J exactly on the nodes the pressed and rubbing
rows move, A's diagonal blocks elsewhere, factored; its inverse preconditions the contact solve (core.contact.mlcp).

The rows' curvatures W are stiff (1/compliance), and rows embedded in one cage tet are redundant (more rows than the
nodes they move): in node space, JᵀWJ over the region's few hundred nodes, they cost one sparse factorisation and
leave the Conjugate Gradients only the coupling between the region and the rest of the body."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl

from .row_kernels import curvature_blocks, stencil_pairs


class Region:
    """The local model of one contact solve over the rows `rows` (core.contact.mlcp.ContactRows; pinv: A's inverse
    diagonal blocks); `nodes`: the free nodes of the stencils of the rows with curvature, or a superset (those of an
    earlier factorisation's rows, whose pattern is kept while it holds the current ones). keep: whether a
    factorisation may be kept for later curvatures (see factor): for a block-diagonal preconditioner (the region's
    solve, A_d⁻¹ elsewhere), not between two solves around a V-cycle (symmetric multiplicative Schwarz is positive
    definite only while the region's solve does not overshoot: a 5 cm stiff cube's contact solve converged in 39 or
    45 of 48 steps with kept factorisations, in all 48 factored anew)."""

    def __init__(self, system, free, rows, pinv, keep=True):
        self.system, self.free, self.rows, self.pinv, self.keep = system, free, rows, pinv, keep
        self.nodes = np.zeros(0, np.int64)
        self.dof = np.zeros(0, np.int64)
        self._pattern = None
        self._curved = None   # the curved rows of the factorisation kept
        self._lu = None

    def factor(self, weight, curved):
        """Factor the local model for the rows' curvatures weight (R,3,3, frame coordinates), `curved` the rows where
        it is not zero (row_kernels.curved_rows, ascending). While the curved rows are among those of the last
        factorisation, that one is kept: their curvatures may have changed since (a sliding row's with its slip, each
        row's with a lag round's friction bound or stiffened give) and rows may have left, but the kept factors are
        still those of a symmetric positive definite local model, so the solve stays a symmetric positive definite
        preconditioner (a few more Conjugate Gradient iterations, against a factorisation saved: a solve's first
        Newton step, from the predicted motion, presses the most rows). Without `keep`, factored every time.
        The pattern is kept while its nodes hold those of the curved rows: the model is then H on those nodes, a
        principal submatrix of H like the smaller one, so still symmetric positive definite and exact where it
        reaches."""
        if self.keep and self._curved is not None and (np.array_equal(curved, self._curved) or (
                len(curved) < len(self._curved) and np.isin(curved, self._curved, assume_unique=True).all())):
            return
        self._curved = curved
        rows = self.rows
        nodes = rows.node[curved]
        nodes = np.unique(nodes[nodes >= 0])
        nodes = nodes[self.free[nodes] > 0]
        if self._pattern is None or not len(nodes) or not _within(nodes, self.nodes):
            self.nodes = nodes
            self.dof = (3 * nodes[:, None] + np.arange(3)).ravel()
            self._pattern = _Pattern(self.system, self.pinv, rows, self.free, nodes)
        self._lu = None
        if len(self.dof):
            # H is symmetric positive definite: a symmetric ordering and no pivoting (1.3 against 3.2 ms a landing
            # region's factorisation, half the fill)
            self._lu = spl.splu(self._pattern.matrix(rows, weight, curved), permc_spec="MMD_AT_PLUS_A",
                                diag_pivot_thresh=0.0, options={"SymmetricMode": True})

    def solve(self, r, z):
        """z (N,3) on the region's nodes = the factored model's inverse applied to r there (z elsewhere: the
        caller's A_d⁻¹ r)."""
        if self._lu is not None:
            z.reshape(-1)[self.dof] = self._lu.solve(r.reshape(-1)[self.dof])


def _within(nodes, among):
    """Whether every one of `nodes` is in `among` (both sorted, unique)."""
    at = np.searchsorted(among, nodes)
    return bool(np.all(at < len(among))) and np.array_equal(among[np.minimum(at, len(among) - 1)], nodes)


class _Pattern:
    """H's block pattern on a region's nodes: A's blocks among them and the stencil pairs (those A lacks:
    row_kernels.stencil_pairs) of every row whose free nodes are all among them, in column-major (CSC) order, with
    A's values there and the scalar CSC structure; matrix() fills in the rows' curvatures."""

    def __init__(self, system, pinv, rows, free, nodes):
        n = len(nodes)
        self.n = n
        self.index = np.full(len(free), -1, np.int64)
        self.index[nodes] = np.arange(n)
        if hasattr(system, "pattern"):
            pat = system.pattern
            count = pat.row_ptr[nodes + 1] - pat.row_ptr[nodes]
            a_block = np.repeat(pat.row_ptr[nodes] - np.cumsum(count) + count, count) + np.arange(count.sum())
            a_row = np.repeat(np.arange(n), count)
            a_col = self.index[pat.col[a_block]]
            keep = a_col >= 0
            a_block, a_row, a_col = a_block[keep], a_row[keep], a_col[keep]
            a_values = system.data[a_block]
            row_ptr, col = pat.row_ptr, pat.col
        else:   # a matrix-free system: A's diagonal blocks
            a_row = a_col = np.arange(n)
            a_values = np.linalg.inv(pinv[nodes])
            row_ptr = col = np.zeros(0, np.int64)
        # key = column * n + row: sorted keys are the blocks in CSC order
        # the pairs of the rows that can be curved while this pattern serves (Region.factor): those whose free
        # stencil nodes are all among its nodes (a row reaching past them would have grown the region)
        node = rows.node
        past = ((node >= 0) & (self.index[node] < 0) & (free[node] > 0)).any(axis=1)
        pairs = stencil_pairs(node[~past], self.index, n, row_ptr, col)
        self.keys = np.unique(np.concatenate([a_col * n + a_row, pairs]))
        self.a_values = np.zeros((len(self.keys), 3, 3))
        np.add.at(self.a_values, np.searchsorted(self.keys, a_col * n + a_row), a_values)
        brow, bcol = self.keys % n, self.keys // n
        bptr = np.searchsorted(bcol, np.arange(n + 1))
        cnt = np.diff(bptr)
        k = np.arange(len(self.keys))
        a, b = np.meshgrid(np.arange(3), np.arange(3), indexing="ij")
        pos = (9 * bptr[bcol] + 3 * (k - bptr[bcol]))[:, None, None] + 3 * cnt[bcol][:, None, None] * b + a
        self.order = np.empty(9 * len(k), np.int64)
        self.order[pos.ravel()] = np.arange(9 * len(k))   # scalar CSC position -> (block, a, b), flattened
        self.indices = np.empty(9 * len(k), np.int32)
        self.indices[pos.ravel()] = (3 * brow[:, None, None] + a + 0 * b).ravel()
        self.indptr = np.concatenate([9 * bptr[:-1, None] + 3 * cnt[:, None] * np.arange(3), [[9 * len(k)] * 3]])
        self.indptr = self.indptr.ravel()[:3 * n + 1].astype(np.int32)

    def matrix(self, rows, weight, curved):
        """H = A + Jᵀ W J on the region (CSC), W the curvatures of the rows `curved`."""
        blocks = self.a_values.copy()
        curvature_blocks(rows.node, rows.coef, rows.frame, weight, curved, self.index, self.keys, self.n, blocks)
        return sp.csc_matrix((blocks.reshape(-1)[self.order], self.indices, self.indptr), shape=(3 * self.n,) * 2)
