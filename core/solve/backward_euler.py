"""Backward Euler in displacement form: a capped Newton loop, each iteration one warm-started PCG solve."""
import time

import numpy as np

from .linear_system import linear_system
from .pcg import jacobi_inverse, pcg

# "auto" preconditioner: multigrid above this median stiffness-to-mass ratio of the diagonal blocks. Measured
# (see README): the default bunny cage (E = 1e5, Δt = 1/96) sits at 143 and block-Jacobi solves it in ~34
# iterations, faster than multigrid's 9 V-cycles; Rubber (E = 3.6e6) beams sit at 680-2000, where block-Jacobi
# stops at its cap.
AUTO_STIFFNESS = 300.0
RELEASE_SOLVES = 1   # re-solves per Newton iteration without the contact rows that pulled; up to 3 changed a
                     # landing ball's squash by 2 % for 2.4 times as many re-solves


def backward_euler_step(force_model, state, dt, gravity, pin_target, settings, correct=None, penalty=None,
                        held=None, multigrid=None):
    """Advance `state` (every body of the model) by dt in place; returns the step's stats
    (cg_iterations: the most CG iterations of any body over the step, cg_iterations_sum: of all bodies;
    cg_residual: the largest relative residual of the bodies' last solves; preconditioner: the last solve's).

    Newton iteration k at x_k (v_k = (x_k − xⁿ)/Δt) solves
        ((1 + αΔt) M + (βΔt + Δt²) K) δx = Δt M (vⁿ − v_k) + Δt² (f_k + M g − α M v_k − β K v_k)
    with pinned nodes prescribed (δx = target − x_k) and projected out of CG, then
    x_{k+1} = x_k + δx, v_{k+1} = (x_{k+1} − xⁿ)/Δt. The first iteration is warm-started at
    δx = Δt vⁿ (not + Δt² g: with a capped CG that bias never leaves a stiff body, which then rests
    sagged far below its static equilibrium); each unpinned body's momentum balance is then enforced
    exactly (see _conserve_momentum), so free fall stays exact. `correct(state, x_n, v_n, dt)`, if
    given, runs after each iteration's solve and may correct state.x / state.v in place (the contact
    stage). `penalty` (a core.contact.ContactPenalty), if given, adds the
    predicted contacts' penalty rows to every iteration's system (a body touched by them is exempt from the
    momentum balance: the contacts exchange momentum with it). `held` (bool per node), if given, replaces the
    model's pin mask for this step (sleeping bodies are held where they are). `multigrid` (a
    core.solve.multigrid.Multigrid, kept across steps), if given, preconditions the CG when
    settings.preconditioner asks for it."""
    md = force_model.model
    g = np.asarray(gravity, dtype=np.float64)
    pinned = md.pinned if held is None else held
    free = (~pinned).astype(np.float64)
    mass = md.mass[:, None]
    alpha = md.damping_mass[:, None]
    mass_coef = 1.0 + md.damping_mass * dt
    tet_scale = md.damping_stiffness * dt + dt * dt
    has_beta = bool(np.any(md.damping_stiffness > 0))
    x_n, v_n = state.x.copy(), state.v.copy()
    body_its = np.zeros(len(md.node_ranges), dtype=np.int64)
    stats = {"newton_iterations": 0, "cg_iterations": 0, "cg_iterations_sum": 0, "cg_residual": 0.0,
             "degenerate_tets": 0,
             "seconds": {"rotations": 0.0, "forces": 0.0, "cg": 0.0}}
    sec = stats["seconds"]
    dx = np.empty_like(x_n)
    exempt = pinned.copy()
    if penalty is not None and len(penalty):
        exempt[penalty.node[penalty.node >= 0]] = True
    for k in range(settings.newton_iterations):
        t0 = time.perf_counter()
        stats["degenerate_tets"] = force_model.update_rotations(state)
        t1 = time.perf_counter()
        v_k = (state.x - x_n) / dt
        b = force_model.forces(state.x)
        b += mass * g
        if k > 0:
            b -= alpha * mass * v_k
            if has_beta:
                b -= force_model.product(v_k, np.empty_like(v_k), md.damping_stiffness)
        b *= dt * dt
        b += dt * mass * (v_n - v_k)
        if k == 0:
            dx[:] = dt * v_n
        else:
            dx[:] = 0.0
        dx[pinned] = pin_target[pinned] - state.x[pinned]
        t2 = time.perf_counter()
        system = linear_system(force_model, mass_coef, tet_scale)
        use_mg = multigrid is not None and use_multigrid(settings, system, md, mass_coef)
        # The penalty rows are one-sided (½ κ min(r, 0)²): a row that ends separated pulled its point onto the
        # surface (a predicted contact the body's own response would have avoided). Solve again without such rows
        # (ContactPenalty.update_active_set), warm-started, until none pulls (an active-set Newton): pulling rows
        # around the patch of a ball landing at 2 m/s dragged its flank to the floor (it flattened to 4 % of its
        # volume).
        for attempt in range(RELEASE_SOLVES + 1):
            rhs = b.copy()
            if penalty is not None:
                penalty.add_rhs(rhs, state.x - x_n)
            hierarchy = None
            if use_mg:
                hierarchy = multigrid.update(system, state.x, free, penalty, jacobi_inverse(system, penalty), dt)
            its, res = pcg(system, rhs, dx, free, settings.cg_iterations, settings.cg_tolerance, penalty, hierarchy)
            body_its += its
            if penalty is None or attempt == RELEASE_SOLVES or not penalty.update_active_set(state.x + dx - x_n):
                break
            stats["active_set_solves"] = stats.get("active_set_solves", 0) + 1
        stats["preconditioner"] = "jacobi" if hierarchy is None else "multigrid"
        if hierarchy is not None:
            multigrid.record(max(its))
        t3 = time.perf_counter()
        _conserve_momentum(md, exempt, dx, rhs, mass_coef)
        state.x += dx
        np.subtract(state.x, x_n, out=state.v)
        state.v /= dt
        if correct is not None:
            correct(state, x_n, v_n, dt)
        sec["rotations"] += t1 - t0
        sec["forces"] += t2 - t1
        sec["cg"] += t3 - t2
        stats["newton_iterations"] += 1
        stats["cg_residual"] = max(res)
    stats["cg_iterations"], stats["cg_iterations_sum"] = int(body_its.max()), int(body_its.sum())
    return stats


