"""Contact penalty inside the implicit solve: ½ κ (r₀ + n·J δx)² per predicted contact row, so each body
(and each pile of touching bodies) answers its contacts through its own stiffness in the same solve."""
import numpy as np

from ..fem import mat3
from ..jit import njit

STIFFNESS = 100.0        # κ of a row, in units of the row's effective mass; the MPRGP correction removes the rest
NODE_STIFFNESS = 400.0   # cap on all rows' share of a node's diagonal block, in units of the node's mass


@njit(cache=True)
def predicted_rows(point, gap, normal, node, coef, move, v, inv_mass, normal_force, group, body_mass, dt, slop,
                   margin, count):
    """Which candidate rows of a motion x0 + dt v enter the implicit solve, with their κ, r0 and mass share.

    A row is kept if its predicted value r0 + dt n·J v is below `margin` (`margin + slop` for a point pushed last
    step, normal_force > 0). Its κ is STIFFNESS over its effective mass Σ coef² / m, scaled down where rows share
    nodes so no node's diagonal block grows by more than NODE_STIFFNESS times its mass. Its r0, the value at the
    step's start, is floored at −(slop + sag), the sag f dt²/κ at which the point's rows carried its last normal
    force. Its mass share: its body's mass (body_mass per group) over its body's points in contact.
    `count` (≥ number of points, zeros) is scratch, left zeroed. Returns keep, kappa, r0, share."""
    nc, S = node.shape
    keep = np.zeros(nc, np.bool_)
    kappa = np.zeros(nc)
    r0 = np.zeros(nc)
    share = np.zeros(nc)
    load = np.zeros(inv_mass.shape[0])
    points_of = np.zeros(body_mass.shape[0])
    for c in range(nc):
        k = 0.0
        u = 0.0
        for s in range(S):
            j = node[c, s]
            if j >= 0:
                k += coef[c, s] * coef[c, s] * inv_mass[j]
                u += coef[c, s] * (v[j, 0] * normal[c, 0] + v[j, 1] * normal[c, 1] + v[j, 2] * normal[c, 2])
        shift = normal[c, 0] * move[c, 0] + normal[c, 1] * move[c, 1] + normal[c, 2] * move[c, 2]
        reach = margin + slop if normal_force[point[c]] > 0.0 else margin
        if k > 0.0 and max(gap[c], -slop) - shift + dt * u < reach:
            keep[c] = True
            kappa[c] = STIFFNESS / k
            for s in range(S):
                j = node[c, s]
                if j >= 0:
                    load[j] += kappa[c] * coef[c, s] * coef[c, s]
            if count[point[c]] == 0:
                points_of[group[point[c]]] += 1.0
            count[point[c]] += 1
    for c in range(nc):
        if not keep[c]:
            continue
        scale = 1.0
        for s in range(S):
            j = node[c, s]
            if j >= 0 and load[j] > 0.0 and inv_mass[j] > 0.0:
                scale = min(scale, NODE_STIFFNESS / (inv_mass[j] * load[j]))
        kappa[c] *= scale
        p = point[c]
        sag = normal_force[p] / count[p] * dt * dt / kappa[c]
        r0[c] = max(gap[c], -(slop + sag)) - (normal[c, 0] * move[c, 0] + normal[c, 1] * move[c, 1]
                                              + normal[c, 2] * move[c, 2])
        share[c] = body_mass[group[p]] / points_of[group[p]]
    for c in range(nc):
        count[point[c]] = 0
    return keep, kappa, r0, share


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
def _blocks(order, point, node, coef, normal, kappa):
    """Group the rows with κ > 0 of each point by stencil (node and coef equal): rows visited in `order` (sorted
    by point). Returns the blocks' stencil rows (a representative row each) and K_b = Σ κ n nᵀ over their rows."""
    nc, S = node.shape
    rep = np.empty(nc, np.int64)
    k = np.zeros((nc, 3, 3))
    nb = 0
    first = 0   # the first block of the current point
    for i in range(nc):
        c = order[i]
        if kappa[c] <= 0.0:
            continue
        if nb > first and point[rep[first]] != point[c]:
            first = nb
        b = first
        while b < nb:
            same = True
            r = rep[b]
            for s in range(S):
                if node[r, s] != node[c, s] or coef[r, s] != coef[c, s]:
                    same = False
                    break
            if same:
                break
            b += 1
        if b == nb:
            rep[nb] = c
            nb += 1
        for q in range(3):
            for t in range(3):
                k[b, q, t] += kappa[c] * normal[c, q] * normal[c, t]
    return rep[:nb], k[:nb]


