"""Contact as one problem: a step's linear system A dx = b and its contact rows, with Signorini's condition and Coulomb's
friction, solved as the minimum of one convex function by Newton's method (semismooth) with an exact line search.

Each contact row r acts on the nodes of its stencil (node, coef): its frame (n, t1, t2) gives the relative
displacement u_r = Σ_s coef_s frame_r dx[node_s] (3 components), and v_r = u_r − c_r its value against the target c_r
(c_n = −gap + n·(the collider's motion); c_t: the collider's tangential motion). With f_r = (λ, γ) its force (× Δt²,
the units of A dx = b), A dx = b + Σ_r J_rᵀ f_r. Each row is compliant (Verschoor & Jalba 2019's E: the row's own
compliance diag(J A_d⁻¹ Jᵀ)), so that
    λ = max(0, −v_n / E_n)                                   (Signorini, entered by E_n λ at most)
    γ = −v_t / E_t while |v_t| ≤ E_t μ λ̃, else −μ λ̃ v̂_t     (Coulomb: sticking, or sliding against the slip)
are the derivatives of a convex potential, and dx minimises
    Φ(dx) = ½ dxᵀ A dx − bᵀ dx + Σ_r ½ min(0, v_n)² / E_n + D_r(v_t),
with D_r Huber's function of the slip, of slope μ λ̃ (λ̃: the normal force the friction bound is scaled with, lagged:
updated to λ between rounds until it stops changing). These are the compliant MLCP's conditions; as a minimum they
have a solution for any number of rows, redundant ones included (many render points embedded in one cage tet), and
no row's state is switched by hand: Newton's steps decrease Φ.

Each Newton iteration solves H d = −∇Φ (H: A plus each row's curvature JᵀWJ) by preconditioned Conjugate Gradients
(core.contact.krylov) with the inverse of H on the contact region (core.contact.region: factored anew only when rows
are pressed or rubbing that its last factorisation did not hold), then steps to the minimum of Φ along d."""
import math

import numpy as np

from .krylov import pcg
from .laws import force_along, row_curvatures, stiffness
from .region import Region
from .row_kernels import (block_apply, curvature_product, curved_rows, fold_diagonal, frames, project,
                          schur_diagonal, spread, world_curvatures)

# A row gives way by its own compliance (how far its force would move its nodes held by their diagonal blocks alone):
# tens of µm for a body resting on a floor, about a mm at a 2 m drop's landing. Stiffer rows cost Newton steps: a
# stack's rows cross their friction cones' kinks one line search at a time (benchmarks/RESULTS.md). Neither give
# lasts: the normal one is taken back from the next step's target (the force carried), and a sticking row's
# tangential one is carried by its friction anchor (core.contact.problem.RowMemory).
GIVE = 5e-4         # m: the most a row gives under its force; past it, its compliance drops to GIVE / 2λ (λ lagged)
LAG_ROUNDS = 4      # rounds of the friction bound μ λ̃ following the normal force λ
NEWTON_FORCING = 1e-2   # each Newton system solved to this fraction of the current residual


