"""Smoothed-aggregation algebraic multigrid for the implicit solve's CG: a V-cycle per body, rigid-mode coarse spaces.

The fine level is the CG's own operator (assembled blocks, contact penalty blocks, pins filtered out), smoothed
by damped block-Jacobi (the penalty folded into the diagonal), the coarser ones by Gauss–Seidel; each body's coarse levels are Galerkin products
P̃ᵀ A P̃ with P̃ = (I − ω D⁻¹A) T, T the aggregates' orthonormalised rigid modes (3 translations, 3 rotations
about the node positions), down to a small dense direct solve. The V-cycle (same smoothing before and after) is
symmetric positive definite, so it preconditions CG. Aggregates are rebuilt when the block pattern changes;
the operators' values every Newton iteration."""
import numpy as np
import scipy.sparse as sp

from .aggregation import aggregate, gauss_seidel, rigid_modes, tentative

SMOOTHER_DAMPING = 4.0 / 3.0   # ω ρ(D⁻¹A), for the smoother and the prolongator smoothing
COARSEST = 1200                # unknowns solved directly (dense inverse)
POWER_ITERATIONS = 10          # to estimate ρ(D⁻¹A)
COARSE_SWEEPS = 2              # Gauss–Seidel sweeps (forward before, backward after) below the fine level
REFRESH = 200                  # Newton iterations a hierarchy's coarse operators are kept at most
REFRESH_GROWTH = 1.5           # ... or until a CG needs this many times (+2) the iterations it needed when fresh


class Multigrid:
    """Per-World cache of each body's aggregation; `update` gives this Newton iteration's V-cycle."""

    def __init__(self, refresh=REFRESH):
        self.refresh = refresh
        self._pattern = None
        self._free = None
        self._aggregates = None
        self._bodies = None
        self._key = None
        self._age = 0
        self._fresh_iterations = None
        self._last_iterations = 0

    def update(self, system, positions, free, penalty, pinv, key):
        """The Hierarchy for `system` (a BlockSparseSystem) with pins `free` (1 free, 0 pinned), the contact
        penalty (or None) and the fine block-Jacobi inverse pinv (penalty folded in). The coarse levels are
        rebuilt from the current values when `key` (the time step) changes, after `refresh` calls, or when the
        CG iterations `record`ed grow by REFRESH_GROWTH over those of the first solve after a rebuild: stale
        coarse operators leave the V-cycle symmetric positive definite, only a little weaker (the fine level
        and the CG always use the current operator), and a rebuild costs several V-cycles."""
        pat = system.pattern
        if pat is not self._pattern or self._free is None or not np.array_equal(free, self._free):
            active = free > 0.0
            self._aggregates = [_aggregates(pat.row_ptr[n0:n1 + 1] - pat.row_ptr[n0],
                                            pat.col[pat.row_ptr[n0]:pat.row_ptr[n1]] - n0, active[n0:n1])
                                for n0, n1 in system.node_ranges]
            self._pattern, self._free = pat, free.copy()
            self._bodies = None
        grown = (self._fresh_iterations is not None
                 and self._last_iterations > REFRESH_GROWTH * self._fresh_iterations + 2)
        if self._bodies is None or self._age >= self.refresh or key != self._key or grown:
            self._bodies = self._build(system, positions, free, penalty, pinv)
            self._key, self._age, self._fresh_iterations = key, 0, None
        self._age += 1
        return Hierarchy(pinv, self._bodies, system.node_ranges)

    def record(self, iterations):
        """The CG iterations of the solve `update`'s hierarchy just preconditioned (the most of any body)."""
        self._last_iterations = iterations
        if self._fresh_iterations is None:
            self._fresh_iterations = iterations

    def _build(self, system, positions, free, penalty, pinv):
        bodies = []
        for body, (n0, n1) in enumerate(system.node_ranges):
            a = _body_matrix(system, penalty, free, n0, n1)
            aggs = self._aggregates[body]
            dinv = _block_diagonal(pinv[n0:n1] * free[n0:n1, None, None])
            modes = rigid_modes(positions[n0:n1], *aggs[0]) if aggs else None
            bodies.append(_coarse_levels(a, dinv, modes, aggs))
        return bodies


