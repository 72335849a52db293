"""Smoothed-aggregation algebraic multigrid for the implicit solve's CG: a V-cycle per body, rigid-mode coarse spaces.

The fine level is the CG's own operator (assembled blocks, the contact rows' curvature blocks, pins filtered out), smoothed
by damped block-Jacobi (the curvature folded into the diagonal), the coarser ones by 6×6 block Gauss–Seidel; each
body's coarse levels are Galerkin products Pᵀ A P, T the aggregates' orthonormalised rigid modes (3 translations,
3 rotations about the node positions), P = (I − ω D⁻¹A) T (smoothed aggregation), down to a small dense
solve; but P = T (plain aggregation: one block per fine row, so the coarse operator has the aggregates' own adjacency)
below the fine level when that first coarse level is not the coarsest. Built and run
by numba kernels over block-CSR arrays (galerkin, vcycle_kernels). The V-cycle (same smoothing before and after) is
symmetric positive definite, so it preconditions CG. Aggregates are rebuilt when the block pattern changes;
the operators' values every Newton iteration."""
import numpy as np
import scipy.linalg.lapack

from ..fem.block_sparse import product as fine_product
from ..jit import get_num_threads
from ..node_rows import dot
from . import galerkin
from .auto_preconditioner import AutoPreconditioner
from .aggregation import aggregate, rigid_modes, tentative
from .vcycle_kernels import block_gauss_seidel, bsr_accumulate, dense_correction

SMOOTHER_DAMPING = 4.0 / 3.0   # ω ρ(D⁻¹A), for the smoother and the prolongator smoothing
COARSEST = 1200                # unknowns solved directly (a dense inverse in single precision: memory-bound, 0.76
                               # against 1.4 ms in double for the Cholesky solves at 1,050 unknowns, measured)
POWER_ITERATIONS = 10          # to estimate ρ(D⁻¹A)
COARSE_SWEEPS = 1              # Gauss–Seidel sweeps (forward before, backward after) below the fine level: 2 took
                               # the same CG iterations on the default cube and the stiff cantilever, at a higher cost
REFRESH = 200                  # Newton iterations a hierarchy's coarse operators are kept at most
REFRESH_GROWTH = 1.5           # ... or until a CG needs this many times (+2) the iterations it needed when fresh


