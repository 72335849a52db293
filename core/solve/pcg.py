"""Block-Jacobi preconditioned conjugate gradients per body (or pile of touching bodies), with per-node constraint projection (Baraff–Witkin filter)."""
import numpy as np

from ..contact.penalty import penalty_product
from ..fem.block_sparse import row_product, upper_product
from ..jit import FAST_SUMS, get_num_threads, njit, prange
from ..node_rows import dot, masked_difference
from .islands import islands
from .translations import Translations


@njit(cache=True)
def _block_solve(pinv, r, free, z, n):
    """z[n] = free[n] P⁻¹ₙ r[n]; returns r[n]·z[n]."""
    f = free[n]
    z0 = f * (pinv[n, 0, 0] * r[n, 0] + pinv[n, 0, 1] * r[n, 1] + pinv[n, 0, 2] * r[n, 2])
    z1 = f * (pinv[n, 1, 0] * r[n, 0] + pinv[n, 1, 1] * r[n, 1] + pinv[n, 1, 2] * r[n, 2])
    z2 = f * (pinv[n, 2, 0] * r[n, 0] + pinv[n, 2, 1] * r[n, 1] + pinv[n, 2, 2] * r[n, 2])
    z[n, 0], z[n, 1], z[n, 2] = z0, z1, z2
    return r[n, 0] * z0 + r[n, 1] * z1 + r[n, 2] * z2


@njit(parallel=True, cache=True)
def _precondition(pinv, r, free, z):
    """z = S P⁻¹ r; returns r·z."""
    acc = 0.0
    for n in prange(r.shape[0]):
        acc += _block_solve(pinv, r, free, z, n)
    return acc


@njit(parallel=True, cache=True)
def _step_and_precondition(x, r, p, ap, step, pinv, free, z):
    """x += step p, r −= step ap, z = S P⁻¹ r; returns r·z."""
    acc = 0.0
    for n in prange(x.shape[0]):
        for k in range(3):
            x[n, k] += step * p[n, k]
            r[n, k] -= step * ap[n, k]
        acc += _block_solve(pinv, r, free, z, n)
    return acc


@njit(parallel=True, cache=True, fastmath=FAST_SUMS)
def _fine_smoothing(row_ptr, col, diag, data, ranges, pnode, pcoef, pk, pblocks, pinv, free, omega, vec, z, t, lo, hi,
                    post, serial):
    """One half of the V-cycle's fine level on an island's rows lo ≤ n < hi (vec: those rows; z, t: whole-model; the
    island's bodies' block rows `ranges` and contact blocks `pblocks`). Before the coarse correction (post False):
    z = ω S P⁻¹ vec, then t = vec − S A z. After it (post True): t = vec − S A z, then z += ω S P⁻¹ t; returns vec·z.
    serial: as in _assembled_jacobi_iterations. Each parallel loop wakes the sleeping OpenMP pool (~15-25 us,
    measured): on more than one thread the residual is taken in the product's loop where no contact block adds to it,
    so a half is two loops, not four. (One call in place of eight kernels and numpy operations: the resting bunny's
    V-cycle took 184 against 193 us.)"""
    single = pblocks.shape[0] == 0 and ranges.shape[0] == 1 and ranges[0, 0] == lo and ranges[0, 1] == hi \
        and not serial
    if not post or not single:
        for n in prange(lo, hi):
            if not post:
                f = omega * free[n]
                for i in range(3):
                    z[n, i] = f * (pinv[n, i, 0] * vec[n - lo, 0] + pinv[n, i, 1] * vec[n - lo, 1]
                                   + pinv[n, i, 2] * vec[n - lo, 2])
            if not single:
                t[n, 0] = t[n, 1] = t[n, 2] = 0.0
    for body in range(ranges.shape[0]):
        if serial:
            upper_product(row_ptr, col, diag, data, z, free, t, ranges[body, 0], ranges[body, 1])
            continue
        for n in prange(ranges[body, 0], ranges[body, 1]):
            row_product(row_ptr, col, data, z, free, t, n)
            if single:
                for i in range(3):
                    t[n, i] = vec[n - lo, i] - t[n, i]
    if pblocks.shape[0]:
        penalty_product(pnode, pcoef, pk, pblocks, z, free, t)
    acc = 0.0
    if post or not single:
        for n in prange(lo, hi):
            if not single:
                for i in range(3):
                    t[n, i] = vec[n - lo, i] - t[n, i]
            if post:
                f = omega * free[n]
                for i in range(3):
                    z[n, i] += f * (pinv[n, i, 0] * t[n, 0] + pinv[n, i, 1] * t[n, 1] + pinv[n, i, 2] * t[n, 2])
                acc += vec[n - lo, 0] * z[n, 0] + vec[n - lo, 1] * z[n, 1] + vec[n - lo, 2] * z[n, 2]
    return acc


