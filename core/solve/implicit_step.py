"""The implicit step, backward Euler or Newmark (trapezoidal), in displacement form: a capped Newton loop, each
iteration one warm-started PCG solve."""
import time

import numpy as np

from ..jit import njit
from ..threads import solver_threads
from ..node_rows import add_rows, node_rows
from .linear_system import linear_system
from .auto_preconditioner import iteration_work
from .pcg import fine_operator, pcg, v_cycle


def implicit_step(force_model, state, dt, gravity, pin_target, settings, held=None, multigrid=None, acceleration=None,
                  goal=None, contact=None, contact_multigrid=False):
    """Advance `state` (every body of the model) by dt in place with settings.integrator; returns the step's stats
    (solves: the solves run, one per Newton iteration;
    cg_iterations: the most CG iterations of any body over the step (all its solves), cg_iterations_sum: of all bodies;
    cg_residual: the largest relative residual of the bodies' last solves; preconditioner: the last solve's;
    converged: per body, whether its last solve met its tolerance before the CG's cap).

    Both integrators are one displacement-form Newton loop. With h = Δt (backward Euler) or h = Δt/2 (Newmark
    β = 1/4, γ = 1/2, the implicit trapezoidal rule) and w = 0 or 1, the step's displacement is
    δ = xⁿ⁺¹ − xⁿ = h (w vⁿ + vⁿ⁺¹) and its momentum balance M (vⁿ⁺¹ − vⁿ) = h (w Fⁿ + Fⁿ⁺¹), where
    F = f(x) + M g − α M v − β K v. Newton iteration k at x_k (v_k = δ_k / h − w vⁿ) solves
        ((1 + αh) M + (βh + h²) K) δx = h M (vⁿ − v_k) + h² (F_k + w Fⁿ)
    with pinned nodes prescribed (δx = target − x_k) and projected out of CG, then x_{k+1} = x_k + δx. (At k = 0,
    x_k = xⁿ, the damping terms of F_k + w Fⁿ cancel or vanish.) The first iteration is warm-started at
    δx = Δt (vⁿ + Δt `acceleration`), the motion extrapolated (the caller passes each node's acceleration predicted
    from the last steps where their CG met its tolerance, zero elsewhere (core.warm_start): extrapolating a capped CG's error made the
    5,184-tet Rubber beam under block-Jacobi capped at 50 swing up to 74 % of its swing off the converged path, against
    27 % from Δt vⁿ; and not Δt² g: with a capped CG that bias never leaves a stiff body, which then rests sagged far
    below its static equilibrium); without contact rows each CG solve balances the momentum of every unpinned body
    exactly, on its warm start and on its result (core.solve.translations.Translations), so free fall is exact and
    costs no CG iteration. Each solve's tolerance is relative to its right-hand side or to the step's weight h² M g,
    whichever is larger: a body at rest has a right-hand side near zero (its forces balance), and a tolerance relative
    to that alone chased rounding (the resting bunny took 111 block-Jacobi iterations a step, its last solve stopped by
    the cap; 61 with the floor, and multigrid 22 against 5). `held`
    (bool per node), if given, replaces the model's pin mask for this step (sleeping bodies are held where they
    are). `multigrid` (a core.solve.multigrid.Multigrid, kept across steps), if given, preconditions the CG when
    settings.preconditioner asks for it. `goal` (ω², targets (N,3), their velocity (N,3), β per node), if given,
    adds the goal springs' forces m ω² (target − x + β (v_target − v)) to F and their stiffness and damping to the
    system's diagonal ((1 + αh + (βh + h²) ω²) M; core.goals). `contact` (a core.contact.problem.ContactProblem), if
    given, solves each
    iteration's system with its rows (contact as one problem), preconditioned away from its contact region by
    multigrid's V-cycle of the system with the rows' curvatures when `contact_multigrid`, else by block-Jacobi.

    Contact under Newmark: a body that the contact rows touch steps with backward Euler (h = Δt, w = 0), the others
    with Newmark, in the same system. Newmark's trapezoidal end velocity 2δ/Δt − vⁿ turns a stopped approach into a
    rebound and leaves the stiff contact and friction rows ringing undamped: a rubber ball resting on a thick plane
    gained speed every step (to 1e4 m/s), even with a converged CG and with the nodes in contact given their mean
    velocity. So Newmark keeps the jiggle of bodies in flight and of pinned ones, and contact is exactly backward
    Euler's. (The contact rows' forces are times Δt², backward Euler's scale, which therefore holds for every body
    with contact rows.)"""
    md = force_model.model
    g = np.asarray(gravity, dtype=np.float64)
    pinned = md.pinned if held is None else held
    newmark = _newmark_nodes(md, settings, contact)
    h_tet = np.full(md.num_tets, dt)
    for body, (t0, t1) in enumerate(md.tet_ranges):
        n0, n1 = md.node_ranges[body]
        if n1 > n0 and newmark[n0]:
            h_tet[t0:t1] = 0.5 * dt
    w = newmark.astype(np.float64)
    h = dt / (1.0 + w)                            # Δt/2 on Newmark nodes
    free = (~pinned).astype(np.float64)
    mass = md.mass
    alpha = md.damping_mass[:, None]
    mass_coef = 1.0 + md.damping_mass * h
    if goal is not None:
        goal_omega2, goal_target, goal_velocity, goal_beta = goal
        goal_stiffness = (mass * goal_omega2)[:, None]
        goal_damping = goal_stiffness * goal_beta[:, None]
        mass_coef = mass_coef + (goal_beta * h + h * h) * goal_omega2
    tet_scale = md.damping_stiffness * h_tet + h_tet * h_tet
    has_beta = bool(md.damping_stiffness.max(initial=0.0) > 0.0)   # (damping is never negative)
    any_newmark = bool(newmark.any())
    x_n, v_n = state.x.copy(), state.v.copy()
    weight = node_rows(h * h * mass, g)
    v_k = np.empty_like(x_n)
    body_its = np.zeros(len(md.node_ranges), dtype=np.int64)
    converged = None   # the contact solve's, when it ran
    stats = {"newton_iterations": 0, "solves": 0, "cg_iterations": 0, "cg_iterations_sum": 0, "cg_residual": 0.0,
             "degenerate_tets": 0,
             "seconds": {"rotations": 0.0, "forces": 0.0, "cg": 0.0}}
    sec = stats["seconds"]
    dx = np.empty_like(x_n)
    force_n = None
    turn = _turn_ahead(state.x, v_n, mass, pinned | newmark, md.node_ranges, dt)
    if turn is not None:
        state.x += turn
    for k in range(settings.newton_iterations):
        t0 = time.perf_counter()
        stats["degenerate_tets"] = force_model.update_rotations(state)
        t1 = time.perf_counter()
        _iterate_velocity(state.x, x_n, v_n, h, w, v_k)
        b = force_model.forces(state.x)
        add_rows(b, mass, g)
        if goal is not None:
            b += goal_stiffness * (goal_target - state.x) + goal_damping * goal_velocity
        if k == 0:
            if any_newmark and settings.newton_iterations > 1:
                force_n = b - alpha * mass[:, None] * v_n
                if has_beta:
                    force_n -= force_model.product(v_n, np.empty_like(v_n), md.damping_stiffness)
                if goal is not None:
                    force_n -= goal_damping * v_n
                force_n *= w[:, None]
            if any_newmark:
                b *= 1.0 + w[:, None]
            if turn is not None:   # the damping at the turned start, whose velocity v_k is turn / Δt
                v_turn = turn / dt
                b -= alpha * mass[:, None] * v_turn
                if has_beta:
                    b -= force_model.product(v_turn, np.empty_like(v_turn), md.damping_stiffness)
                if goal is not None:
                    b -= goal_damping * v_turn
        else:
            b -= alpha * mass[:, None] * v_k
            if has_beta:
                b -= force_model.product(v_k, np.empty_like(v_k), md.damping_stiffness)
            if goal is not None:
                b -= goal_damping * v_k
            if force_n is not None:
                b += force_n
        _impulse_form(b, h, mass, v_n, v_k)
        if k == 0:
            dx[:] = dt * v_n
            if acceleration is not None:
                dx += (dt * dt) * acceleration
            if turn is not None:
                dx -= turn
        else:
            dx[:] = 0.0
        dx[pinned] = pin_target[pinned] - state.x[pinned]
        t2 = time.perf_counter()
        system = linear_system(force_model, mass_coef, tet_scale)
        with solver_threads(md.num_tets):   # (core.threads: the CG's many short kernels)
            if contact is not None:
                contact_mg = _contact_multigrid(system, free, multigrid, state.x) \
                    if contact_multigrid else None
                out = contact.solve(system, b, dx, free, state.x - x_n, settings.cg_tolerance, weight, contact_mg)
                its = [out.iterations] * len(md.node_ranges)
                res, converged = [out.residual], out.converged
                stats["preconditioner"] = "jacobi" if contact_mg is None else "multigrid"
            else:
                its, res, stats["preconditioner"] = _solve(system, b, dx, free, settings, multigrid, state.x, dt,
                                                           weight)
            body_its += its
            last_its = its
            stats["solves"] += 1
        t3 = time.perf_counter()
        state.x += dx
        np.subtract(state.x, x_n, out=state.v)
        state.v /= dt
        stats["newton_iterations"] += 1
        stats["cg_residual"] = max(res)
        sec["rotations"] += t1 - t0
        sec["forces"] += t2 - t1
        sec["cg"] += t3 - t2
    if any_newmark:
        _trapezoidal_end_velocity(state, x_n, v_n, dt, newmark & ~pinned)
    stats["cg_iterations"], stats["cg_iterations_sum"] = int(body_its.max()), int(body_its.sum())
    stats["converged"] = np.array(last_its) < settings.cg_iterations if converged is None else np.full(
        len(last_its), converged)
    return stats


