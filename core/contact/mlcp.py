"""Contact as one problem: a step's linear system A dx = b and its contact rows as one mixed LCP in (dx, λ, γ), solved
by preconditioned Conjugate Residual with each row's state switched inside the iterations (Verschoor & Jalba 2019).

Each contact row r acts on the nodes of its stencil (node, coef): its frame (n, t1, t2) gives the relative
displacement u_r = Σ_s coef_s frame_r dx[node_s] (3 components). With f_r = (λ, γ1, γ2) its force (× Δt², the units of
A dx = b):
    A dx = b + Σ_r J_rᵀ f_r,
    normal:  0 ≤ λ ⊥ u_n − c_n ≥ 0                      (Signorini, c_n = −gap + n·(the collider's motion))
    static:  u_t = c_t, |γ| ≤ μλ                          (sticking: no slip relative to the collider's motion)
    kinetic: γ = −μ λ̃ δ on the right-hand side, δ the slip direction, kept while the slip goes along δ.
The active normal rows and static tangents are equalities of the symmetric indefinite KKT system
B = [A −Lᵀ; −L −E] (E: COMPLIANCE), solved by CR, preconditioned with the exact inverse of the same KKT system with A
kept on the contact region only (core.contact.region; the paper's Eq. 22 uses diag(L A_d⁻¹ Lᵀ) for the Schur complement,
which the redundant rows of embedded points defeat). States switch when the solve has converged for the current states (an
active-set method; switching inside the iterations, at the paper's shrinking interval, churned on embedded rows:
benchmarks/RESULTS.md), each row at most MAX_FLIPS times a solve, and the recurrence restarts after a switch.
Not yet the default (ContactSettings.solver): see issue 49's notes in benchmarks/RESULTS.md."""
import math

import numpy as np

from .region import Region
from .row_kernels import block_apply, frames, project, schur_diagonal, spread

# Each equality row gives way by COMPLIANCE times its own compliance (the Schur diagonal) under its force: rows that
# share nodes (many render points in one cage tet) are redundant, and without it their forces are not unique: sticking
# rows of a resting body pulled against each other past their friction cones.
COMPLIANCE = 1e-3
MAX_FLIPS = 2       # a row enters, or sticks again, at most this often in a solve, then holds (anti-cycling)
FOLLOW_ROUNDS = 6   # state rounds in which kinetic rows' normal force and slip direction follow the iterate


class ContactRows:
    """The rows of one step: stencil (node (R,S), coef (R,S)), frame (R,3,3): normal then two tangents (unit,
    orthogonal), target (R,3): c_n then c_t (m), mu (R,), and per row its state: active (R,) bool, static (R,) bool,
    force (R,3): (λ, γ1, γ2) in N·s² (Δt² times the force), slip (R,2): the kinetic slip direction δ (unit, frame's
    tangents), kinetic (R,): λ̃, the normal force the kinetic friction is scaled with."""

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
        self.static = np.zeros(r, np.bool_)
        self.force = np.zeros((r, 3))
        self.slip = np.zeros((r, 2))
        self.kinetic = np.zeros(r)

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
        for name in ("frame", "target", "mu", "active", "static", "force", "slip", "kinetic"):
            setattr(out, name, np.concatenate([getattr(a, name), getattr(b, name)]))
        return out


class _Operator:
    """B and the preconditioner C⁻¹ of the current states (mask (R,3): the rows' equalities, 1 or 0): C is the local
    model's KKT matrix (core.contact.region), exact on the contact region and block-Jacobi elsewhere."""

    def __init__(self, system, free, rows, pinv):
        self.system, self.free, self.rows, self.pinv = system, free, rows, pinv
        self.num_bodies = len(system.node_ranges)
        self.sd = np.empty((len(rows), 3))
        schur_diagonal(rows.node, rows.coef, rows.frame, pinv, free, self.sd)
        self.region = Region(system, free, rows, pinv, COMPLIANCE * self.sd)
        self.mask = None

    def set_mask(self, mask):
        if self.mask is None or not np.array_equal(mask, self.mask):
            self.mask = mask
            self.region.factor(mask)

    def apply(self, yx, yc, ox, oc):
        """(ox, oc) = B (yx, yc): ox = S (A yx − Jᵀ (mask yc)), oc = −mask (J yx + E yc), E the rows' compliance."""
        for body in range(self.num_bodies):
            self.system.apply(yx, ox, self.free, body)
        rows = self.rows
        spread(rows.node, rows.coef, rows.frame, -(self.mask * yc), self.free, ox)
        project(rows.node, rows.coef, rows.frame, yx, oc)
        oc += COMPLIANCE * self.sd * yc
        np.multiply(oc, -self.mask, out=oc)

    def precondition(self, rx, rc, zx, zc):
        """(zx, zc) = C⁻¹ (rx, rc)."""
        block_apply(self.pinv, rx, self.free, zx)
        self.region.solve(rx, rc, zx, zc)


