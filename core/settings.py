"""SolverSettings: the integrator's knobs (Newton and CG caps, tolerances, stress differential, DAPD)."""
import math

from .errors import InvalidInputError

STRESS_DIFFERENTIALS = ("hybrid", "warped", "exact")
PRECONDITIONERS = ("auto", "multigrid", "jacobi")
INTEGRATORS = ("backward_euler", "newmark")
# Newton iterations per step when none are given. The trapezoidal rule conserves energy only where its nonlinear
# equations are solved. Measured on a free-swinging 1 m cantilever at Δt = 1/96 s: with one iteration its
# linearisation error took 29 % of the energy in 10 periods (hybrid differential), or added 1.8 % in 2.4 periods of a
# large swing (warped); with two, it stayed within 0.1 % and 0.6 %.
NEWTON_ITERATIONS = {"backward_euler": 1, "newmark": 2}


class SolverSettings:
    """Integrator settings.

    newton_iterations: Newton iterations per step; default (None): 1 for backward Euler, 2 for Newmark
        (NEWTON_ITERATIONS).
    cg_iterations: cap on preconditioned CG iterations per Newton iteration.
    cg_tolerance: CG stops when the preconditioned residual falls below this fraction of the initial one.
    stress_differential: "hybrid" (default; symmetric PSD), "warped" (δP(2), classic warped stiffness)
        or "exact" (the exact corotational differential; not always PSD, for reference).
    dapd_alpha: det F threshold below which a tet counts as collapsed (DAPD), default 0.1.
    dapd_beta: gain of the virtual un-inversion ramp, default 3.
    static_tolerance: solve_static stops when |residual force| <= this × |external force|
        or its Newton update is below this × the size of the bodies.
    static_iterations: cap on solve_static Newton iterations.
    integrator: "backward_euler" (default: L-stable, its numerical damping grows with Δt) or "newmark" (implicit
        trapezoidal, Newmark β = 1/4, γ = 1/2: no numerical damping, the jiggle keeps its amplitude; see
        core.solve.implicit_step for how contact acts on it). World.solve_static is the static solve.
    preconditioner: of the CG: "multigrid" (smoothed-aggregation AMG V-cycle; its iteration count barely
        grows with stiffness or mesh size), "jacobi" (3×3 block-Jacobi) or "auto" (default: whichever of the two
        reduces the residual for less work, compared on the same solve now and then, see
        core.solve.auto_preconditioner).
    """

    def __init__(self, newton_iterations=None, cg_iterations=40, cg_tolerance=1e-3,
                 stress_differential="hybrid", dapd_alpha=0.1, dapd_beta=3.0,
                 static_tolerance=1e-9, static_iterations=50, preconditioner="auto",
                 integrator="backward_euler"):
        self.cg_iterations = _count("cg_iterations", cg_iterations)
        self.static_iterations = _count("static_iterations", static_iterations)
        self.cg_tolerance = _positive("cg_tolerance", cg_tolerance)
        self.static_tolerance = _positive("static_tolerance", static_tolerance)
        self.dapd_alpha = _positive("dapd_alpha", dapd_alpha)
        self.dapd_beta = _positive("dapd_beta", dapd_beta)
        if self.dapd_alpha >= 1.0:
            raise InvalidInputError(f"dapd_alpha must be in (0, 1), got {self.dapd_alpha}")
        if stress_differential not in STRESS_DIFFERENTIALS:
            raise InvalidInputError(
                f"stress_differential must be one of {STRESS_DIFFERENTIALS}, got {stress_differential!r}")
        self.stress_differential = stress_differential
        if preconditioner not in PRECONDITIONERS:
            raise InvalidInputError(f"preconditioner must be one of {PRECONDITIONERS}, got {preconditioner!r}")
        self.preconditioner = preconditioner
        if integrator not in INTEGRATORS:
            raise InvalidInputError(f"integrator must be one of {INTEGRATORS}, got {integrator!r}")
        self.integrator = integrator
        self.newton_iterations = (NEWTON_ITERATIONS[integrator] if newton_iterations is None
                                  else _count("newton_iterations", newton_iterations))

    def __repr__(self):
        return "SolverSettings(" + ", ".join(f"{k}={v!r}" for k, v in vars(self).items()) + ")"


def _count(name, value):
    try:
        ok = not isinstance(value, bool) and float(value).is_integer()
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    value = int(value)
    if value < 1:
        raise InvalidInputError(f"{name} must be >= 1, got {value}")
    return value


def _positive(name, value):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be a positive finite number, got {value!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise InvalidInputError(f"{name} must be a positive finite number, got {value}")
    return value