class ContactRows:
    """The rows of one step: stencil (node (R,S), coef (R,S)), frame (R,3,3): normal then two tangents (unit,
    orthogonal), target (R,3): c_n then c_t (m), mu (R,), and per row after a solve: active (R,) bool (pressed),
    force (R,3): (λ, γ1, γ2) in N·s² (Δt² times the force), kinetic (R,): λ̃, the normal force the friction bound is
    scaled with (the warm start of the next step's), carried (R,): the λ̃ the row carried into the step (the last
    step's, whose normal give each solve of this step takes back), stretch (R,3): the tangential give where the row ends, within
    its stick zone, in world coordinates (the next step's row of the same point starts from it: its friction anchor)."""

    def __init__(self, node, coef, normal, target_n, target_t, mu):
        r = len(node)
        self.node = np.ascontiguousarray(node, dtype=np.int64)
        self.coef = np.ascontiguousarray(coef, dtype=np.float64)
        self.frame = frames(np.ascontiguousarray(normal, dtype=np.float64))
        self.target = np.zeros((r, 3))
        self.target[:, 0] = target_n
        self.target[:, 1:] = target_t
        self.mu = np.ascontiguousarray(mu, dtype=np.float64)
        self.active = np.zeros(r, np.bool_)
        self.force = np.zeros((r, 3))
        self.kinetic = np.zeros(r)
        self.carried = np.zeros(r)
        self.stretch = np.zeros((r, 3))

    def __len__(self):
        return len(self.node)

    @classmethod
    def joined(cls, a, b):
        """The rows of a then b, in their states (stencils padded to the wider)."""
        out = cls.__new__(cls)
        width = max(a.node.shape[1], b.node.shape[1])
        out.node = np.full((len(a) + len(b), width), -1, np.int64)
        out.coef = np.zeros((len(a) + len(b), width))
        for rows, at in ((a, slice(0, len(a))), (b, slice(len(a), len(a) + len(b)))):
            out.node[at, :rows.node.shape[1]] = rows.node
            out.coef[at, :rows.coef.shape[1]] = rows.coef
        for name in ("frame", "target", "mu", "active", "force", "kinetic", "carried", "stretch"):
            setattr(out, name, np.concatenate([getattr(a, name), getattr(b, name)]))
        return out

    def taken(self, at):
        """The rows `at` (indices), in their states (copies)."""
        out = ContactRows.__new__(ContactRows)
        for name in _STATE:
            setattr(out, name, getattr(self, name)[at])
        return out

    def put(self, at, part):
        """The states of `part` (taken(at), since solved) back into the rows `at`."""
        for name in ("active", "force", "kinetic", "stretch"):
            getattr(self, name)[at] = getattr(part, name)


_STATE = ("node", "coef", "frame", "target", "mu", "active", "force", "kinetic", "carried", "stretch")


class _Hessian:
    """H = S A + Jᵀ W J (W (R,3,3): each row's curvature in its frame) and its preconditioner: the region's factored
    H on the contact region, and elsewhere A's diagonal blocks, or a multigrid V-cycle of H itself (the rows'
    curvatures folded into each body's levels, so bodies pressed together are stiff together on every level).
    Its product runs over the curved rows alone (curved; their curvatures in world coordinates: k): a landing's
    rows are mostly not pressed yet, and cost nothing there.

    With multigrid, the region's factors and the V-cycle are built for curvatures `built` at least the rows' (each
    rubbing row's tangent plane at its sticking stiffness k_t, which bounds its sliding curvature), and kept while
    every row stays within them (built − W positive semi-definite per row, so H ⪯ H_built): the V-cycle B then still
    has B H's eigenvalues in (0, 2) where it had them for H_built, and the region's solve undershoots where it was
    exact, so the symmetric multiplicative Schwarz stays symmetric positive definite. A row pressed or rubbing anew,
    or one stiffened, builds them again."""

    def __init__(self, system, free, rows, pinv, multigrid=None):
        self.system, self.free, self.rows, self.pinv, self.multigrid = system, free, rows, pinv, multigrid
        self.region = Region(system, free, rows, pinv, keep=multigrid is None)
        self.weight = np.zeros((len(rows), 3, 3))
        self.curved = np.zeros(0, np.int64)
        self.k = np.zeros((len(rows), 3, 3))
        self.vcycle = None
        self.built = None
        self._work = [np.zeros((len(free), 3)) for _ in range(3)]

    def set_weight(self, weight, k_t):
        """The rows' curvatures weight (R,3,3, frame coordinates) from now on; k_t (R,): their sticking stiffness."""
        self.weight = weight
        self.curved = curved_rows(weight)
        world_curvatures(self.rows.frame, weight, self.curved, self.k)
        if self.multigrid is None:
            self.region.factor(weight, self.curved)
            return
        if self.built is not None and _no_stiffer(weight, self.built):
            return
        built = weight.copy()
        rubbing = np.any(weight[:, 1:, 1:] != 0.0, axis=(1, 2))
        built[rubbing, 1:, 1:] = k_t[rubbing, None, None] * np.eye(2)
        k = np.zeros_like(self.k)
        world_curvatures(self.rows.frame, built, self.curved, k)
        self.region.factor(built, self.curved)
        blocks = _RowBlocks(self.rows, self.curved, k)
        hinv = self.pinv.copy()
        fold_diagonal(blocks.block_node, blocks.block_coef, blocks.block_k, hinv)
        self.vcycle = self.multigrid(blocks, hinv)
        self.built = built

    def apply_a(self, p, out):
        """out = S A p; returns pᵀ out."""
        return self.system.apply(p, out, self.free, None)

    def apply(self, p, out):
        """out = H p; returns pᵀ out."""
        rows = self.rows
        return self.apply_a(p, out) + curvature_product(rows.node, rows.coef, self.k, self.curved, p, self.free, out)

    def precondition(self, r, z):
        """z = M⁻¹ r. Without multigrid: the region's inverse there, A_d⁻¹ elsewhere (block diagonal). With it:
        symmetric multiplicative Schwarz, the region's exact solve, then H's V-cycle on what remains, then the region
        again; symmetric, and it carries a stiff body's elasticity and a stack's bodies pressing on each other,
        which block-Jacobi leaves to hundreds of iterations."""
        if self.vcycle is None:
            block_apply(self.pinv, r, self.free, z)
            self.region.solve(r, z)
            return
        hz, rest, dz = self._work
        z[:] = 0.0
        self.region.solve(r, z)
        self.apply(z, hz)
        np.subtract(r, hz, out=rest)
        self.vcycle(rest, dz)
        z += dz
        self.apply(z, hz)
        np.subtract(r, hz, out=rest)
        dz[:] = 0.0
        self.region.solve(rest, dz)
        z += dz


