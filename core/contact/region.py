"""The contact region's local model: the Newton system's H = A + Jᵀ W J exactly on the nodes the pressed and rubbing
rows move, A's diagonal blocks elsewhere, factored; its inverse preconditions the contact solve (core.contact.mlcp).

The rows' curvatures W are stiff (1/compliance), and rows embedded in one cage tet are redundant (more rows than the
nodes they move): in node space, JᵀWJ over the region's few hundred nodes, they cost one sparse factorisation and
leave the Conjugate Gradients only the coupling between the region and the rest of the body."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl


class Region:
    """The local model of one contact solve over the rows `rows` (core.contact.mlcp.ContactRows; pinv: A's inverse
    diagonal blocks); `nodes`: the free nodes of the stencils of the rows with curvature."""

    def __init__(self, system, free, rows, pinv):
        self.system, self.free, self.rows, self.pinv = system, free, rows, pinv
        self.nodes = np.zeros(0, np.int64)
        self.dof = np.zeros(0, np.int64)
        self._lu = None

    def factor(self, weight):
        """Factor the local model for the rows' curvatures weight (R,3,3, frame coordinates)."""
        rows = self.rows
        curved = np.abs(weight).reshape(len(rows), 9).max(axis=1) > 0.0
        nodes = rows.node[curved]
        nodes = np.unique(nodes[nodes >= 0])
        nodes = nodes[self.free[nodes] > 0]
        if not np.array_equal(nodes, self.nodes) or not hasattr(self, "stiffness"):
            self.nodes = nodes
            self.dof = (3 * nodes[:, None] + np.arange(3)).ravel()
            index = np.full(len(self.free), -1, np.int64)
            index[nodes] = np.arange(len(nodes))
            self.jacobian = _jacobian(rows, index, len(nodes))
            self.stiffness = self._stiffness(nodes)
        self._lu = None
        if len(self.dof):
            rows_in = np.flatnonzero(curved)
            j = self.jacobian[(3 * rows_in[:, None] + np.arange(3)).ravel()]
            self._lu = spl.splu((self.stiffness + j.T @ _block_diagonal(weight[rows_in]) @ j).tocsc())

    def solve(self, r, z):
        """z (N,3) on the region's nodes = the factored model's inverse applied to r there (z elsewhere: the
        caller's A_d⁻¹ r)."""
        if self._lu is not None:
            z.reshape(-1)[self.dof] = self._lu.solve(r.reshape(-1)[self.dof])

    def _stiffness(self, nodes):
        """A on the region's nodes (CSR): its assembled blocks among them, or (a matrix-free system) its diagonal
        blocks."""
        n = len(nodes)
        if not hasattr(self.system, "pattern"):
            return sp.block_diag(list(np.linalg.inv(self.pinv[nodes])), format="csr") if n else sp.csr_matrix((0, 0))
        pat = self.system.pattern
        index = np.full(len(self.free), -1, np.int64)
        index[nodes] = np.arange(n)
        count = pat.row_ptr[nodes + 1] - pat.row_ptr[nodes]
        block = np.repeat(pat.row_ptr[nodes] - np.cumsum(count) + count, count) + np.arange(count.sum())
        row = np.repeat(np.arange(n), count)
        col = index[pat.col[block]]
        keep = col >= 0
        block, row, col = block[keep], row[keep], col[keep]
        i = (3 * row[:, None, None] + np.arange(3)[None, :, None] + np.zeros((1, 1, 3), np.int64)).ravel()
        j = (3 * col[:, None, None] + np.zeros((1, 3, 1), np.int64) + np.arange(3)[None, None, :]).ravel()
        return sp.csr_matrix((self.system.data[block].ravel(), (i, j)), shape=(3 * n, 3 * n))


def _block_diagonal(weight):
    """The (3R × 3R) block diagonal matrix of the rows' 3×3 blocks."""
    r = len(weight)
    return sp.bsr_matrix((weight, np.arange(r), np.arange(r + 1)), shape=(3 * r, 3 * r)).tocsr()


def _jacobian(rows, index, num_nodes):
    """J (3R × 3 num_nodes, CSR): each row's frame components on the region's nodes (index: node → region column)."""
    r, width = rows.node.shape
    row = np.repeat(np.arange(r), width)
    node = rows.node.ravel()
    local = np.where(node >= 0, index[np.maximum(node, 0)], -1)
    ok = local >= 0
    row, local, coef = row[ok], local[ok], rows.coef.ravel()[ok]
    i = (3 * row[:, None, None] + np.arange(3)[None, :, None] + np.zeros((1, 1, 3), np.int64)).ravel()
    j = (3 * local[:, None, None] + np.zeros((1, 3, 1), np.int64) + np.arange(3)[None, None, :]).ravel()
    v = (coef[:, None, None] * rows.frame[row]).ravel()
    return sp.csr_matrix((v, (i, j)), shape=(3 * r, 3 * num_nodes))