class Multigrid:
    """Per-World cache of each body's aggregation; `update` gives this Newton iteration's V-cycle."""

    def __init__(self, refresh=REFRESH):
        self.refresh = refresh
        self._pattern = None
        self._free = None
        self._aggregates = None
        self._patterns = None
        self.reset()

    def update(self, system, positions, free, blocks, pinv, key, bodies=None):
        """The Hierarchy for `system` (a BlockSparseSystem) with pins `free` (1 free, 0 pinned), the contact rows'
        curvature blocks (block_node, block_coef, block_k; or None) and the fine block-Jacobi inverse pinv (blocks
        folded in). The coarse levels are
        rebuilt from the current values when `key` (the time step) changes, after `refresh` calls, or when the
        CG iterations `record`ed grow by REFRESH_GROWTH over those of the first solve after a rebuild: stale
        coarse operators leave the V-cycle symmetric positive definite, only a little weaker (the fine level
        and the CG always use the current operator), and a rebuild costs several V-cycles. `bodies`, if given: only
        theirs are built (a contact group's); the hierarchy serves those alone."""
        pat = system.pattern
        if pat is not self._pattern or self._free is None or not np.array_equal(free, self._free):
            active = free > 0.0
            self._aggregates = [_aggregates(pat.row_ptr[n0:n1 + 1] - pat.row_ptr[n0],
                                            pat.col[pat.row_ptr[n0]:pat.row_ptr[n1]] - n0, active[n0:n1])
                                for n0, n1 in system.node_ranges]
            self._patterns = [{} for _ in system.node_ranges]
            self._pattern, self._free = pat, free.copy()
            self._bodies = None
            self._built = [None] * len(system.node_ranges)
        grown = (self._fresh_iterations is not None
                 and self._last_iterations > REFRESH_GROWTH * self._fresh_iterations + 2)
        if self._bodies is None or self._age >= self.refresh or key != self._key or grown:
            self._bodies = self._build(system, positions, free, blocks, pinv, bodies)
            self._key, self._age, self._fresh_iterations = key, 0, None
            self._load_norms = {}
        self._age += 1
        return Hierarchy(pinv, [c for c, _ in self._bodies], system.node_ranges, [o for _, o in self._bodies],
                         self._load_norms)

    def reset(self):
        """Forget the hierarchy's values and the "auto" records: later solves depend only on the state and settings.
        The aggregates and the products' patterns stay (they follow from the Model and the pins alone)."""
        self._bodies = None
        self._built = [None] * len(self._aggregates or ())
        self._load_norms = {}
        self._key = None
        self._age = 0
        self._fresh_iterations = None
        self._last_iterations = 0
        self._choices = {}

    def choice(self, bodies):
        """The "auto" preconditioner record (an AutoPreconditioner) of these bodies."""
        return self._choices.setdefault(tuple(bodies), AutoPreconditioner())

    def idle(self):
        """This Newton iteration's CG does without multigrid: the coarse levels will be stale when next wanted."""
        self._bodies = None

    def record(self, iterations):
        """The CG iterations of the solve `update`'s hierarchy just preconditioned (the most of any body)."""
        self._last_iterations = iterations
        if self._fresh_iterations is None:
            self._fresh_iterations = iterations

    def _build(self, system, positions, free, blocks, pinv, only=None):
        """Each body's (first coarse level, fine damping); a body whose fine matrix, inverse diagonal blocks and node
        positions are those of its last build keeps that build's levels (the same, bit for bit): in a contact solve,
        the bodies whose rows' curvatures a Newton step left as they were. only: the bodies to build (None: all; the
        others' entries are (None, 1.0), not to be used)."""
        bodies = []
        pat = system.pattern
        if blocks is None or not len(blocks.block_node):
            node, coef, kb = np.full((0, 1), -1, np.int64), np.zeros((0, 1)), np.zeros((0, 3, 3))
        else:
            node, coef, kb = blocks.block_node, blocks.block_coef, blocks.block_k
        for body, (n0, n1) in enumerate(system.node_ranges):
            if only is not None and body not in only:
                bodies.append((None, 1.0))
                continue
            *a, diag = galerkin.body_matrix(pat.row_ptr, pat.col, system.data, free, n0, n1, node, coef, kb)
            dinv = pinv[n0:n1] * free[n0:n1, None, None]
            last = self._built[body]
            if last is not None and all(np.array_equal(u, w) for u, w in zip(last[0], (a[2], dinv, positions[n0:n1]))):
                bodies.append(last[1])
                continue
            aggs = self._aggregates[body]
            modes = rigid_modes(positions[n0:n1], *aggs[0]) if aggs else None
            bodies.append(_coarse_levels(tuple(a), diag, dinv, modes, aggs, self._patterns[body]))
            self._built[body] = (a[2], dinv, positions[n0:n1].copy()), bodies[-1]
        return bodies


class Hierarchy:
    """One Newton iteration's multigrid: the fine smoother's blocks and damping, and each body's coarse levels."""

    def __init__(self, pinv, bodies, node_ranges, omegas, load_norms):
        self.pinv, self.bodies, self.node_ranges, self._omegas = pinv, bodies, node_ranges, omegas
        self._load_norms = load_norms

    def load_norm(self, bodies, load, precondition):
        """load·M⁻¹load of the load of `bodies` (its weight, the CG tolerance's floor), M⁻¹ the V-cycle as it was at the
        first solve since the coarse levels were built that asked for it (precondition(load) computes it): the
        load only changes with the time step or gravity, and a V-cycle is saved on every solve of a body near rest
        (its right-hand side smaller than its load; about half the steps of the 20k-tet Rubber beam)."""
        key = tuple(bodies)
        known = self._load_norms.get(key)
        if known is None or not np.array_equal(known[0], load):
            known = self._load_norms[key] = load.copy(), precondition(load)
        return known[1]

    def omega(self, bodies):
        """The fine smoothing damping of these bodies: their stiffest body's."""
        return min(self._omegas[body] for body in bodies)

    def coarse_correction(self, r, z, bodies):
        """z += P A_c⁻¹ Pᵀ r (the coarse V-cycle) on the given bodies' rows."""
        for body in bodies:
            n0, n1 = self.node_ranges[body]
            coarse = self.bodies[body]
            if coarse is not None:
                coarse.correct(r[n0:n1], z[n0:n1])

    def coarse_work(self, body):
        """(sparse, dense) multiply-adds of a body's coarse correction (the coarsest level's product is the dense one) and its
        number of levels."""
        sparse = dense = levels = 0
        lv = self.bodies[body]
        while lv is not None:
            sparse += 2 * lv.p[2].size
            if lv.inverse is not None:
                dense += lv.inverse.shape[0] ** 2
            else:
                sparse += (2 * COARSE_SWEEPS + 1) * lv.a[2].size
            lv = lv.next
            levels += 1
        return sparse, dense, levels