def _no_stiffer(weight, built):
    """Whether each row's curvature weight (R,3,3) is at most built's: built − weight positive semi-definite (its
    least eigenvalue not below −1e-12 of the row's largest built entry: rounding)."""
    rows = np.flatnonzero(np.any(weight != built, axis=(1, 2)))
    if not len(rows):
        return True
    least = np.linalg.eigvalsh(built[rows] - weight[rows])[:, 0]
    return bool(np.all(least >= -1e-12 * np.abs(built[rows]).max(axis=(1, 2))))


class _RowBlocks:
    """The curved rows' curvatures as stencil blocks: block_node, block_coef (their stencils) and block_k (C,3,3) =
    Fᵀ W F in world coordinates (k, R rows), the form core.solve.multigrid folds into a body's operator."""

    def __init__(self, rows, curved, k):
        self.block_node, self.block_coef = rows.node[curved], rows.coef[curved]
        self.block_k = k[curved]


class Solve:
    """The outcome of solve_contact: iterations (Conjugate Gradient), restarts (Newton iterations), converged (the
    residual met with the friction bounds settled), residual, constraint_error (the deepest row inside, m)."""

    def __init__(self, iterations, restarts, converged, residual, constraint_error):
        self.iterations, self.restarts, self.converged = iterations, restarts, converged
        self.residual, self.constraint_error = residual, constraint_error