@njit(parallel=True, cache=True)
def _advance(x, r, p, ap, step):
    """x += step p, r −= step ap."""
    for n in prange(x.shape[0]):
        for k in range(3):
            x[n, k] += step * p[n, k]
            r[n, k] -= step * ap[n, k]


@njit(parallel=True, cache=True, fastmath=FAST_SUMS)
def _assembled_jacobi_iterations(row_ptr, col, diag, data, ranges, pnode, pcoef, pk, pblocks, pinv, free, x, r, p, z,
                                 ap, rz, limit, max_iterations, serial, coarse_ranges, coarse_inverse):
    """The iterations of block-Jacobi CG on assembled blocks in one kernel (a Python loop of kernel calls spent
    ~25 µs an iteration in dispatch, a fifth of a small body's step): the island's bodies' block rows `ranges` (B,2)
    (its vector updates too: in a pile, looping over the whole model's rows made a 2-body island's iteration cost twice
    two bodies') and its contact penalty blocks `pblocks`, from r, z = S P⁻¹ r, p = z and rz = r·z,
    until rz ≤ limit or max_iterations. Whole-model arrays. serial: the kernels run on one thread (the products then
    read the upper blocks alone, block_sparse.upper_product). coarse_ranges (C,2), coarse_inverse (3C,3C): bodies
    whose rigid translations are added to the preconditioner as a coarse space (Translations.coarse; C = 0 for
    none): z += R (Rᵀ A R)⁻¹ Rᵀ r, additively; p is set from that on entry. The stopping test and the rz returned
    stay block-Jacobi's, so the tolerance means what it meant. Returns (iterations, rz)."""
    rz_full = rz + _coarse_step(r, free, p, coarse_ranges, coarse_inverse)
    rows = _rows_of(ranges)   # one parallel loop over every body's rows, not one per body
    it = 0
    while it < max_iterations and rz > limit:
        pap = 0.0
        if serial:
            for body in range(ranges.shape[0]):
                pap += upper_product(row_ptr, col, diag, data, p, free, ap, ranges[body, 0], ranges[body, 1])
        else:
            for k in prange(rows.shape[0]):
                pap += row_product(row_ptr, col, data, p, free, ap, rows[k])
        if pblocks.shape[0]:
            pap += penalty_product(pnode, pcoef, pk, pblocks, p, free, ap)
        if not pap > 0.0:
            break
        step = rz_full / pap
        rz_new = 0.0
        for i in prange(rows.shape[0]):
            n = rows[i]
            for k in range(3):
                x[n, k] += step * p[n, k]
                r[n, k] -= step * ap[n, k]
            rz_new += _block_solve(pinv, r, free, z, n)
        # β from the residual preconditioned with the coarse term; p = z + β p, then the coarse translations added
        coarse = np.zeros((coarse_ranges.shape[0], 3))
        rz_full_new = rz_new + _coarse_solve(r, free, coarse_ranges, coarse_inverse, coarse)
        beta = rz_full_new / rz_full
        for i in prange(rows.shape[0]):
            n = rows[i]
            for k in range(3):
                p[n, k] = z[n, k] + beta * p[n, k]
        _add_coarse(p, free, coarse_ranges, coarse)
        rz, rz_full = rz_new, rz_full_new
        it += 1
    return it, rz


@njit(cache=True)
def _rows_of(ranges):
    """The rows n0 ≤ n < n1 of every range (n0, n1) of ranges (B,2), in order."""
    rows = np.empty((ranges[:, 1] - ranges[:, 0]).sum(), np.int64)
    k = 0
    for b in range(ranges.shape[0]):
        for n in range(ranges[b, 0], ranges[b, 1]):
            rows[k] = n
            k += 1
    return rows