def _turn_ahead(x, v, mass, fixed, node_ranges, dt):
    """(N,3): how far each free body's nodes lie off the straight path x + Δt v after the step's turn: its best-fit
    rigid spin ω (angular momentum over inertia about the centre of mass) turned through ωΔt exactly, less the
    linear Δt ω × r; None where no body turns measurably. The first Newton iteration starts there: from the straight
    path, a spinning body starts each step stretched by ½ (ωΔt)² r, and backward Euler takes that strain's energy
    out of its spin (a stiff free ball lost three quarters of its spin a second, a rolling one stalled). Bodies with a
    `fixed` node (pinned, held or Newmark's) start as before."""
    out = None
    for n0, n1 in node_ranges:
        if n1 - n0 < 2 or fixed[n0:n1].any():
            continue
        m = mass[n0:n1]
        total = m.sum()
        r = x[n0:n1] - (m @ x[n0:n1]) / total
        u = v[n0:n1] - (m @ v[n0:n1]) / total
        momentum = np.cross(r, u).T @ m
        inertia = np.eye(3) * (m @ np.einsum("nd,nd->n", r, r)) - (r * m[:, None]).T @ r
        try:
            omega = np.linalg.solve(inertia, momentum)
        except np.linalg.LinAlgError:
            continue
        angle = float(np.linalg.norm(omega)) * dt
        if not angle > 1e-4:
            continue
        axis = omega * (dt / angle)
        k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
        turned = np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)   # the rotation less the identity (Rodrigues)
        if out is None:
            out = np.zeros_like(x)
        out[n0:n1] = r @ turned.T - dt * np.cross(omega, r)
    return out