def solve_contact(system, b, dx, free, rows, pinv, tolerance, load, gap_tolerance, max_iterations, base=None,
                  multigrid=None, give=GIVE):
    """Solve the step's system with its contact rows (in place: dx (N,3) from its warm start; rows' states, forces and
    friction bounds (rows.kinetic) from theirs). system.apply(p, out, free, body): S A p on a body's rows (body None: on
    all; system.mass_term: see _balance_momentum); pinv: A's inverse 3×3 diagonal blocks; free (N,) 1.0 / 0.0 (held
    nodes keep dx); tolerance: the residual relative to max(|b|, |load|) (A_d⁻¹ norm); gap_tolerance (m): how far a
    change of the friction bound may move a row for the bound to count as settled; max_iterations: Conjugate Gradient
    iterations at most; base (N,3): displacement the rows see besides dx (a Newton iterate's, from the step's start;
    None: zero); multigrid(blocks, hinv) -> vcycle(r, z), if given: a V-cycle of H (core.solve.multigrid, the rows'
    curvature blocks and H's inverse diagonal blocks folded in) preconditioning away from the contact region, for bodies
    too stiff for block-Jacobi and bodies pressed on each other; give: the most a row gives under its force (the units
    of dx; inf: no cap). Returns a Solve."""
    nr = len(rows)
    hessian = _Hessian(system, free, rows, pinv, multigrid)
    sd = np.empty((nr, 3))
    schur_diagonal(rows.node, rows.coef, rows.frame, pinv, free, sd)
    carried = rows.carried
    e_n = _bounded_give(sd[:, 0], carried, give)
    e_t = 0.5 * (sd[:, 1] + sd[:, 2])
    base_u = np.zeros((nr, 3))
    if base is not None:
        project(rows.node, rows.coef, rows.frame, base, base_u)
    target = rows.target - base_u
    # the normal give of the force the row carried last step (λ̃) is taken back, as the anchor takes back the
    # tangential one: a row carrying a steady load ends on its surface, not E_n λ inside it
    target[:, 0] += e_n * carried
    scale = max(_pnorm(b, pinv, free), _pnorm(load, pinv, free), 1e-300)
    laws = _Laws(e_n, e_t)
    bound = rows.mu * rows.kinetic
    u = np.empty((nr, 3))
    ju = np.empty((nr, 3))
    r = np.zeros_like(dx)   # (zeros: a group's products leave the other bodies' rows as they were)
    ad = np.zeros_like(dx)
    _start_along_prediction(hessian, laws, rows, b, dx, free, target, bound)
    it = newton = 0
    res = math.inf
    settled = False
    kept = None   # the last round's converged result
    for _round in range(LAG_ROUNDS):
        while True:
            f, weight = _residual(hessian, laws, rows, b, dx, free, target, bound, u, r)
            res = _pnorm(r, pinv, free) / scale
            if res <= tolerance or it >= max_iterations:
                break
            hessian.set_weight(weight, laws.k_t)
            d, used = pcg(hessian, r, pinv, free, max(0.5 * tolerance, NEWTON_FORCING * res) * scale,
                           max_iterations - it)
            it += used
            newton += 1
            hessian.apply_a(d, ad)
            project(rows.node, rows.coef, rows.frame, d, ju)
            alpha = _step_length(laws, u - target, ju, bound, float(np.vdot(d, r)), float(np.vdot(d, ad)))
            if alpha <= 0.0 or used == 0:
                break
            dx += alpha * d
        if res <= tolerance:
            kept = dx.copy(), f, target.copy(), bound, r.copy(), res
        lam = f[:, 0]
        settled = not np.any(rows.mu * np.abs(lam - rows.kinetic) * sd[:, 1:].max(axis=1) > gap_tolerance)
        rows.kinetic[:] = lam
        # a row that gave more than `give` under the force it took (a landing's new rows carry no λ̃) is stiffened
        if np.any(e_n * lam > give):
            settled = False
            e_n = _bounded_give(e_n, lam, give)
            laws = _Laws(e_n, e_t)
        if settled or it >= max_iterations:
            break
        bound = rows.mu * lam
    if res > tolerance and kept is not None:
        # a later round did not converge within the cap: the last converged round's result, not an iterate on
        # its way (an unconverged iterate with stiffened rows can throw a body off)
        dx[:], f, target, bound, r, res = kept
        rows.kinetic[:] = f[:, 0]
        settled = False
    if res <= tolerance:
        _balance_momentum(system, free, r, dx)
    rows.force[:] = f
    rows.active[:] = f[:, 0] > 0.0
    # the anchor: the tangential give where the rows end (after the momentum balance), within the cone's stick zone
    project(rows.node, rows.coef, rows.frame, dx, u)
    give = u[:, 1:] - target[:, 1:]
    length = np.hypot(give[:, 0], give[:, 1])
    reach = e_t * bound
    give *= np.where(length > reach, reach / np.where(length > 0.0, length, 1.0), 1.0)[:, None]
    rows.stretch[:] = np.einsum("rkd,rk->rd", rows.frame[:, 1:], give)
    deepest = float(np.max(target[:, 0] - u[:, 0], initial=0.0))
    return Solve(it, newton, res <= tolerance and settled, res, max(deepest, 0.0))


def _bounded_give(e_n, lam, give):
    """The normal compliances e_n, but where a row's give e_n λ under its force λ passes `give`, the compliance that
    gives half of it (room for the force to grow before the bound bites again)."""
    deep = e_n * lam > give
    return np.where(deep, 0.5 * give / np.where(deep, lam, 1.0), e_n)


