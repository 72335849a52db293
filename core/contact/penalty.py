"""Contact rows inside the implicit solve, by augmented Lagrangian: per predicted contact, a normal row and two
friction rows whose multipliers (the contact force) are updated between solves so the normal force is ≥ 0 and the
friction force stays inside its Coulomb cone; each body (and each pile of touching bodies) answers its contacts
through its own stiffness in the same solve."""
import math

import numpy as np

from ..jit import njit
from .distinct_points import compact_points, release_points
from .row_kernels import fold_diagonal

STIFFNESS = 100.0        # κ of a row, in units of the row's effective mass; the MPRGP correction removes the rest
NODE_STIFFNESS = 400.0   # cap on all rows' share of a node's diagonal block, in units of the node's mass


@njit(cache=True)
def predicted_rows(point, gap, normal, node, coef, move, v, v_last, inv_mass, normal_force, dt, slop, margin):
    """Which candidate rows of a motion x0 + dt v enter the implicit solve, with their κ and r0, and which of them
    start pressing.

    A row is kept if its predicted value r0 + dt n·J v is below `margin` (`margin + slop` for a point pushed last
    step, normal_force > 0). Its κ is STIFFNESS over its effective mass Σ coef² / m, scaled down where rows share
    nodes so no node's diagonal block grows by more than NODE_STIFFNESS times its mass. Its r0, the value at the
    step's start, is floored at −slop. A row starts pressing if its point pushed last step or its last velocities
    v_last carry it inside the surface (a point resting on the rim of a contact patch, clear of the surface and not
    approaching it, starts released: pressing, its row would hold it there as a two-sided spring until the
    multiplier update releases it. With `margin` in place of the surface, the resting bunny's ~31 rim points,
    0.04-0.1 mm clear and pushing no more, started pressing every step and the first update released them: its
    contact solves never settled, three a step against two now). Returns keep, kappa, r0, pressing."""
    nc, S = node.shape
    keep = np.zeros(nc, np.bool_)
    pressing = np.zeros(nc, np.bool_)
    kappa = np.zeros(nc)
    r0 = np.zeros(nc)
    load = np.zeros(inv_mass.shape[0])
    for c in range(nc):
        k = 0.0
        u = 0.0
        u_last = 0.0
        for s in range(S):
            j = node[c, s]
            if j >= 0:
                k += coef[c, s] * coef[c, s] * inv_mass[j]
                u += coef[c, s] * (v[j, 0] * normal[c, 0] + v[j, 1] * normal[c, 1] + v[j, 2] * normal[c, 2])
                u_last += coef[c, s] * (v_last[j, 0] * normal[c, 0] + v_last[j, 1] * normal[c, 1]
                                        + v_last[j, 2] * normal[c, 2])
        shift = normal[c, 0] * move[c, 0] + normal[c, 1] * move[c, 1] + normal[c, 2] * move[c, 2]
        reach = margin + slop if normal_force[point[c]] > 0.0 else margin
        if k > 0.0 and max(gap[c], -slop) - shift + dt * u < reach:
            keep[c] = True
            kappa[c] = STIFFNESS / k
            r0[c] = max(gap[c], -slop) - shift
            pressing[c] = normal_force[point[c]] > 0.0 or r0[c] + dt * u_last < 0.0
            for s in range(S):
                j = node[c, s]
                if j >= 0:
                    load[j] += kappa[c] * coef[c, s] * coef[c, s]
    for c in range(nc):
        if not keep[c]:
            continue
        scale = 1.0
        for s in range(S):
            j = node[c, s]
            if j >= 0 and load[j] > 0.0 and inv_mass[j] > 0.0:
                scale = min(scale, NODE_STIFFNESS / (inv_mass[j] * load[j]))
        kappa[c] *= scale
    return keep, kappa, r0, pressing


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
def penalty_product(node, coef, k, blocks, p, free, out):
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
def _augment(point, tangent, stiffness, kappa, const, r, mu, slot):
    """One update after a solve that ended with row values r. A normal row's force λ − κ r becomes its multiplier
    λ, clipped at 0: a row whose force would pull is released, a released row whose point ends inside comes back
    (augmented Lagrangian). A point's friction rows are a spring to its anchor whose force is capped at μ Σ λn of
    its new normal forces: stiffness κ while κ |u| stays below the cap (u: the point's tangential offset, its
    friction rows' values), else μ Σ λn / |u| (iteratively reweighted: each solve minimises a quadratic that
    touches the capped energy from above, so the iterates converge to the elasto-plastic friction's solution).
    slot (num_points,) scratch, −1 on entry and return. Returns (changed, worst): whether a normal row changed
    between pressing and released, and the largest violation left in metres (a pressing normal row's
    distance from its surface; a friction row's force change over κ)."""
    n = point.shape[0]
    ids = compact_points(point, slot)
    k = ids.shape[0]
    fn = np.zeros(k)
    slide = np.zeros(k)
    changed = False
    worst = 0.0
    for c in range(n):
        q = slot[point[c]]
        if tangent[c]:
            slide[q] += r[c] * r[c]
            continue
        active = kappa[c] > 0.0
        f = const[c] - stiffness[c] * r[c] if active or r[c] < 0.0 else 0.0
        lam = max(f, 0.0)
        if (lam > 0.0) != active:
            changed = True
        if lam > 0.0:   # a pressing row ends on its surface: neither inside nor pushing from a distance
            worst = max(worst, abs(r[c]))
        kappa[c] = stiffness[c] if lam > 0.0 else 0.0
        const[c] = lam
        fn[q] += lam
    for c in range(n):
        if not tangent[c]:
            continue
        q = slot[point[c]]
        length = math.sqrt(slide[q])
        cap = mu[c] * fn[q]
        if cap <= 0.0:   # no normal force, no friction
            spring = 0.0
        else:
            spring = stiffness[c] if length * stiffness[c] <= cap else cap / length
        worst = max(worst, abs(spring - kappa[c]) * length / stiffness[c])
        kappa[c] = spring
    release_points(ids, slot)
    return changed, worst


