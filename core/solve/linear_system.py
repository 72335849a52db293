"""The linear system of one Newton iteration, diag(mass_coef) M + Σ scaleₑ Kₑ, matrix-free or assembled (BSR).

The matrix is block-diagonal per body (bodies are contiguous node and tet ranges of the Model), and
products are taken one body at a time, so each body can be solved on its own."""
import numpy as np

from ..fem import block_sparse
from ..fem.corotational import EXACT
from ..jit import get_num_threads, njit, prange


@njit(parallel=True, cache=True)
def _gather_product(buf, node_ptr, node_ent, p, mass_term, free, ap, n0, n1):
    """ap = S (Σ per-tet K p + mass_term p) on nodes n0 ≤ n < n1, and returns p·ap over them (S zeroes
    constrained nodes)."""
    acc = 0.0
    for n in prange(n0, n1):
        s0, s1, s2 = 0.0, 0.0, 0.0
        for k in range(node_ptr[n], node_ptr[n + 1]):
            ent = node_ent[k]
            e, a = ent >> 2, ent & 3
            s0 += buf[e, a, 0]
            s1 += buf[e, a, 1]
            s2 += buf[e, a, 2]
        f, m = free[n], mass_term[n]
        a0, a1, a2 = f * (s0 + m * p[n, 0]), f * (s1 + m * p[n, 1]), f * (s2 + m * p[n, 2])
        ap[n, 0], ap[n, 1], ap[n, 2] = a0, a1, a2
        acc += p[n, 0] * a0 + p[n, 1] * a1 + p[n, 2] * a2
    return acc


class MatrixFreeSystem:
    """A p computed per tet from the stored rotations (any stress differential). node_ranges: each
    body's (n0, n1), the rows and columns of its diagonal block; mass_term: the diagonal (mass) part per node."""

    def __init__(self, force_model, mass_coef, tet_scale):
        self.force_model, self.tet_scale = force_model, tet_scale
        self.node_ranges = force_model.model.node_ranges
        self.mass_coef = mass_coef
        self.mass_term = mass_coef * force_model.model.mass

    def apply(self, p, out, free, body=None):
        """out = S A p on the rows of body `body` (S zeroes rows where free == 0; None: every body's, in one pass);
        returns p·out over them."""
        md = self.force_model.model
        tets, nodes = ((0, md.num_tets), (0, md.num_nodes)) if body is None else (md.tet_ranges[body],
                                                                                    md.node_ranges[body])
        buf = self.force_model.tet_products(p, self.tet_scale, tets)
        return _gather_product(buf, md.node_ptr, md.node_ent, p, self.mass_term, free, out, *nodes)

    def block_jacobi_inverse(self):
        """Inverse 3×3 diagonal blocks (N,3,3) (of the hybrid differential)."""
        return self.force_model.block_jacobi_inverse(self.mass_coef, self.tet_scale)


class BlockSparseSystem:
    """A assembled once per Newton iteration into 3×3 blocks (hybrid or warped differential). node_ranges:
    each body's (n0, n1), the rows and columns of its diagonal block; mass_term: the diagonal (mass) part per node."""

    def __init__(self, force_model, mass_coef, tet_scale):
        fm, md = force_model, force_model.model
        self.node_ranges = md.node_ranges
        pat = fm.block_pattern()
        self.pattern = pat
        self.mass_term = mass_coef * md.mass
        self.data = fm.assemble_blocks(tet_scale, self.mass_term, fm.block_data())

    def apply(self, p, out, free, body=None):
        """out = S A p on the rows of body `body` (S zeroes rows where free == 0; None: every body's, in one pass: A
        couples no two bodies); returns p·out over them."""
        nodes = (0, len(self.pattern.diag)) if body is None else self.node_ranges[body]
        return block_sparse.product(self.pattern.row_ptr, self.pattern.col, self.pattern.diag, self.data, p, free, out,
                                    *nodes, get_num_threads() == 1)

    def block_jacobi_inverse(self):
        """Inverse 3×3 diagonal blocks (N,3,3)."""
        out = np.empty((len(self.pattern.diag), 3, 3))
        block_sparse.invert_diagonal(self.data, self.pattern.diag, out)
        return out


def linear_system(force_model, mass_coef, tet_scale):
    """The faster representation for the force model's differential: assembled blocks for hybrid and
    warped (closed-form blocks; a CG iteration then costs ~1/3 of a matrix-free product), matrix-free
    for the exact differential."""
    if force_model.mode == EXACT:
        return MatrixFreeSystem(force_model, mass_coef, tet_scale)
    return BlockSparseSystem(force_model, mass_coef, tet_scale)
