"""The contact region's local model: the step's operator A exactly on the nodes the equality rows move, block-Jacobi
elsewhere, with the rows' equalities folded in and factored; its exact KKT inverse preconditions the contact solve
(core.contact.mlcp).

With K that operator, E the rows' compliance and J_A the equality rows (active normals, sticking tangents), the local
KKT system [K −J_Aᵀ; −J_A −E] is solved by eliminating the forces, f_A = −E⁻¹ (J_A x − c_A):
    (K + J_Aᵀ E⁻¹ J_A) x = r + J_Aᵀ E⁻¹ c_A,
a sparse SPD system over the region's nodes only (a few hundred), factored once per set of states. Rows embedded in one
cage tet are redundant (more rows than the nodes they move): in node space they cost nothing, where a preconditioner
from the rows' own Schur diagonal left Conjugate Residual thousands of iterations (benchmarks/RESULTS.md)."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl


class Region:
    """The local model of one contact solve over the rows `rows` (core.contact.mlcp.ContactRows): `nodes` are the free
    nodes of the equality rows' stencils. compliance (R,3): E per row and direction (rows with none, on held nodes
    only, are left out)."""

    def __init__(self, system, free, rows, pinv, compliance):
        self.system, self.free, self.rows, self.pinv = system, free, rows, pinv
        self.compliance = compliance
        self.nodes = np.zeros(0, np.int64)
        self.dof = np.zeros(0, np.int64)

    def factor(self, mask):
        """Factor the local model for the equalities mask (R,3) of 1.0 / 0.0."""
        rows = self.rows
        nodes = rows.node[mask.any(axis=1)]
        nodes = np.unique(nodes[nodes >= 0])
        nodes = nodes[self.free[nodes] > 0]
        if not np.array_equal(nodes, self.nodes) or not hasattr(self, "stiffness"):
            self.nodes = nodes
            self.dof = (3 * nodes[:, None] + np.arange(3)).ravel()
            index = np.full(len(self.free), -1, np.int64)
            index[nodes] = np.arange(len(nodes))
            self.jacobian = _jacobian(rows, index, len(nodes))
            self.stiffness = self._stiffness(nodes)
        self.equalities = np.flatnonzero((mask.ravel() > 0) & (self.compliance.ravel() > 0))
        self.j_eq = self.jacobian[self.equalities]
        self.j_eq_t = self.j_eq.T.tocsr()
        self.e_inv = 1.0 / self.compliance.ravel()[self.equalities]
        if len(self.dof):
            self._lu = spl.splu((self.stiffness + self.j_eq_t @ sp.diags(self.e_inv) @ self.j_eq).tocsc())

    def solve(self, rx, rc, zx, zc):
        """(zx, zc) = the local KKT inverse of (rx (N,3), rc (R,3)): block-Jacobi off the region (zx there is
        A_d⁻¹ rx, set by the caller), the factored model on it; zc: the equalities' forces (zero elsewhere)."""
        rce = rc.ravel()[self.equalities]
        out = np.zeros(zc.size)
        if len(self.dof):
            z = self._lu.solve(rx.ravel()[self.dof] - self.j_eq_t @ (self.e_inv * rce))
            zx.reshape(-1)[self.dof] = z
            out[self.equalities] = -self.e_inv * (self.j_eq @ z + rce)
        else:
            out[self.equalities] = -self.e_inv * rce
        zc[:] = out.reshape(zc.shape)

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