class ContactPenalty:
    """Predicted contact rows r_c(δx) = r0_c + n_c·J_c δx (J_c: the row's stencil of node weights) in the Newton
    system as the augmented-Lagrangian terms ½ κ_c r_c² − λ_c r_c of the active rows:
    (A + Σ κ Jᵀn nᵀJ) δx = b + Σ (λ − κ r0) Jᵀn. A row's force (times dt²) in a solve is λ − κ r.

    node, coef (nc, S): stencil nodes (−1 unused) and weights; normal (nc,3): a normal row's contact normal, a
    friction row's tangent; r0 (nc,): the rows' values at the step's start positions x_n (m; a friction row's: its
    point's tangential offset from its anchor); stiffness (nc,): κ (kg, the units of the system matrix);
    kappa (nc,): the springs the first solve runs with (a normal row's κ, or 0 released; a friction row's κ or
    less, see _augment); point (nc,) the
    render point each row belongs to (each point with a normal row has two friction rows, tangents t1, t2, if its
    μ > 0); collider, other (nc,): the collider / other body it touches (−1: none); tangent (nc,) bool: a
    friction row; const (nc,): the multipliers λ (force times dt², kg·m), warm-started from the last step;
    mu (nc,): the friction coefficient of each row's contact; tolerance (m): see augment. At a Newton iterate x_k the rows' values are
    r0 + n·J (x_k − x_n)."""

    def __init__(self, node, coef, normal, r0, stiffness, kappa, point, collider, other, tangent, const, mu,
                 num_nodes, tolerance):
        self.node, self.coef, self.normal = node, coef, normal
        self.r0, self.stiffness, self.point = r0, stiffness, point
        self.kappa = kappa
        self.collider, self.other, self.tangent, self.const = collider, other, tangent, const
        self.mu = mu
        self.num_nodes = num_nodes
        self.tolerance = tolerance   # m: the violation a solve may leave (augment)
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

    def add_rows(self, node, coef, normal, r0, stiffness, point, collider, other, tangent, const, kappa, mu):
        """Append rows (in ContactStage.predict's order of fields; stencils padded to the wider of the two)."""
        width = max(self.node.shape[1], node.shape[1])
        stencils = []
        for n, c in ((self.node, self.coef), (node, coef)):
            pad = width - n.shape[1]
            stencils.append((np.pad(n, ((0, 0), (0, pad)), constant_values=-1), np.pad(c, ((0, 0), (0, pad)))))
        self.node = np.ascontiguousarray(np.concatenate([stencils[0][0], stencils[1][0]]))
        self.coef = np.ascontiguousarray(np.concatenate([stencils[0][1], stencils[1][1]]))
        for name, value in (("normal", normal), ("r0", r0), ("stiffness", stiffness), ("point", point),
                            ("collider", collider), ("other", other), ("tangent", tangent), ("const", const),
                            ("kappa", kappa), ("mu", mu)):
            setattr(self, name, np.ascontiguousarray(np.concatenate([getattr(self, name), value])))
        self._build_blocks()

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
        return penalty_product(self.block_node, self.block_coef, self.block_k, blocks, p, free, out)

    def precondition(self, pinv):
        """Fold the rows' diagonal blocks into the block-Jacobi inverse pinv (N,3,3), in place."""
        fold_diagonal(self.block_node, self.block_coef, self.block_k, pinv)

    def augment(self, displacement):
        """Update the multipliers after a solve that ended at d = x − x_n (see _augment) if that solve needs
        another: a row changed between active and released or stick and slip, or a constraint is still violated
        by more than `tolerance` (m). Returns whether it does (the rows are left as solved if not)."""
        slot = np.full(int(self.point.max()) + 1, -1, np.int64)
        kappa, const = self.kappa.copy(), self.const.copy()
        changed, worst = _augment(self.point, self.tangent, self.stiffness, kappa, const,
                                  self.residuals(displacement), self.mu, slot)
        if not changed and worst <= self.tolerance:
            return False
        self.kappa, self.const = kappa, const
        self._build_blocks()
        return True

    def holding(self):
        """Per row: whether its point is held by the rows at the end of the solves (it has a pressing normal row);
        a point whose rows were all released is left to the correction and post-stabilisation."""
        pressed = np.zeros(int(self.point.max()) + 1, np.bool_)
        pressed[self.point[~self.tangent & (self.kappa > 0.0)]] = True
        return pressed[self.point]

    def impulses(self, displacement, dt):
        """Impulse of each row along its direction (N·s) applied over the step ending at d, as the last solve applied
        it (λ − κ r)."""
        return (self.const - self.kappa * self.residuals(displacement)) / dt