class _Level:
    """A coarse level: the transfer from the level above (prolongator P and Pᵀ, block-CSR), its matrix A = Pᵀ A P
    (block-CSR, k×k blocks) with inverse diagonal blocks for Gauss–Seidel, and the next level; or, at the coarsest,
    the dense inverse of A."""

    def __init__(self, p, pt, k):
        self.p, self.pt, self.k = p, pt, k
        self.a = self.diag = self.dinv = self.next = self.inverse = None

    def correct(self, r, z):
        """z += P e, e this level's V-cycle on A e = Pᵀ r (r, z: the level above's residual and correction): the
        coarsest level's dense inverse in one kernel call, or Gauss–Seidel sweeps around the next level's correction."""
        if self.inverse is not None:
            dense_correction(*self.pt, self.inverse, *self.p, r, z)
            return
        b = np.zeros((len(self.pt[0]) - 1, self.k))
        bsr_accumulate(*self.pt, r, b, 1.0)
        x = np.zeros_like(b)
        for _ in range(COARSE_SWEEPS):
            block_gauss_seidel(*self.a, self.diag, self.dinv, x, b, True)
        res = b.copy()
        bsr_accumulate(*self.a, x, res, -1.0)
        self.next.correct(res, x)
        for _ in range(COARSE_SWEEPS):
            block_gauss_seidel(*self.a, self.diag, self.dinv, x, b, False)
        bsr_accumulate(*self.p, x, z, 1.0)


def _aggregates(row_ptr, col, active):
    """Each level's (agg, number of aggregates), fine to coarsest, of a body's node graph (CSR): a level's graph
    links aggregates whose nodes the level above links, until at most COARSEST / 6 aggregates remain.

    Where the node graph's own aggregates are too many for the dense solve but those of its square (nodes two edges
    apart linked) are not, the square's are the one coarse level: smoothed and solved directly, it beats the plain
    first level of a deeper hierarchy (the 100k-tet Rubber beam: 6.5 CG iterations a step against 10.2, in 0.60
    against 0.94 us/tet/step, median of three; measured, benchmarks/RESULTS.md)."""
    agg, num = aggregate(row_ptr, col, active)
    if 6 * num > COARSEST:
        agg2, num2 = aggregate(*galerkin.product_pattern(row_ptr, col, row_ptr, col, len(active)), active)
        if 0 < num2 < len(agg2) and 6 * num2 <= COARSEST:
            return [(agg2, num2)]
    levels = []
    while num > 0 and num < len(agg):
        levels.append((agg, num))
        if 6 * num <= COARSEST:
            break
        member = galerkin.tentative_csr(agg, np.ones((len(agg), 1, 1)))
        graph = (row_ptr, col, np.ones((len(col), 1, 1)))
        row_ptr, col, _ = galerkin.product(*galerkin.transpose(*member, num), *galerkin.product(*graph, *member, num),
                                           num)
        agg, num = aggregate(row_ptr, col, np.ones(num, bool))
    return levels


