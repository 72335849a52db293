"""ForceModel: elastic forces, energy and stiffness products of a Model at a State (wraps the kernels)."""
import numpy as np
import scipy.sparse as sp

from . import corotational as kernels
from .block_sparse import BlockPattern

_MODES = {"hybrid": kernels.HYBRID, "warped": kernels.WARPED, "exact": kernels.EXACT}


class ForceModel:
    """Corotational force model with DAPD rotations; owns the per-tet work arrays.

    Call `update_rotations(state)` at a configuration before `forces`, `energies`, `product`,
    `block_jacobi_inverse`: those use the rotations and stress-differential weights stored then."""

    def __init__(self, model, differential="hybrid", alpha=0.1, beta=3.0):
        self.model = model
        self.mode = _MODES[differential]
        self.alpha, self.beta = float(alpha), float(beta)
        m = model.num_tets
        self.gamma = np.zeros(m)
        self.shat = np.zeros((m if self.mode == kernels.EXACT else 1, 3, 3))
        self.buf = np.zeros((m, 4, 3))
        self.rot = None
        self._pattern = None
        self._blocks = None
        self._block_data = None

    def update_rotations(self, state):
        """Rotations (polar / DAPD) at state.x, updating state.rot, state.witness and state.x_eval.
        Returns the number of degenerate (DAPD) tets."""
        md = self.model
        kernels.update_rotations(state.x, state.x_eval, md.rest, md.tets, md.gm, state.rot, state.witness,
                                 self.gamma, self.shat, self.alpha, self.beta, self.mode)
        state.x_eval[...] = state.x
        self.rot = state.rot
        return int(np.count_nonzero(state.witness >= 0))

    def forces(self, x, out=None):
        """Elastic nodal forces (N,3) at x with the stored rotations."""
        md = self.model
        out = np.empty_like(x) if out is None else out
        kernels.tet_forces(x, md.tets, md.gm, md.mu_v, md.lam_v, self.rot, self.buf)
        kernels.gather(self.buf, md.node_ptr, md.node_ent, out)
        return out

    def block_pattern(self):
        """The Model's 3×3 block sparsity (computed once)."""
        if self._blocks is None:
            self._blocks = BlockPattern(self.model)
        return self._blocks

    def block_data(self):
        """Reusable (nnzb, 3, 3) storage for assembled blocks."""
        if self._block_data is None:
            self._block_data = np.empty((self.block_pattern().num_blocks, 3, 3))
        return self._block_data

    def energies(self, x):
        """Elastic energy per tet (M,) at x with the stored rotations."""
        md = self.model
        out = np.empty(md.num_tets)
        kernels.tet_energies(x, md.tets, md.gm, md.mu_v, md.lam_v, self.rot, out)
        return out

    def tet_products(self, p, tet_scale, tets=None):
        """Per-tet scaleₑ Kₑ p into the (M, 4, 3) work buffer (returned) for the tets e0 ≤ e < e1 of
        `tets` = (e0, e1) (default: all); sum per node with `gather`."""
        md = self.model
        e0, e1 = (0, md.num_tets) if tets is None else tets
        kernels.tet_stiffness_products(p, md.tets, md.gm, self.rot, md.mu_v, md.lam_v, self.gamma,
                                       self.shat, tet_scale, self.mode, self.buf, e0, e1)
        return self.buf

    def product(self, p, out, tet_scale):
        """out = Σₑ scaleₑ Kₑ p (K = −∂f/∂x, the configured stress differential)."""
        md = self.model
        kernels.gather(self.tet_products(p, tet_scale), md.node_ptr, md.node_ent, out)
        return out

    def block_jacobi_inverse(self, mass_coef, tet_scale, out=None):
        """Inverse 3×3 diagonal blocks (N,3,3) of diag(mass_coef) M + Σ scaleₑ Kₑ."""
        md = self.model
        out = np.empty((md.num_nodes, 3, 3)) if out is None else out
        kernels.block_jacobi_inverse(md.gm, self.rot, md.mu_v, md.lam_v, self.gamma, tet_scale,
                                     md.node_ptr, md.node_ent, mass_coef * md.mass, out)
        return out

    def stiffness_matrix(self, tet_scale):
        """Assembled Σ scaleₑ Kₑ as a scipy CSR matrix (3N×3N, dof 3n + k); the sparsity pattern and
        the scatter map are computed once."""
        md = self.model
        if self._pattern is None:
            dof = (3 * md.tets[:, :, None] + np.arange(3)).reshape(-1, 12)
            n = 3 * md.num_nodes
            keys = (np.repeat(dof, 12, axis=1) * n + np.tile(dof, (1, 12))).ravel()
            unique, scatter = np.unique(keys, return_inverse=True)
            self._pattern = (unique // n, unique % n, scatter, n)
        rows, cols, scatter, n = self._pattern
        ke = np.empty((md.num_tets, 12, 12))
        kernels.tet_stiffness_matrices(md.gm, self.rot, md.mu_v, md.lam_v, self.gamma, self.shat,
                                       tet_scale, self.mode, ke)
        data = np.bincount(scatter, weights=ke.ravel(), minlength=len(rows))
        indptr = np.zeros(n + 1, dtype=np.int64)
        indptr[1:] = np.cumsum(np.bincount(rows, minlength=n))
        return sp.csr_matrix((data, cols, indptr), shape=(n, n))