def _contact_multigrid(system, free, multigrid, x):
    """A callable (the contact rows' curvature blocks, H's inverse diagonal blocks, the bodies solved) -> vcycle(r, z)
    -> r·z: multigrid's V-cycle of the contact solve's H = A + Jᵀ W J on those bodies, the rows folded into each body's
    levels (core.solve.multigrid); None without multigrid or an assembled A."""
    if multigrid is None or not hasattr(system, "pattern"):
        return None
    t = np.zeros_like(x)
    n = len(x)

    def build(blocks, hinv, bodies):
        # a new key: the rows' curvatures change with each Newton iterate, so the coarse levels are built anew
        bodies = [int(i) for i in bodies]
        hierarchy = multigrid.update(system, x, free, blocks, hinv, object(), bodies)
        fine = fine_operator(system, bodies, blocks)
        omega = hierarchy.omega(bodies)

        def vcycle(r, z):
            return v_cycle(fine, hierarchy, bodies, hinv, free, omega, r, z, t, 0, n)
        return vcycle
    return build


@njit(cache=True)
def _iterate_velocity(x, x_n, v_n, h, w, out):
    """out = v_k = (x − xⁿ) / h − w vⁿ per node."""
    for n in range(x.shape[0]):
        for d in range(3):
            out[n, d] = (x[n, d] - x_n[n, d]) / h[n] - w[n] * v_n[n, d]