def use_multigrid(settings, system, md, mass_coef):
    """Whether this Newton iteration's CG is preconditioned by multigrid (assembled systems only). "auto" picks it
    for a stiff system, where block-Jacobi needs many iterations: the median over free nodes of the diagonal
    blocks' stiffness-to-mass ratio tr(A_nn) / (3 (1 + αΔt) m_n) above AUTO_STIFFNESS (that is,
    ~E Δt² / (ρ h²) above it). (Block-Jacobi stopping at its cap is no sign: it does so for a body in free fall,
    whose rigid motion the momentum balance then puts right.)"""
    if settings.preconditioner == "jacobi" or not hasattr(system, "pattern"):
        return False
    if settings.preconditioner == "multigrid":
        return True
    free = ~md.pinned
    if not free.any():
        return False
    diag = system.data[system.pattern.diag[free]]
    ratio = np.trace(diag, axis1=1, axis2=2) / (3.0 * mass_coef[free] * md.mass[free])
    return bool(np.median(ratio) > AUTO_STIFFNESS)


def _conserve_momentum(md, exempt, dx, b, mass_coef):
    """Shift each body with no exempt (pinned or contact) node δx uniformly so Σ (1 + αΔt) m δx = Σ b over the body, which the exact
    solution satisfies (K's rows sum to zero): an inexact CG then neither creates nor loses momentum."""
    for (n0, n1) in md.node_ranges:
        if exempt[n0:n1].any():
            continue
        m = md.mass[n0:n1] * mass_coef[n0:n1]
        shift = (b[n0:n1].sum(axis=0) - m @ dx[n0:n1]) / m.sum()
        dx[n0:n1] += shift
