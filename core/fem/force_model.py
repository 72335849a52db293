"""ForceModel: elastic forces, energy and stiffness products of a Model at a State (wraps the kernels)."""
import numpy as np
import scipy.sparse as sp

from . import block_sparse, hyperelastic
from . import corotational as kernels
from .block_sparse import BlockPattern
from .materials import COROTATED

_MODES = {"hybrid": kernels.HYBRID, "warped": kernels.WARPED, "exact": kernels.EXACT}


class ForceModel:
    """Force model of every tet: corotational with DAPD rotations (material code 0), hyperelastic otherwise
    (core.fem.hyperelastic); owns the per-tet work arrays.

    Call `update_rotations(state)` at a configuration before `forces`, `energies`, `product`,
    `block_jacobi_inverse`, `assemble_blocks`: those use the rotations and stress-differential weights (and the
    hyperelastic tets' stiffness matrices) stored then. The corotational kernels run only if some tet is
    corotated (then over all tets, the hyperelastic ones with zero moduli), the hyperelastic ones only if some
    tet is hyperelastic."""

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
        hyper = model.material_code != COROTATED
        self.hyperelastic = bool(hyper.any())
        self.corotated = not (self.hyperelastic and hyper.all())
        self.mu_v, self.lam_v = model.mu_v, model.lam_v
        if self.hyperelastic:
            # read-only like the Model's own, which a corotated-only world passes: kernels the warm-up's mixed world
            # compiled for writable moduli were compiled again for those (1.7 s at that world's first step)
            self.mu_v, self.lam_v = np.where(hyper, 0.0, model.mu_v), np.where(hyper, 0.0, model.lam_v)
            self.mu_v.setflags(write=False)
            self.lam_v.setflags(write=False)
            self._hyper = hyper
            self.ke = np.zeros((m, 12, 12))       # each hyperelastic tet's stiffness at the last update
            self._clamped = np.zeros(m, dtype=np.bool_)
            self._scratch = np.empty(m)
            self._update_forces = np.zeros((m, 4, 3))    # hyperelastic tets' forces at the last update, at _update_x
            self._update_x = None
            self._jacobi_data = None
            self._modulus = hyperelastic.continuation_modulus(model.mu_v, model.lam_v)   # k below the floor

    def update_rotations(self, state):
        """Rotations (polar / DAPD) at state.x, updating state.rot, state.witness and state.x_eval.
        Returns the number of degenerate (DAPD) tets."""
        md = self.model
        degenerate = 0
        if self.corotated:
            kernels.update_rotations(state.x, state.x_eval, md.rest, md.tets, md.gm, state.rot, state.witness,
                                     self.gamma, self.shat, self.alpha, self.beta, self.mode)
            witnessed = state.witness >= 0
            degenerate = int(np.count_nonzero(witnessed & ~self._hyper if self.hyperelastic else witnessed))
        state.x_eval[...] = state.x
        self.rot = state.rot
        if self.hyperelastic:
            # the exact differential (static solve) keeps the Hessian's negative modes, like the corotational one
            hyperelastic.update_stiffness(state.x, md.tets, md.gm, md.material_code, md.energy_params, self._modulus,
                                          self.ke, self._update_forces, self._scratch, self._clamped,
                                          self.mode != kernels.EXACT)
            self._update_x = state.x.copy()
            degenerate += int(np.count_nonzero(self._clamped & self._hyper))
        return degenerate

    def forces(self, x, out=None):
        """Elastic nodal forces (N,3) at x with the stored rotations."""
        md = self.model
        out = np.empty_like(x) if out is None else out
        if self.corotated:
            kernels.tet_forces(x, md.tets, md.gm, self.mu_v, self.lam_v, self.rot, self.buf)
        buf = self.buf
        if self.hyperelastic and self._update_x is not None and np.array_equal(x, self._update_x):
            if self.corotated:    # the update computed the hyperelastic tets' forces at this x already
                np.copyto(buf, self._update_forces, where=self._hyper[:, None, None])
            else:
                buf = self._update_forces
        elif self.hyperelastic:
            hyperelastic.evaluate(x, md.tets, md.gm, md.material_code, md.energy_params, self._modulus, buf,
                                  self._scratch, True)
        kernels.gather(buf, md.node_ptr, md.node_ent, out)
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
        if self.corotated:
            kernels.tet_energies(x, md.tets, md.gm, self.mu_v, self.lam_v, self.rot, out)
        if self.hyperelastic:
            hyperelastic.evaluate(x, md.tets, md.gm, md.material_code, md.energy_params, self._modulus, self.buf, out,
                                  False)
        return out

    def tet_products(self, p, tet_scale, tets=None):
        """Per-tet scaleₑ Kₑ p into the (M, 4, 3) work buffer (returned) for the tets e0 ≤ e < e1 of
        `tets` = (e0, e1) (default: all); sum per node with `gather`."""
        md = self.model
        e0, e1 = (0, md.num_tets) if tets is None else tets
        if self.corotated:
            kernels.tet_stiffness_products(p, md.tets, md.gm, self.rot, self.mu_v, self.lam_v, self.gamma,
                                           self.shat, tet_scale, self.mode, self.buf, e0, e1)
        if self.hyperelastic:
            hyperelastic.tet_products(p, md.tets, md.material_code, self.ke, tet_scale, self.buf, e0, e1)
        return self.buf

    def product(self, p, out, tet_scale):
        """out = Σₑ scaleₑ Kₑ p (K = −∂f/∂x, the configured stress differential)."""
        md = self.model
        kernels.gather(self.tet_products(p, tet_scale), md.node_ptr, md.node_ent, out)
        return out

    def block_jacobi_inverse(self, mass_coef, tet_scale, out=None):
        """Inverse 3×3 diagonal blocks (N,3,3) of diag(mass_coef) M + Σ scaleₑ Kₑ (the corotated tets' hybrid K)."""
        md = self.model
        out = np.empty((md.num_nodes, 3, 3)) if out is None else out
        if not self.hyperelastic:
            kernels.block_jacobi_inverse(md.gm, self.rot, md.mu_v, md.lam_v, self.gamma, tet_scale,
                                         md.node_ptr, md.node_ent, mass_coef * md.mass, out)
            return out
        if self._jacobi_data is None:
            self._jacobi_data = np.empty_like(self.block_data())
        self.assemble_blocks(tet_scale, mass_coef * md.mass, self._jacobi_data)
        block_sparse.invert_diagonal(self._jacobi_data, self.block_pattern().diag, out)
        return out

    def assemble_blocks(self, tet_scale, mass_term, data):
        """data (nnzb,3,3) = diag(mass_term) ⊗ I + Σ scaleₑ Kₑ in the block pattern (the corotated tets' hybrid or
        warped K: the exact one has no closed-form blocks; uses the work buffer)."""
        md = self.model
        pat = self.block_pattern()
        if self.corotated:
            block_sparse.assemble(pat, md.gm, self.rot, self.mu_v, self.lam_v, self.gamma,
                                  tet_scale, mass_term, self.buf, data)
        if self.hyperelastic:
            hyperelastic.add_blocks(md.node_ptr, md.node_ent, pat.blocks, pat.row_ptr, pat.diag, md.material_code,
                                    self.ke, tet_scale, mass_term, data, not self.corotated)
        return data

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
        if self.corotated:
            kernels.tet_stiffness_matrices(md.gm, self.rot, self.mu_v, self.lam_v, self.gamma, self.shat,
                                           tet_scale, self.mode, ke)
        if self.hyperelastic:
            h = self._hyper
            ke[h] = tet_scale[h, None, None] * self.ke[h]
        data = np.bincount(scatter, weights=ke.ravel(), minlength=len(rows))
        indptr = np.zeros(n + 1, dtype=np.int64)
        indptr[1:] = np.cumsum(np.bincount(rows, minlength=n))
        return sp.csr_matrix((data, cols, indptr), shape=(n, n))