def _dot(ax, ac, bx, bc):
    return float(np.vdot(ax, bx) + np.vdot(ac, bc))


class Solve:
    """The outcome of solve_contact: iterations, restarts (state switches), converged (the residual met and every row
    within its constraint), residual."""

    def __init__(self, iterations, restarts, converged, residual, constraint_error):
        self.iterations, self.restarts, self.converged = iterations, restarts, converged
        self.residual, self.constraint_error = residual, constraint_error


def solve_contact(system, b, dx, free, rows, pinv, tolerance, load, gap_tolerance, max_iterations, base=None):
    """Solve the step's system with its contact rows (in place: dx (N,3) from its warm start; rows' states and
    forces from theirs). system.apply(p, out, free, body): S A p per body; pinv: A's inverse 3×3 diagonal blocks;
    free (N,) 1.0 / 0.0 (held nodes keep dx); tolerance: the residual relative to max(|b|, |load|) (A_d⁻¹ norm);
    gap_tolerance: how far (m) a row may end inside its constraint; base (N,3): displacement the rows see besides dx
    (a Newton iterate's, from the step's start; None: zero). Returns a Solve."""
    nr = len(rows)
    op = _Operator(system, free, rows, pinv)
    base_u = np.zeros((nr, 3))
    if base is not None:
        project(rows.node, rows.coef, rows.frame, base, base_u)
    target = rows.target - base_u
    scale = max(_pnorm(b, pinv, free), _pnorm(load, pinv, free), 1e-300)
    yx, yc = dx, rows.force
    u = np.empty((nr, 3))
    restarts = 0
    flips = np.zeros(nr, np.int64)
    it = 0
    converged = False
    res = cerr = math.inf

    def rhs():
        dxr = b.copy()
        kin = np.zeros((nr, 3))
        sel = rows.active & ~rows.static
        kin[sel, 1:] = -(rows.mu[sel] * rows.kinetic[sel])[:, None] * rows.slip[sel]
        spread(rows.node, rows.coef, rows.frame, kin, free, dxr)
        dxr *= free[:, None]
        return dxr, -(op.mask * target)

    def restart():
        op.set_mask(_mask(rows))
        np.multiply(yc, op.mask, out=yc)
        dx_r, dc = rhs()
        bx, bc = np.empty_like(yx), np.empty_like(yc)
        op.apply(yx, yc, bx, bc)
        rx, rc = dx_r - bx, dc - bc
        zx, zc = np.empty_like(rx), np.empty_like(rc)
        op.precondition(rx, rc, zx, zc)
        wx, wc = np.empty_like(rx), np.empty_like(rc)
        op.apply(zx, zc, wx, wc)
        return rx, rc, zx, zc, wx, wc

    rx, rc, zx, zc, wx, wc = restart()
    px, pc, qx, qc = zx.copy(), zc.copy(), wx.copy(), wc.copy()
    zw = _dot(zx, zc, wx, wc)
    mqx, mqc = np.empty_like(rx), np.empty_like(rc)
    while it < max_iterations:
        res = _pnorm(rx, pinv, free) / scale
        project(rows.node, rows.coef, rows.frame, yx, u)
        cerr = float(np.max(np.abs(op.mask * (u - target + COMPLIANCE * op.sd * yc)), initial=0.0))
        done = res <= tolerance and cerr <= gap_tolerance
        changed = done and _switch(rows, u - target, op.sd, gap_tolerance, flips, restarts < FOLLOW_ROUNDS)
        if done and not changed:
            # states that stopped changing with rows the anti-cycling cap holds out inside their surfaces: not a solution
            converged = not np.any(~rows.active & (u[:, 0] - target[:, 0] < -gap_tolerance))
            break
        if changed:
            restarts += 1
            rx, rc, zx, zc, wx, wc = restart()
            px, pc, qx, qc = zx.copy(), zc.copy(), wx.copy(), wc.copy()
            zw = _dot(zx, zc, wx, wc)
        op.precondition(qx, qc, mqx, mqc)
        denom = _dot(qx, qc, mqx, mqc)
        if denom == 0.0 or not math.isfinite(denom) or zw == 0.0:
            break
        alpha = zw / denom
        yx += alpha * px
        yc += alpha * pc
        rx -= alpha * qx
        rc -= alpha * qc
        zx -= alpha * mqx
        zc -= alpha * mqc
        op.apply(zx, zc, wx, wc)
        zw_new = _dot(zx, zc, wx, wc)
        beta = zw_new / zw
        zw = zw_new
        px *= beta
        px += zx
        pc *= beta
        pc += zc
        qx *= beta
        qx += wx
        qc *= beta
        qc += wc
        it += 1
    rows.force[:] = yc
    return Solve(it, restarts, converged, res, cerr)