class Hierarchy:
    """One Newton iteration's multigrid: the fine smoother's blocks and damping, and each body's coarse levels."""

    def __init__(self, pinv, bodies, node_ranges):
        self.pinv, self.bodies, self.node_ranges = pinv, bodies, node_ranges
        self.omega = min(b.omega for b in bodies)   # fine smoothing damping of an island: its stiffest body's

    def coarse_correction(self, r, z, bodies):
        """z += P A_c⁻¹ Pᵀ r (the coarse V-cycle) on the given bodies' rows."""
        for body in bodies:
            n0, n1 = self.node_ranges[body]
            lv = self.bodies[body]
            if lv.p is None:
                continue
            z[n0:n1] += (lv.p @ lv.solve(lv.pt @ r[n0:n1].ravel())).reshape(-1, 3)


class _Level:
    """A (CSR), block-Jacobi inverse dinv (block-diagonal CSR), damping omega, prolongator p (None at the
    coarsest), and the next level (or the coarsest's dense inverse)."""

    def __init__(self, a, dinv, omega):
        self.a, self.dinv, self.omega = a, dinv, omega
        self.p = self.pt = self.next = self.inverse = None

    def solve(self, b):
        """The V-cycle on this level's A_c e = b (the level below: Pᵀ-restricted)."""
        lv = self.next
        if lv.inverse is not None:
            return (lv.inverse @ b.astype(np.float32)).astype(np.float64)
        a = lv.a
        x = np.zeros_like(b)
        for _ in range(COARSE_SWEEPS):
            gauss_seidel(a.indptr, a.indices, a.data, x, b, True)
        x += lv.p @ lv.solve(lv.pt @ (b - a @ x))
        for _ in range(COARSE_SWEEPS):
            gauss_seidel(a.indptr, a.indices, a.data, x, b, False)
        return x


def _aggregates(row_ptr, col, active):
    """Each level's (agg, number of aggregates), fine to coarsest, of a body's node graph (CSR): a level's graph
    links aggregates whose nodes the level above links, until at most COARSEST / 6 aggregates remain."""
    levels = []
    while True:
        agg, num = aggregate(row_ptr, col, active)
        if num == 0 or num == len(agg):
            return levels
        levels.append((agg, num))
        if 6 * num <= COARSEST:
            return levels
        n = len(agg)
        inside = agg >= 0
        member = sp.csr_matrix((np.ones(inside.sum()), (np.flatnonzero(inside), agg[inside])), shape=(n, num))
        graph = sp.csr_matrix((np.ones(len(col)), col, row_ptr), shape=(n, n))
        coarse = (member.T @ graph @ member).tocsr()
        coarse.sort_indices()
        row_ptr, col, active = coarse.indptr.astype(np.int64), coarse.indices.astype(np.int64), np.ones(num, bool)


def _coarse_levels(a, dinv, modes, aggs):
    """The levels below fine matrix a (CSR) with block-Jacobi inverse dinv: each level's aggregates from aggs,
    rigid modes (n, 3, 6) of the fine nodes."""
    fine = _Level(a, dinv, SMOOTHER_DAMPING / _spectral_radius(a, dinv))
    lv = fine
    for level, (agg, num_agg) in enumerate(aggs):
        bs = modes.shape[1]
        t, r = tentative(np.where(agg >= 0, agg, 0), num_agg, modes * (agg >= 0)[:, None, None])
        n = len(agg)
        k = modes.shape[2]
        tmat = sp.bsr_matrix((t, np.maximum(agg, 0), np.arange(n + 1)), shape=(n * bs, num_agg * k)).tocsr()
        p = (tmat - lv.omega * (lv.dinv @ (lv.a @ tmat))).tocsr()
        lv.p, lv.pt = p, p.T.tocsr()
        ac = (lv.pt @ lv.a @ p).tocsr()
        # columns a dependent mode zeroed (tiny aggregates) are decoupled: unit diagonal
        d = ac.diagonal()
        dead = ~(d > 1e-14 * max(d.max(), 1e-300))
        if dead.any():
            ac = (ac + sp.diags(dead.astype(float))).tocsr()
        nxt = _Level(ac, None, 0.0)
        lv.next = nxt
        if level == len(aggs) - 1:
            nxt.inverse = _inverse(ac)
            return fine
        cb = ac.tobsr(blocksize=(k, k))
        cb.sort_indices()
        nxt.dinv = _block_diagonal(_safe_inverse(_diagonal_blocks(cb)))
        nxt.omega = SMOOTHER_DAMPING / _spectral_radius(ac, nxt.dinv)
        modes, lv = r, nxt
    return fine


