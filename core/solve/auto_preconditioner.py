"""The "auto" CG preconditioner: block-Jacobi or multigrid, whichever reduces the residual for less work, as measured
on the solves themselves (iterations and residual reached): now and then one solve runs with both from the same
start, to compare them on the same system.

Work is counted in multiply-adds from the matrices' sizes, not timed, so a scene steps the same on every run and
machine. Counted this way the kernels ran at 0.4-0.6 ns per multiply-add on this project's 2-core test machine
(fine and coarse block products, Gauss–Seidel sweeps, restriction and prolongation alike; the coarsest level's dense
product at 0.1-0.2 ns, contiguous in SIMD lanes, hence its weight 0.4), and each kernel call costs ~8 us on top
(which decides for small bodies: a 648-tet beam's block-Jacobi iteration took 40 us, its V-cycle 147 us), so the
count ranks the two preconditioners as their running times do."""
import math

# Stiffness number E Δt² / (ρ h²) (h: a body's mean tet edge) above which block-Jacobi is too weak for a body. Measured
# through core at the add-on's settings, multigrid rebuilt every frame (benchmarks/preconditioner_choice.py, RESULTS.md,
# load ~5): multigrid never cost less per frame (1.1-2.1x block-Jacobi's), so it is used where block-Jacobi, stopped at
# its cap of 50, is off a converged run: by 0.01 % of the body's size on the default cube (S = 28; multigrid 0.04 %),
# but 0.37 % (4 mm) on a 1 m ball at S = 39 and 2.5 % on a 1 m cantilever at S = 39 (multigrid 0.01 %). A slender
# pinned body drifts below the threshold too (the cantilever: 1.3 % at S = 28).
MULTIGRID_STIFFNESS = 30.0

WARMUP = 1               # first solves not measured: gravity coming on from rest is unlike the steps that follow
RECHECK = 48             # solves between comparisons ...
RECHECK_MAX = 8 * RECHECK  # ... doubled, up to this, each time the one in use wins again
DRIFT = 1.5              # ... or once the one in use costs this many times the other's last measure
MULTIGRID_MARGIN = 1.25  # multigrid wins a comparison by this factor: on two stacked default cubes its V-cycle took
                         # 1.67x block-Jacobi's time per decade while its count here said 1.39x (measured)
DENSE_WEIGHT = 0.4       # a dense product's multiply-add, in sparse product multiply-adds (24 us for 354² on one
                         # thread, the resting bunny's; 0.15 ms for 1,200² on two, the 20k-tet beam's)
VECTOR_WORK = 30.0       # per node and CG iteration: the CG's vector updates and dot products
CALL_WORK = 17000.0      # a kernel call's fixed cost (Python, numba dispatch, allocation: ~8 us), in multiply-adds
JACOBI_CALLS = 2         # kernel calls per CG iteration with block-Jacobi (the product, the fused update) ...
V_CYCLE_CALLS = 13       # ... with multigrid, plus LEVEL_CALLS per coarse level: calibrated as calls when the V-cycle
LEVEL_CALLS = 7          # made 13 + 7 of them (with 8 and 4 the count made the V-cycle 3.9x a block-Jacobi iteration
                         # while it took 5.2x on the default cube, and "auto" kept multigrid there at 45-48 ms/step
                         # against block-Jacobi's 38-39). Fused into 6 calls since, the resting bunny's V-cycle took
                         # 184 against 193 us: its time is the kernels' work, so the calibration stands


def stiff_for_jacobi(material, edge, dt):
    """Whether a body of this core.Material, cage mean edge `edge` (m) and time step needs multigrid: its stiffness
    number E Δt² / (ρ h²) above MULTIGRID_STIFFNESS."""
    return material.youngs_modulus * dt * dt / (material.density * edge * edge) > MULTIGRID_STIFFNESS


class AutoPreconditioner:
    """A body's record of each preconditioner's last measured work per decade of residual reduction, and the one
    in use: the winner of the last comparison."""

    def __init__(self):
        self.cost = {}
        self.best = None
        self._solves = 0
        self._since = 0
        self._interval = RECHECK

    def plan(self):
        """The preconditioners of the next solve: block-Jacobi for WARMUP solves (the cheap guess: multigrid's first
        solve builds its hierarchy), then both from the same start (the winner's solve kept), then the winner alone; both
        again after an interval, or as soon as the winner's cost grows DRIFT times past the loser's last. Block-Jacobi
        comes first in a comparison: where the warm start already meets the tolerance (free fall) the caller stops
        there, and no hierarchy is built."""
        self._solves += 1
        if self._solves <= WARMUP:
            return ["jacobi"]
        if self.best is None:
            return ["jacobi", "multigrid"]
        self._since += 1
        other = _other(self.best)
        if self._since >= self._interval or self.cost[self.best] > DRIFT * self.cost[other]:
            self._since = 0
            return ["jacobi", "multigrid"]
        return [self.best]

    def record(self, name, work, residual, compared):
        """A solve by `name` did `work` multiply-adds and left relative residual `residual`; `compared`: it is the
        second of a comparison (the other one just solved the same system)."""
        if self._solves <= WARMUP:
            return
        decades = -math.log10(max(residual, 1e-12))
        self.cost[name] = work / decades if decades > 0.05 else math.inf
        if compared and len(self.cost) == 2:   # the other may not have run (a warm start that met the tolerance)
            best = "multigrid" if MULTIGRID_MARGIN * self.cost["multigrid"] < self.cost["jacobi"] else "jacobi"
            self._interval = min(2 * self._interval, RECHECK_MAX) if best == self.best else RECHECK
            self.best = best


def _other(name):
    return "jacobi" if name == "multigrid" else "multigrid"


def iteration_work(system, hierarchy, body):
    """Multiply-adds of one CG iteration (with its preconditioning) on a body. hierarchy: the multigrid's, or None for
    block-Jacobi (multigrid applies the operator three times per iteration)."""
    pat = system.pattern
    n0, n1 = system.node_ranges[body]
    apply = 9.0 * (pat.row_ptr[n1] - pat.row_ptr[n0])
    n = n1 - n0
    if hierarchy is None:
        return apply + (9.0 + VECTOR_WORK) * n + JACOBI_CALLS * CALL_WORK
    sparse, dense, levels = hierarchy.coarse_work(body)
    return (3.0 * apply + (18.0 + VECTOR_WORK) * n + sparse + DENSE_WEIGHT * dense
            + (V_CYCLE_CALLS + LEVEL_CALLS * levels) * CALL_WORK)