@njit(cache=True)
def _product(node, coef, k, blocks, p, free, out):
    """out += S Σ_b J_bᵀ K_b J_b p over the given blocks (S zeroes constrained nodes); returns p·(the addition)."""
    acc = 0.0
    for i in range(blocks.shape[0]):
        b = blocks[i]
        u0 = u1 = u2 = 0.0     # J p
        f0 = f1 = f2 = 0.0     # J S p
        for s in range(node.shape[1]):
            j = node[b, s]
            if j >= 0:
                a = coef[b, s]
                u0 += a * p[j, 0]
                u1 += a * p[j, 1]
                u2 += a * p[j, 2]
                a *= free[j]
                f0 += a * p[j, 0]
                f1 += a * p[j, 1]
                f2 += a * p[j, 2]
        w0 = k[b, 0, 0] * u0 + k[b, 0, 1] * u1 + k[b, 0, 2] * u2
        w1 = k[b, 1, 0] * u0 + k[b, 1, 1] * u1 + k[b, 1, 2] * u2
        w2 = k[b, 2, 0] * u0 + k[b, 2, 1] * u1 + k[b, 2, 2] * u2
        acc += f0 * w0 + f1 * w1 + f2 * w2
        for s in range(node.shape[1]):
            j = node[b, s]
            if j >= 0:
                a = free[j] * coef[b, s]
                out[j, 0] += a * w0
                out[j, 1] += a * w1
                out[j, 2] += a * w2
    return acc


@njit(cache=True)
def _fold_diagonal(node, coef, k, pinv):
    """Add Σ_b coef_bj² K_b to the 3×3 diagonal block of each node j the blocks touch, given (and returning in
    pinv, in place) the inverses of those blocks (zero where singular)."""
    slot = np.full(pinv.shape[0], -1, np.int64)
    touched = np.empty(node.size, np.int64)
    blocks = np.empty((node.size, 3, 3))
    m = 0
    for b in range(node.shape[0]):
        for s in range(node.shape[1]):
            j = node[b, s]
            if j < 0:
                continue
            if slot[j] < 0:
                slot[j] = m
                touched[m] = j
                mat3.store(blocks, m, mat3.inverse(mat3.load(pinv, j)))
                m += 1
            a = coef[b, s] * coef[b, s]
            for q in range(3):
                for t in range(3):
                    blocks[slot[j], q, t] += a * k[b, q, t]
    for i in range(m):
        mat3.store(pinv, touched[i], mat3.inverse(mat3.load(blocks, i)))


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

    def __init__(self, node, coef, normal, r0, kappa, point, collider, other, tangent, const, num_nodes,
                 release_gap=0.0):
        self.node, self.coef, self.normal = node, coef, normal
        self.r0, self.kappa, self.point = r0, kappa, point
        self.collider, self.other, self.tangent, self.const = collider, other, tangent, const
        self.num_nodes = num_nodes
        self.release_gap = release_gap   # m: a normal row ending separated by more than this pulled (update_active_set)
        self._build_blocks()

    def _build_blocks(self):
        # the matrix part, Σ κ Jᵀn nᵀJ, summed per stencil: a point's normal and friction rows (and its rows
        # against several triangles of a collider) share one, so each block costs one product, not one per row
        rep, self.block_k = _blocks(np.argsort(self.point, kind="stable"), self.point, self.node, self.coef,
                                    self.normal, self.kappa)
        self.block_node = np.ascontiguousarray(self.node[rep])
        self.block_coef = np.ascontiguousarray(self.coef[rep])

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

    def product(self, p, out, free, blocks):
        """out += S Σ κ Jᵀn (n·J p) over the rows of the stencil blocks `blocks` (indices into block_node);
        returns p·(the addition)."""
        return _product(self.block_node, self.block_coef, self.block_k, blocks, p, free, out)

    def precondition(self, pinv):
        """Fold the rows' diagonal blocks into the block-Jacobi inverse pinv (N,3,3), in place."""
        _fold_diagonal(self.block_node, self.block_coef, self.block_k, pinv)

    def update_active_set(self, displacement):
        """One-sided contact at the solution d = x − x_n of a solve with these rows: drop (κ = 0) the normal rows
        that end separated by more than release_gap (in the solve they pulled their point onto the surface) and
        the friction rows of the points left with no normal row. Returns whether any row changed (solve again)."""
        r = self.residuals(displacement)
        normal = ~self.tangent
        pulling = normal & (self.kappa > 0.0) & (r > self.release_gap)
        self.kappa[pulling] = 0.0
        pressed = np.unique(self.point[normal & (self.kappa > 0.0)])
        loose = self.tangent & ~np.isin(self.point, pressed) & ((self.kappa > 0.0) | (self.const != 0.0))
        self.kappa[loose] = 0.0
        self.const[loose] = 0.0
        if not (pulling.any() or loose.any()):
            return False
        self._build_blocks()
        return True

    def impulses(self, displacement, dt):
        """Impulse of each row along its direction (N·s) applied over the step ending at d: ≥ 0 for a normal row
        (one that ends separated reports none), signed for a friction row (its spring pulls either way)."""
        r = self.residuals(displacement)
        return (self.const - self.kappa * np.where(self.tangent, r, np.minimum(r, 0.0))) / dt