def _coarse_levels(a, diag, dinv, modes, aggs, patterns):
    """(the first coarse _Level or None, the fine smoother's damping) below fine matrix a (block-CSR, 3×3 blocks,
    its diagonal blocks' indices diag) with inverse diagonal blocks dinv: each level's aggregates from aggs, rigid
    modes (n, 3, 6) of the fine nodes;
    patterns (a dict) keeps the products' block patterns from one build to the next (they stay while the
    aggregates do)."""
    omega = SMOOTHER_DAMPING / _spectral_radius(a, dinv, diag)
    fine_omega, first, above = omega, None, None
    for level, (agg, num_agg) in enumerate(aggs):
        t, r = tentative(np.where(agg >= 0, agg, 0), num_agg, modes * (agg >= 0)[:, None, None])
        p = galerkin.tentative_csr(agg, t)
        if level > 0 or len(aggs) == 1:
            # a first level with levels below has P = T itself: smoothed, its operator was as large as the fine one
            # (40 6×6 blocks a row on the default cube, 12 with T) and the V-cycle cost 3.6x as much, for 10 CG
            # iterations against 12; a first level solved densely costs the same either way, and smoothing saves
            # iterations there (4.5 against 5.8 per step at 20k tets, E = 3.6e6) (measured; benchmarks/RESULTS.md)
            at = _product(patterns, (level, "at"), a, p, num_agg)
            p = (at[0], at[1], galerkin.smoothed_prolongator(*at, dinv, agg, t, omega))
        pt = galerkin.transpose(*p, num_agg)
        ac = _product(patterns, (level, "ac"), pt, _product(patterns, (level, "ap"), a, p, num_agg), num_agg)
        diag = galerkin.diagonal_indices(ac[0], ac[1])
        blocks = ac[2][diag]
        # unknowns of a dependent mode zeroed (tiny aggregates) are decoupled: unit diagonal
        d = np.einsum("nii->ni", blocks)
        dead = ~(d > 1e-14 * max(d.max(), 1e-300))
        blocks[dead[:, :, None] & np.eye(d.shape[1], dtype=bool)] = 1.0
        ac[2][diag] = blocks
        lv = _Level(p, pt, d.shape[1])
        if above is None:
            first = lv
        else:
            above.next = lv
        if level == len(aggs) - 1:
            lv.inverse = _dense_inverse(ac)
            return first, fine_omega
        lv.a, lv.diag, lv.dinv = ac, diag, _safe_inverse(blocks)
        a, dinv = ac, lv.dinv
        omega = SMOOTHER_DAMPING / _spectral_radius(a, dinv, diag)
        modes, above = r, lv
    return first, fine_omega


def _product(patterns, key, a, b, num_cols):
    """galerkin.product of block-CSR a and b, its pattern computed once and kept in `patterns` under `key`."""
    if key not in patterns:
        patterns[key] = galerkin.product_pattern(a[0], a[1], b[0], b[1], num_cols)
    return galerkin.product(*a, *b, num_cols, patterns[key])


def _dense_inverse(a):
    """The inverse of the coarsest matrix a (block-CSR) made dense, in single precision (shifted by a trace fraction
    if singular in floating point). Applying it is one product split across threads:
    0.1 against 0.45 ms for the two serial triangular solves with the factor at 1,200 unknowns (measured)."""
    row_ptr, col, data = a
    n, k = len(row_ptr) - 1, data.shape[1]
    dense = np.zeros((n, k, n, k))
    dense[np.repeat(np.arange(n), np.diff(row_ptr)), :, col, :] = data
    dense = dense.reshape(n * k, n * k)
    dense = 0.5 * (dense + dense.T)
    inverse, info = _spd_inverse(dense)
    if info != 0:
        inverse, info = _spd_inverse(dense + 1e-10 * np.trace(dense) / len(dense) * np.eye(len(dense)))
    if info != 0:
        raise np.linalg.LinAlgError("the coarsest multigrid level is not positive definite")
    upper = np.triu(inverse)
    return np.ascontiguousarray((upper + np.triu(upper, 1).T).astype(np.float32))


def _spd_inverse(dense):
    """LAPACK's inverse of a symmetric positive definite matrix from its Cholesky factor (potrf, potri: n³ flops, a
    third of a triangular inverse and a product), its upper triangle; and LAPACK's info (0: done)."""
    factor, info = scipy.linalg.lapack.dpotrf(dense, lower=False)
    if info != 0:
        return factor, info
    return scipy.linalg.lapack.dpotri(factor, lower=False)


def _safe_inverse(blocks):
    out = np.zeros_like(blocks)
    ok = np.linalg.det(blocks) > 0.0
    out[ok] = np.linalg.inv(blocks[ok])
    return out


def _spectral_radius(a, dinv, diag):
    """ρ(D⁻¹A) by power iteration (a slight underestimate; SMOOTHER_DAMPING leaves margin below 2); diag: a's diagonal
    blocks' indices."""
    row_ptr, col, data = a
    v = np.random.default_rng(0).standard_normal(dinv.shape[:2])
    lam = 1.0
    for _ in range(POWER_ITERATIONS):
        w = np.zeros_like(v)
        if data.shape[1] == 3:
            fine_product(row_ptr, col, diag, data, v, np.ones(len(v)), w, 0, len(v), get_num_threads() == 1)
        else:
            bsr_accumulate(row_ptr, col, data, v, w, 1.0)
        w = np.einsum("nij,nj->ni", dinv, w)
        norm = np.sqrt(dot(w, w))
        if not norm > 0.0:
            return 1.0
        lam = norm / max(np.sqrt(dot(v, v)), 1e-300)
        v = w / norm
    return lam * 1.05