class _Laws:
    """The rows' contact laws (core.contact.laws) with their stiffnesses: forces and curvatures of the potential at
    values v (R,3) = J dx − target."""

    def __init__(self, e_n, e_t):
        self.k_n, self.k_t = stiffness(e_n), stiffness(e_t)

    def curvatures(self, v, bound):
        """(f, W): the forces f = −∂Φ/∂v and W (R,3,3) = ∂²Φ/∂v² in frame coordinates."""
        f = np.empty_like(v)
        w = np.empty((len(v), 3, 3))
        row_curvatures(v, bound, self.k_n, self.k_t, f, w)
        return f, w

    def force_along(self, v, jd, alpha, bound):
        return force_along(v, jd, alpha, bound, self.k_n, self.k_t)


def _step_length(laws, v, jd, bound, descent, curvature):
    """The α ≥ 0 minimising Φ(dx + α d) (v: the rows' values at dx, jd: J d, descent: −dᵀ∇Φ at dx, curvature: dᵀ A d):
    the root of Φ's derivative along d, which increases with α (Φ is convex); 1 (the Newton step) when Φ still falls
    there."""

    at_dx = laws.force_along(v, jd, 0.0, bound)

    def slope(alpha):
        return -descent + at_dx + alpha * curvature - laws.force_along(v, jd, alpha, bound)

    lo, hi = 0.0, 1.0
    s_lo, s_hi = -descent, slope(1.0)
    if s_hi <= 0.0:
        return 1.0
    for _ in range(40):   # regula falsi (Illinois): the slope is monotone and piecewise linear
        alpha = hi - s_hi * (hi - lo) / (s_hi - s_lo)
        s = slope(alpha)
        if abs(s) <= 1e-6 * descent:
            return alpha
        if s > 0.0:
            hi, s_hi = alpha, s
            s_lo *= 0.5
        else:
            lo, s_lo = alpha, s
            s_hi *= 0.5
    return lo if lo > 0.0 else alpha


def _residual(hessian, laws, rows, b, dx, free, target, bound, u, r):
    """r = −∇Φ at dx (held nodes zeroed) and u = J dx, in place; returns the rows' (forces, curvatures) there."""
    project(rows.node, rows.coef, rows.frame, dx, u)
    f, weight = laws.curvatures(u - target, bound)
    hessian.apply_a(dx, r)
    np.subtract(b, r, out=r)
    spread(rows.node, rows.coef, rows.frame, f, free, r)
    r *= free[:, None]
    return f, weight


def _start_along_prediction(hessian, laws, rows, b, dx, free, target, bound):
    """Warm start: dx becomes the minimum of Φ on the segment from rest (the held nodes' dx alone) to the given
    prediction (the step's inertial motion). A sliding body starts near its prediction; a body sticking while it
    vibrates starts nearer rest, where its rows are inside their stick zones (from the prediction, each row would
    cross its cone's kink on the way back, one line search at a time)."""
    d = dx * free[:, None]
    if not np.any(d):
        return
    dx -= d
    u, ju, r, ad = (np.empty((len(rows), 3)), np.empty((len(rows), 3)), np.zeros_like(dx), np.zeros_like(dx))
    _residual(hessian, laws, rows, b, dx, free, target, bound, u, r)
    hessian.apply_a(d, ad)
    project(rows.node, rows.coef, rows.frame, d, ju)
    descent = float(np.vdot(d, r))
    if descent > 0.0:
        dx += _step_length(laws, u - target, ju, bound, descent, float(np.vdot(d, ad))) * d


def _balance_momentum(system, free, r, dx):
    """dx += each unpinned body's translation that zeroes its residual's sum r (the forces f held): a converged solve's
    tolerance then leaves no momentum made or lost (the stiffness resists no translation, the rows' forces are equal and
    opposite between two bodies). system.mass_term (N,): A's part on a translation, None when A has none."""
    if system.mass_term is None:
        return
    for n0, n1 in system.node_ranges:
        if n1 > n0 and free[n0:n1].all():
            dx[n0:n1] += r[n0:n1].sum(axis=0) / system.mass_term[n0:n1].sum()


def _pnorm(v, pinv, free):
    z = np.empty_like(v)
    block_apply(pinv, v, free, z)
    return math.sqrt(max(float(np.vdot(v, z)), 0.0))