@njit(cache=True)
def _impulse_form(b, h, mass, v_n, v_k):
    """b = h² b + h m (vⁿ − v_k) per node: the force sum b as the iteration's right-hand side."""
    for n in range(b.shape[0]):
        hn = h[n]
        for d in range(3):
            b[n, d] = hn * hn * b[n, d] + hn * mass[n] * (v_n[n, d] - v_k[n, d])


def _newmark_nodes(md, settings, contact):
    """Per node: whether its body steps with Newmark (settings.integrator is "newmark" and no contact row touches the
    body)."""
    nodes = np.full(md.num_nodes, settings.integrator == "newmark")
    if nodes.any() and contact is not None and len(contact):
        touched = np.zeros(md.num_nodes, bool)
        touched[contact.node[contact.node >= 0]] = True
        for n0, n1 in md.node_ranges:
            if touched[n0:n1].any():
                nodes[n0:n1] = False
    return nodes


def _trapezoidal_end_velocity(state, x_n, v_n, dt, nodes):
    """Newmark's vⁿ⁺¹ = 2 δ/Δt − vⁿ in state.v (which holds the step's mean velocity δ/Δt) on the given nodes."""
    state.v[nodes] = (2.0 / dt) * (state.x[nodes] - x_n[nodes]) - v_n[nodes]


def _solve(system, b, dx, free, settings, multigrid, x, dt, load):
    """This Newton iteration's CG solve for dx (in place, from its warm start) to settings.cg_tolerance relative to b
    or to `load` (the step's weight), whichever is larger, with the preconditioner settings ask for. Under "auto" each
    body has its own choice (multigrid.choice, core.solve.auto_preconditioner), so a body's motion never depends on
    the others: now and then the body is solved with both from the same start, the winner's solve kept. Returns
    (iterations, residuals, "jacobi" | "multigrid" | "mixed": the preconditioners of the kept solves)."""
    tolerance = settings.cg_tolerance
    if settings.preconditioner == "jacobi" or multigrid is None or not hasattr(system, "pattern"):
        return (*pcg(system, b, dx, free, settings.cg_iterations, tolerance, load=load), "jacobi")
    pinv = system.block_jacobi_inverse()
    if settings.preconditioner == "multigrid":
        hierarchy = multigrid.update(system, x, free, None, pinv, dt)
        its, res = pcg(system, b, dx, free, settings.cg_iterations, tolerance, hierarchy, load=load)
        multigrid.record(max(its))
        return its, res, "multigrid"
    its_all, res_all, kept_all = [0] * len(system.node_ranges), [0.0] * len(system.node_ranges), set()
    for body in range(len(system.node_ranges)):
        choice = multigrid.choice([body])
        names = choice.plan()
        results = {}
        for name in names:
            hierarchy = None
            if name == "multigrid":
                hierarchy = multigrid.update(system, x, free, None, pinv, dt)
            start = dx if len(names) == 1 else dx.copy()
            its, res = pcg(system, b, start, free, settings.cg_iterations, tolerance, hierarchy, only=[body],
                           pinv=pinv, load=load)
            its, res = its[body], res[body]
            results[name] = start, its, res
            if hierarchy is not None:
                multigrid.record(its)
            if its == 0:   # the warm start meets the tolerance (a body in free fall): nothing to compare
                break
            # CG preconditions twice before its first iteration
            choice.record(name, (its + 2) * iteration_work(system, hierarchy, body), res,
                          len(names) > 1 and name == names[-1])
        kept = next(iter(results)) if len(results) == 1 else (choice.best or names[-1])
        start, its, res = results[kept]
        if start is not dx:
            n0, n1 = system.node_ranges[body]
            dx[n0:n1] = start[n0:n1]
        its_all[body], res_all[body] = its, res
        kept_all.add(kept)
    if "multigrid" not in kept_all:
        multigrid.idle()
    return its_all, res_all, kept_all.pop() if len(kept_all) == 1 else "mixed"
