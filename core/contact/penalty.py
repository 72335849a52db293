"""Contact penalty inside the implicit solve: ½ κ (r₀ + n·J δx)² per predicted contact row, so each body
(and each pile of touching bodies) answers its contacts through its own stiffness in the same solve."""
import numpy as np

from ..fem.block_sparse import invert_diagonal
from ..jit import njit

STIFFNESS = 100.0        # κ of a row, in units of the row's effective mass; the MPRGP correction removes the rest
NODE_STIFFNESS = 400.0   # cap on all rows' share of a node's diagonal block, in units of the node's mass


@njit(cache=True)
def _residuals(node, coef, normal, r0, d, out):
    """out_c = r0_c + n_c · Σ_s coef_cs d[node_cs]: each row's constraint value after displacement d."""
    for c in range(node.shape[0]):
        s = 0.0
        for k in range(node.shape[1]):
            j = node[c, k]
            if j >= 0:
                a = coef[c, k]
                s += a * (normal[c, 0] * d[j, 0] + normal[c, 1] * d[j, 1] + normal[c, 2] * d[j, 2])
        out[c] = r0[c] + s


@njit(cache=True)
def _scatter(node, coef, normal, weight, rows, free, out):
    """out[j] += free_j Σ_c weight_c coef_cj n_c over the given rows."""
    for i in range(rows.shape[0]):
        c = rows[i]
        for k in range(node.shape[1]):
            j = node[c, k]
            if j >= 0:
                a = free[j] * weight[c] * coef[c, k]
                out[j, 0] += a * normal[c, 0]
                out[j, 1] += a * normal[c, 1]
                out[j, 2] += a * normal[c, 2]


@njit(cache=True)
def _product(node, coef, normal, kappa, rows, p, free, out):
    """out += S Σ_c κ_c Jᵀn (n·J p) over the given rows (S zeroes constrained nodes); returns p·(what was added)."""
    acc = 0.0
    for i in range(rows.shape[0]):
        c = rows[i]
        s = 0.0
        t = 0.0
        for k in range(node.shape[1]):
            j = node[c, k]
            if j >= 0:
                u = coef[c, k] * (normal[c, 0] * p[j, 0] + normal[c, 1] * p[j, 1] + normal[c, 2] * p[j, 2])
                s += u
                t += free[j] * u
        s *= kappa[c]
        acc += s * t
        for k in range(node.shape[1]):
            j = node[c, k]
            if j >= 0:
                a = free[j] * s * coef[c, k]
                out[j, 0] += a * normal[c, 0]
                out[j, 1] += a * normal[c, 1]
                out[j, 2] += a * normal[c, 2]
    return acc


@njit(cache=True)
def _diagonal(slot, coef, normal, kappa, out):
    """out[slot_cj] += κ_c coef_cj² n_c n_cᵀ: the rows' share of the 3×3 diagonal blocks of the nodes they
    touch (slot: each stencil entry's index among those nodes, −1 unused)."""
    for c in range(slot.shape[0]):
        for k in range(slot.shape[1]):
            j = slot[c, k]
            if j >= 0:
                a = kappa[c] * coef[c, k] * coef[c, k]
                for r in range(3):
                    for q in range(3):
                        out[j, r, q] += a * normal[c, r] * normal[c, q]


class ContactPenalty:
    """Predicted contact rows r_c(δx) = r0_c + n_c·J_c δx ≥ 0 (J_c: the row's stencil of node weights) as the
    quadratic penalty ½ κ_c r_c² − const_c r_c in the Newton system (A + Σ κ Jᵀn nᵀJ) δx = b + Σ (const − κ r0) Jᵀn.

    node, coef (nc, S): stencil nodes (−1 unused) and weights; normal (nc,3); r0 (nc,) the rows' values at
    the start of the step (m); kappa (nc,) stiffness (kg, the units of the system matrix); point (nc,) the
    render point each row belongs to; collider, other (nc,) the collider / other body it touches (−1: none);
    tangent (nc,) bool: a friction row (its "normal" is the direction of a constant force); const (nc,) the
    constant force of a row times dt² (kg·m; friction rows have κ = 0 and only this).
    r0 is measured from the step's start positions x_n: at a Newton
    iterate x_k the rows' values are r0 + n·J (x_k − x_n)."""

    def __init__(self, node, coef, normal, r0, kappa, point, collider, other, tangent, const, num_nodes):
        self.node, self.coef, self.normal = node, coef, normal
        self.r0, self.kappa, self.point = r0, kappa, point
        self.collider, self.other, self.tangent, self.const = collider, other, tangent, const
        self.num_nodes = num_nodes

    def __len__(self):
        return len(self.r0)

    def residuals(self, displacement):
        """Each row's value r0 + n·J d for node displacements d = x − x_n (m; negative: penetrating)."""
        out = np.empty(len(self))
        _residuals(self.node, self.coef, self.normal, self.r0, displacement, out)
        return out

    def add_rhs(self, b, displacement):
        """b += Σ (const − κ r) Jᵀn with r the rows' values at displacement d = x_k − x_n."""
        weight = self.const - self.kappa * self.residuals(displacement)
        _scatter(self.node, self.coef, self.normal, weight, np.arange(len(self)), np.ones(len(b)), b)

    def product(self, p, out, free, rows):
        """out += S Σ κ Jᵀn (n·J p) over `rows`; returns p·(the addition)."""
        return _product(self.node, self.coef, self.normal, self.kappa, rows, p, free, out)

    def precondition(self, pinv):
        """Fold the rows' diagonal blocks into the block-Jacobi inverse pinv (N,3,3), in place."""
        touched = np.unique(self.node[self.node >= 0])
        if not len(touched):
            return
        slot = np.where(self.node >= 0, np.searchsorted(touched, np.maximum(self.node, 0)), -1)
        blocks = np.empty((len(touched), 3, 3))
        every = np.arange(len(touched))
        invert_diagonal(np.ascontiguousarray(pinv[touched]), every, blocks)
        _diagonal(slot, self.coef, self.normal, self.kappa, blocks)
        inverse = np.empty_like(blocks)
        invert_diagonal(blocks, every, inverse)
        pinv[touched] = inverse

    def impulses(self, displacement, dt):
        """Impulse of each row along its direction (N·s) applied over the step ending at d: ≥ 0 for a normal row
        (one that ends separated reports none), signed for a friction row (its spring pulls either way)."""
        r = self.residuals(displacement)
        return (self.const - self.kappa * np.where(self.tangent, r, np.minimum(r, 0.0))) / dt
