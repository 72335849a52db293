"""Static equilibrium under gravity and pins: Newton iterations on f(x) + M g = 0 with a PCG inner solve."""
import time

import numpy as np

from .pcg import pcg

_CG_TOLERANCE = 1e-8
_CG_ITERATIONS = 20000


def solve_static(force_model, state, gravity, pin_target, settings):
    """Move `state.x` to the static equilibrium (pinned nodes at their targets), set v = 0.

    Newton: K(x_k) δx = f(x_k) + M g on the free nodes, until |residual| <= static_tolerance ×
    |M g| (free nodes) or static_iterations. Returns stats (iterations, residual, converged)."""
    md = force_model.model
    g = np.asarray(gravity, dtype=np.float64)
    pinned = md.pinned
    free = (~pinned).astype(np.float64)
    external = md.mass[:, None] * g
    ext_norm = float(np.linalg.norm(external * free[:, None]))
    zero_mass = np.zeros(md.num_nodes)
    unit_scale = np.ones(md.num_tets)
    t0 = time.perf_counter()
    dx = np.empty_like(state.x)
    stats = {"static_iterations": 0, "cg_iterations": 0, "static_residual": np.inf, "static_converged": False}
    for k in range(settings.static_iterations + 1):
        stats["degenerate_tets"] = force_model.update_rotations(state)
        residual = force_model.forces(state.x) + external
        norm = float(np.linalg.norm(residual * free[:, None]))
        stats["static_residual"] = norm / ext_norm if ext_norm > 0 else norm
        at_targets = np.allclose(state.x[pinned], pin_target[pinned], rtol=0, atol=0)
        if at_targets and norm <= settings.static_tolerance * max(ext_norm, 1e-300):
            stats["static_converged"] = True
            break
        if k == settings.static_iterations:
            break
        dx[:] = 0.0
        dx[pinned] = pin_target[pinned] - state.x[pinned]
        its, _ = pcg(force_model, zero_mass, unit_scale, residual, dx, free, _CG_ITERATIONS, _CG_TOLERANCE)
        state.x += dx
        stats["static_iterations"] += 1
        stats["cg_iterations"] += its
    state.v[:] = 0.0
    stats["seconds"] = {"static": time.perf_counter() - t0}
    return stats