@njit(cache=True)
def _coarse_solve(r, free, ranges, inverse, y):
    """y (C,3) = (Rᵀ A R)⁻¹ Rᵀ r for the translations R of the bodies' rows `ranges` (C,2) (inverse: that matrix's
    inverse); returns r·R y. On one thread, as _add_coarse: a parallel loop per body woke the thread pool ten times
    more an iteration, and on a machine busy with another process each wake can wait a time slice."""
    nc = ranges.shape[0]
    if nc == 0:
        return 0.0
    g = np.zeros(3 * nc)
    for c in range(nc):
        s0 = s1 = s2 = 0.0
        for n in range(ranges[c, 0], ranges[c, 1]):
            s0 += free[n] * r[n, 0]
            s1 += free[n] * r[n, 1]
            s2 += free[n] * r[n, 2]
        g[3 * c], g[3 * c + 1], g[3 * c + 2] = s0, s1, s2
    acc = 0.0
    for i in range(3 * nc):
        v = 0.0
        for j in range(3 * nc):
            v += inverse[i, j] * g[j]
        y[i // 3, i % 3] = v
        acc += g[i] * v
    return acc


@njit(cache=True)
def _add_coarse(p, free, ranges, y):
    """p += R y: each body's rows of `ranges` moved by its translation y (C,3), where free."""
    for c in range(ranges.shape[0]):
        for n in range(ranges[c, 0], ranges[c, 1]):
            for k in range(3):
                p[n, k] += free[n] * y[c, k]


@njit(cache=True)
def _coarse_step(r, free, p, ranges, inverse):
    """The coarse term of the first preconditioned residual: p += R y, y the coarse solve of r; returns r·R y."""
    y = np.zeros((ranges.shape[0], 3))
    acc = _coarse_solve(r, free, ranges, inverse, y)
    _add_coarse(p, free, ranges, y)
    return acc


@njit(parallel=True, cache=True)
def _new_direction(p, z, beta):
    for n in prange(p.shape[0]):
        for k in range(3):
            p[n, k] = z[n, k] + beta * p[n, k]


def pcg(system, b, x, free, max_iterations, tolerance, penalty=None, multigrid=None, only=None, pinv=None,
        load=None):
    """Solve (A + P) x = b (A: a linear_system, block-diagonal per body; P: the contact penalty's rows, if
    given, which may couple bodies) with x fixed on nodes where free == 0 (their values in x are the
    prescribed ones). x is the warm start and is updated in place.

    Each island (a body, or bodies coupled by penalty rows) is solved by its own CG (own step scalars,
    own stopping test), so a body's result does not depend on bodies it does not touch: an island's CG
    stops when its preconditioned residual norm falls below `tolerance` times that of its right-hand
    side (or of its initial residual, if larger), or after `max_iterations`. Returns the per-body lists
    (iterations, relative residuals) (each body gets its island's figures).

    multigrid (a core.solve.multigrid.Hierarchy of this system), if given, preconditions with its V-cycle
    instead of block-Jacobi. only: a list of islands (as `islands` gives them) to solve instead of all (the other
    bodies' rows of x are left as they are, their figures 0). pinv: the block-Jacobi inverse, if already computed.
    load (like b), if given, is a right-hand side the tolerance is never finer than: where it is larger than b (in
    Euclidean norm), the tolerance is relative to it."""
    if multigrid is not None:
        pinv = multigrid.pinv
    elif pinv is None:
        pinv = jacobi_inverse(system, penalty)
    work = _Work(x, free)
    n_bodies = len(system.node_ranges)
    iterations, residuals = [0] * n_bodies, [0.0] * n_bodies
    for bodies, blocks in (islands(system.node_ranges, penalty) if only is None else only):
        its, res = _island_pcg(system, bodies, penalty, blocks, b, x, free, pinv, work, max_iterations, tolerance,
                               multigrid, load)
        for body in bodies:
            iterations[body], residuals[body] = its, res
    return iterations, residuals


def jacobi_inverse(system, penalty):
    """The block-Jacobi preconditioner's inverse diagonal blocks (N,3,3), the contact penalty's folded in."""
    pinv = system.block_jacobi_inverse()
    if penalty is not None:
        penalty.precondition(pinv)
    return pinv


_NO_NODE, _NO_COEF, _NO_BLOCKS, _NO_INDEX = np.zeros((0, 1), np.int64), np.zeros((0, 1)), np.zeros((0, 3, 3)), \
    np.zeros(0, np.int64)


class _Work:
    """CG vectors for all nodes; A's columns are global node indices, so products read whole arrays. Zeroed: an
    island's solve updates whole-model vectors (the translations' residual) whose other rows it never writes
    (uninitialised, they raised numpy's invalid-value warnings on stacked cubes)."""

    def __init__(self, x, free):
        self.ap, self.z, self.r, self.p, self.t = (np.zeros_like(x) for _ in range(5))
        self.ones = np.ones_like(free)


def _island_pcg(system, bodies, penalty, penalty_blocks, b_all, x_all, free_all, pinv_all, work, max_iterations,
                tolerance, multigrid, load_all=None):
    """PCG on the rows of one island: a single body's rows as views, or all rows with the other bodies masked."""
    if len(bodies) == 1:
        rows = slice(*system.node_ranges[bodies[0]])
    else:
        rows = slice(None)
        mask = np.zeros(len(free_all))
        for body in bodies:
            mask[slice(*system.node_ranges[body])] = 1.0
        free_all = free_all * mask
        work.ap[:] = 0.0
        work.t[:] = 0.0
    b, x, free, pinv = b_all[rows], x_all[rows], free_all[rows], pinv_all[rows]
    ap, z, r, p = work.ap[rows], work.z[rows], work.r[rows], work.p[rows]

    def apply(vec, out, filt):
        acc = 0.0
        for body in bodies:
            acc += system.apply(vec, out, filt, body)
        if penalty_blocks is not None and len(penalty_blocks):
            acc += penalty.product(vec, out, filt, penalty_blocks)
        return acc

    lo, hi = rows.indices(len(x_all))[:2]
    fine = fine_operator(system, bodies, penalty, penalty_blocks) if hasattr(system, "pattern") else None
    if multigrid is not None:
        omega = multigrid.omega(bodies)

        def precondition(vec):
            return v_cycle(fine, multigrid, bodies, pinv_all, free_all, omega, vec, work.z, work.t, lo, hi)
    else:
        def precondition(vec):
            return _precondition(pinv, vec, free, z)

    apply(x_all, work.ap, work.ones)
    masked_difference(b, ap, free, r)
    scale = masked_difference(b, None, free, np.empty_like(b))
    load = None if load_all is None else masked_difference(load_all[rows], None, free, np.empty_like(b))
    if load is not None and dot(load, load) > dot(scale, scale):
        ref = precondition(load) if multigrid is None else multigrid.load_norm(bodies, load, precondition)
    else:
        ref = precondition(scale)
    rz0 = precondition(r)
    ref = max(ref, rz0)
    if not ref > 0.0:
        return 0, 0.0
    translations = Translations(system, bodies, penalty, penalty_blocks, free_all)
    # z = S P⁻¹ r from the reference unless the translations moved x (a multigrid V-cycle is worth saving)
    rz = precondition(r) if translations.correct(x_all, work.r, work.t, untouched=True) else rz0
    p[:] = z
    if multigrid is None and fine is not None:
        it, rz = _assembled_jacobi_iterations(*fine, pinv_all, free_all, x_all, work.r, work.p, work.z, work.ap, rz,
                                              tolerance * tolerance * ref, max_iterations, get_num_threads() == 1,
                                              *translations.coarse())
        translations.correct(x_all, work.r, work.t)
        return it, float(np.sqrt(max(rz, 0.0) / ref))
    it = 0
    while it < max_iterations and rz > tolerance * tolerance * ref:
        pap = apply(work.p, work.ap, free_all)
        if not pap > 0.0:
            break
        step = rz / pap
        if multigrid is None:
            rz_new = _step_and_precondition(x, r, p, ap, step, pinv, free, z)
        else:
            _advance(x, r, p, ap, step)
            rz_new = precondition(r)
        _new_direction(p, z, rz_new / rz)
        rz = rz_new
        it += 1
    translations.correct(x_all, work.r, work.t)
    return it, float(np.sqrt(max(rz, 0.0) / ref))


def v_cycle(fine, hierarchy, bodies, pinv, free, omega, vec, z, t, lo, hi):
    """z = the symmetric V-cycle of `hierarchy` applied to vec, the rows lo ≤ n < hi of the island of `bodies` whose
    operator is `fine` (fine_operator); pinv, free, z, t (work space): whole-model. Returns vec·z."""
    serial = get_num_threads() == 1
    _fine_smoothing(*fine, pinv, free, omega, vec, z, t, lo, hi, False, serial)
    hierarchy.coarse_correction(t, z, bodies)
    return _fine_smoothing(*fine, pinv, free, omega, vec, z, t, lo, hi, True, serial)


def fine_operator(system, bodies, penalty, blocks):
    """The arguments of the island kernels naming its operator: the assembled blocks (row_ptr, col, diag, data), its
    bodies' block rows (B,2) and its contact penalty's stencil blocks (node, coef, k, block indices; empty for none)."""
    pat = system.pattern
    ranges = np.array([system.node_ranges[i] for i in bodies], np.int64)
    if blocks is None or not len(blocks):
        return pat.row_ptr, pat.col, pat.diag, system.data, ranges, _NO_NODE, _NO_COEF, _NO_BLOCKS, _NO_INDEX
    return (pat.row_ptr, pat.col, pat.diag, system.data, ranges, penalty.block_node, penalty.block_coef,
            penalty.block_k, blocks)