def _inverse(a):
    """Dense inverse of the coarsest matrix, symmetrised, in single precision: its one matrix-vector product per
    V-cycle takes a third of the double-precision time at 1,000 unknowns (measured), and the rounding (~1e-7) is
    far below the CG's tolerance."""
    dense = a.toarray()
    try:
        inv = np.linalg.inv(dense)
    except np.linalg.LinAlgError:   # singular in floating point: shift by a trace fraction
        inv = np.linalg.inv(dense + 1e-10 * np.trace(dense) / len(dense) * np.eye(len(dense)))
    return (0.5 * (inv + inv.T)).astype(np.float32)


def _diagonal_blocks(b):
    """The diagonal blocks (n, k, k) of a square BSR matrix with sorted indices."""
    n = b.shape[0] // b.blocksize[0]
    rows = np.repeat(np.arange(n), np.diff(b.indptr))
    out = np.zeros((n,) + b.blocksize)
    on = rows == b.indices
    out[rows[on]] = b.data[on]
    return out


def _safe_inverse(blocks):
    out = np.zeros_like(blocks)
    ok = np.linalg.det(blocks) > 0.0
    out[ok] = np.linalg.inv(blocks[ok])
    return out


def _block_diagonal(blocks):
    n, k, _ = blocks.shape
    return sp.bsr_matrix((blocks, np.arange(n), np.arange(n + 1)), shape=(n * k, n * k)).tocsr()


def _spectral_radius(a, dinv):
    """ρ(D⁻¹A) by power iteration (a slight underestimate; SMOOTHER_DAMPING leaves margin below 2)."""
    rng = np.random.default_rng(0)
    v = rng.standard_normal(a.shape[0])
    lam = 1.0
    for _ in range(POWER_ITERATIONS):
        w = dinv @ (a @ v)
        norm = np.linalg.norm(w)
        if not norm > 0.0:
            return 1.0
        lam = norm / max(np.linalg.norm(v), 1e-300)
        v = w / norm
    return lam * 1.05


def _body_matrix(system, penalty, free, n0, n1):
    """Body rows/columns n0:n1 of S (A + penalty) S as CSR (S zeroes pinned nodes' rows and columns)."""
    pat = system.pattern
    k0, k1 = pat.row_ptr[n0], pat.row_ptr[n1]
    n = n1 - n0
    rows = np.repeat(np.arange(n), np.diff(pat.row_ptr[n0:n1 + 1]))
    cols = pat.col[k0:k1] - n0
    f = free[n0:n1]
    data = system.data[k0:k1] * (f[rows] * f[cols])[:, None, None]
    a = sp.bsr_matrix((data, cols, pat.row_ptr[n0:n1 + 1] - k0), shape=(3 * n, 3 * n)).tocsr()
    if penalty is None or not len(penalty.block_node):
        return a
    node, coef, kb = penalty.block_node, penalty.block_coef, penalty.block_k
    inside = (node >= n0) & (node < n1)
    b, s, t = np.nonzero(inside[:, :, None] & inside[:, None, :])
    if not len(b):
        return a
    i, j = node[b, s] - n0, node[b, t] - n0
    w = coef[b, s] * coef[b, t] * f[i] * f[j]
    vals = w[:, None, None] * kb[b]
    q = np.arange(3)
    r = (3 * i[:, None, None] + q[None, :, None]) + 0 * q[None, None, :]
    c = (3 * j[:, None, None] + q[None, None, :]) + 0 * q[None, :, None]
    pen = sp.csr_matrix((vals.ravel(), (r.ravel(), c.ravel())), shape=(3 * n, 3 * n))
    return (a + pen).tocsr()