def _mask(rows):
    """The rows' equalities (R,3) of their states: active normals, sticking tangents."""
    m = np.zeros((len(rows), 3))
    m[rows.active, 0] = 1.0
    m[rows.active & rows.static & (rows.mu > 0), 1:] = 1.0
    return m


def _pnorm(v, pinv, free):
    z = np.empty_like(v)
    block_apply(pinv, v, free, z)
    return math.sqrt(max(float(np.vdot(v, z)), 0.0))


def _switch(rows, value, sd, gap_tolerance, flips, follow):
    """Switch the rows' states at a converged iterate (value (R,3): J dx − target; the forces in rows.force); returns
    whether any changed. Normal: an active row whose force pulls is released, an inactive one entered is activated
    (sliding). Friction: a static row whose force leaves the cone |γ| ≤ μλ slips along −γ with λ̃ = λ; a kinetic row
    whose slip turns back against δ sticks again (a row never active slides, δ = 0, until its slip is known; one
    released and entering again keeps its friction state); with `follow`, a kinetic row's λ̃ and δ take the iterate's λ and slip
    direction (a fixed-point iteration, stopped by the caller after a few rounds). A change is made only where its
    effect, the force's change times the row's compliance sd (R,3: diag of J A_d⁻¹ Jᵀ), moves the row by more than
    gap_tolerance, and a row switches between released and active, or back from kinetic to static, at most MAX_FLIPS
    times a solve: it then stays as it is (released or kinetic: never holding more than the cone allows)."""
    f = rows.force
    changed = False
    free = flips < MAX_FLIPS
    release = rows.active & (-f[:, 0] * sd[:, 0] > gap_tolerance)
    enter = free & ~rows.active & (value[:, 0] < -gap_tolerance)
    if release.any() or enter.any():
        changed = True
        flips[enter] += 1
        rows.active[release] = False
        f[release] = 0.0
        rows.active[enter] = True   # in the friction state it left (a fresh row: sliding, δ = 0)
        f[enter] = 0.0
    act = rows.active & (rows.mu > 0)
    lam = np.maximum(f[:, 0], 0.0)
    bound = rows.mu * lam
    gam = np.hypot(f[:, 1], f[:, 2])
    st = np.maximum(sd[:, 1], sd[:, 2])
    slide = act & rows.static & ~enter & ((gam - bound) * st > gap_tolerance)
    if slide.any():
        changed = True
        rows.static[slide] = False
        rows.slip[slide] = -f[slide, 1:] / gam[slide, None]
        rows.kinetic[slide] = lam[slide]
        f[slide, 1:] = 0.0
    kin = act & ~rows.static & ~slide
    if kin.any():
        s = value[:, 1:]
        along = np.einsum("ij,ij->i", s, rows.slip)
        stick = free & kin & (along < -gap_tolerance)
        if stick.any():
            changed = True
            flips[stick] += 1
            rows.static[stick] = True
            f[stick, 1:] = -(rows.mu[stick] * rows.kinetic[stick])[:, None] * rows.slip[stick]
        keep = kin & ~stick
        if follow and keep.any():
            sn = np.hypot(s[:, 0], s[:, 1])
            new_slip = np.where(sn[:, None] > 0.0, s / np.where(sn > 0.0, sn, 1.0)[:, None], rows.slip)
            new_slip[~(keep & (sn > gap_tolerance))] = rows.slip[~(keep & (sn > gap_tolerance))]
            new_kinetic = np.where(keep, lam, rows.kinetic)
            moved = rows.mu * st * np.linalg.norm(new_kinetic[:, None] * new_slip - rows.kinetic[:, None] * rows.slip,
                                                  axis=1)
            follow_rows = keep & (moved > gap_tolerance)
            if follow_rows.any():
                changed = True
                rows.slip[follow_rows] = new_slip[follow_rows]
                rows.kinetic[follow_rows] = new_kinetic[follow_rows]
    return changed
