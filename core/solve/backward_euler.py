"""Backward Euler in displacement form: a capped Newton loop, each iteration one warm-started PCG solve."""
import time

import numpy as np

from .linear_system import linear_system
from .auto_preconditioner import iteration_work
from .pcg import jacobi_inverse, pcg



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
        if penalty is not None:
            penalty.add_rhs(b, state.x - x_n)
        if k == 0:
            dx[:] = dt * v_n
        else:
            dx[:] = 0.0
        dx[pinned] = pin_target[pinned] - state.x[pinned]
        t2 = time.perf_counter()
        system = linear_system(force_model, mass_coef, tet_scale)
        its, res, stats["preconditioner"] = _solve(system, b, dx, free, settings, penalty, multigrid, state.x, dt)
        t3 = time.perf_counter()
        _conserve_momentum(md, exempt, dx, b, mass_coef)
        state.x += dx
        np.subtract(state.x, x_n, out=state.v)
        state.v /= dt
        if correct is not None:
            correct(state, x_n, v_n, dt)
        sec["rotations"] += t1 - t0
        sec["forces"] += t2 - t1
        sec["cg"] += t3 - t2
        stats["newton_iterations"] += 1
        body_its += its
        stats["cg_residual"] = max(res)
    stats["cg_iterations"], stats["cg_iterations_sum"] = int(body_its.max()), int(body_its.sum())
    return stats


def _solve(system, b, dx, free, settings, penalty, multigrid, x, dt):
    """This Newton iteration's CG solve for dx (in place, from its warm start) with the preconditioner(s)
    `preconditioners` plans; of two (a comparison), each solves from the same start and the winner's result is kept.
    Returns (iterations, residuals, the kept solve's preconditioner)."""
    names = preconditioners(settings, system, multigrid)
    measured = settings.preconditioner == "auto" and multigrid is not None and hasattr(system, "pattern")
    results = {}
    for name in names:
        hierarchy = None
        if name == "multigrid":
            hierarchy = multigrid.update(system, x, free, penalty, jacobi_inverse(system, penalty), dt)
        elif multigrid is not None and len(names) == 1:
            multigrid.idle()
        start = dx if len(names) == 1 else dx.copy()
        its, res = pcg(system, b, start, free, settings.cg_iterations, settings.cg_tolerance, penalty, hierarchy)
        results[name] = start, its, res
        if hierarchy is not None:
            multigrid.record(max(its))
        if measured and max(its) > 0:
            per_body, pen = iteration_work(system, penalty, hierarchy)
            # CG preconditions twice before its first iteration
            work = sum((i + 2) * w for i, w in zip(its, per_body) if i > 0) + (max(its) + 2) * pen
            multigrid.auto.record(name, work, max(res), len(names) > 1 and name == names[-1])
    kept = names[0] if len(names) == 1 else (multigrid.auto.best or names[-1])
    start, its, res = results[kept]
    if start is not dx:
        dx[:] = start
    return its, res, kept


def preconditioners(settings, system, multigrid):
    """The preconditioners of this Newton iteration's CG (assembled systems only can take multigrid). Under "auto",
    multigrid.auto (core.solve.auto_preconditioner) plans them: it now and then solves
    with both from the same start and keeps the one that reduced the residual for less work (and its solve)."""
    if settings.preconditioner == "jacobi" or multigrid is None or not hasattr(system, "pattern"):
        return ["jacobi"]
    if settings.preconditioner == "multigrid":
        return ["multigrid"]
    return multigrid.auto.plan()


def _conserve_momentum(md, exempt, dx, b, mass_coef):
    """Shift each body with no exempt (pinned or contact) node δx uniformly so Σ (1 + αΔt) m δx = Σ b over the body, which the exact
    solution satisfies (K's rows sum to zero): an inexact CG then neither creates nor loses momentum."""
    for (n0, n1) in md.node_ranges:
        if exempt[n0:n1].any():
            continue
        m = md.mass[n0:n1] * mass_coef[n0:n1]
        shift = (b[n0:n1].sum(axis=0) - m @ dx[n0:n1]) / m.sum()
        dx[n0:n1] += shift
