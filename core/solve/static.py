"""Static equilibrium under gravity and pins: load-stepped Newton on f(x) + M g = 0 with sparse direct solves."""
import time

import numpy as np
import scipy.sparse.linalg as spla

from ..fem.force_model import ForceModel

_ARMIJO = 1e-4
_HALVINGS = 20
_NEWTON_PER_LOAD = 12
_MIN_LOAD_STEP = 1.0 / 1024


def _potential(force_model, state, x, external, free):
    """Total potential energy E_elastic(x) − Σ f_ext·x and the free nodes' residual force norm at x,
    evaluated on a probe copy of the state."""
    probe = state.copy()
    probe.x[:] = x
    force_model.update_rotations(probe)
    residual = force_model.forces(x) + external
    return (float(force_model.energies(x).sum() - np.sum(external * x)),
            float(np.linalg.norm(residual[free])))


def _direction(force_model, residual, free_dof):
    k = force_model.stiffness_matrix(np.ones(force_model.model.num_tets))
    return spla.spsolve(k[free_dof][:, free_dof].tocsc(), residual.ravel()[free_dof])


def _newton(exact, fallback, state, external, free_dof, tol, size, iterations):
    """Damped Newton at one load; returns (converged, iterations, relative residual)."""
    md = exact.model
    free = ~md.pinned
    ext_norm = float(np.linalg.norm(external[free]))
    step = np.inf
    for k in range(iterations + 1):
        exact.update_rotations(state)
        residual = exact.forces(state.x) + external
        norm = float(np.linalg.norm(residual[free]))
        rel = norm / ext_norm if ext_norm > 0 else norm
        if norm <= tol * ext_norm or step <= tol * size:
            return True, k, rel
        if k == iterations:
            return False, k, rel
        r_free = residual.ravel()[free_dof]
        d = _direction(exact, residual, free_dof)
        if not np.dot(d, r_free) > 0:  # the exact Jacobian is indefinite here: use the PSD one
            fallback.update_rotations(state.copy())
            d = _direction(fallback, residual, free_dof)
        dx = np.zeros(3 * md.num_nodes)
        dx[free_dof] = d
        dx = dx.reshape(-1, 3)
        base, _ = _potential(exact, state, state.x, external, free)
        slope = -float(np.dot(d, r_free))
        s = 1.0
        for _ in range(_HALVINGS):
            energy, trial_norm = _potential(exact, state, state.x + s * dx, external, free)
            # the residual test accepts full steps where energy differences drown in round-off
            if energy <= base + _ARMIJO * s * slope or (s == 1.0 and trial_norm < 0.5 * norm):
                break
            s *= 0.5
        state.x += s * dx
        step = float(np.abs(dx).max()) if s == 1.0 else np.inf
    return False, iterations, rel


def solve_static(force_model, state, gravity, pin_target, settings):
    """Move `state.x` to the static equilibrium (pinned nodes at their targets), set v = 0.

    Pinned nodes are placed on their targets, then gravity is applied in load steps (doubling on
    success, halving on failure); at each load, Newton on the free nodes with the exact
    corotational Jacobian (the configured PSD differential where the exact one is not a descent
    direction) and backtracking on the total potential energy, until |residual| <= static_tolerance ×
    |M g| or a full Newton update is below static_tolerance × the bodies' size (the round-off floor).
    At most `static_iterations` Newton iterations in all. Returns stats."""
    md = force_model.model
    exact = ForceModel(md, "exact", force_model.alpha, force_model.beta)
    g = np.asarray(gravity, dtype=np.float64)
    free_dof = np.repeat(~md.pinned, 3)
    size = float(np.linalg.norm(md.rest.max(axis=0) - md.rest.min(axis=0)))
    t0 = time.perf_counter()
    state.x[md.pinned] = pin_target[md.pinned]
    load, increment, used, rel = 0.0, 1.0, 0, np.inf
    converged = False
    while used < settings.static_iterations:
        target = min(1.0, load + increment)
        backup = state.copy()
        external = md.mass[:, None] * (target * g)
        ok, its, rel = _newton(exact, force_model, state, external, free_dof, settings.static_tolerance,
                               size, min(_NEWTON_PER_LOAD, settings.static_iterations - used))
        used += its
        if ok and target == 1.0:
            converged = True
            break
        if ok:
            load = target
            increment = min(2.0 * increment, 1.0)
        else:
            state.assign(backup)
            increment *= 0.5
            if increment < _MIN_LOAD_STEP:
                break
    state.v[:] = 0.0
    return {"static_iterations": used, "static_residual": rel, "static_converged": converged,
            "degenerate_tets": int(np.count_nonzero(state.witness >= 0)),
            "seconds": {"static": time.perf_counter() - t0}}
