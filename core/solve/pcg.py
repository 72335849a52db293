"""Block-Jacobi (or multigrid) preconditioned conjugate gradients per body, with per-node constraint projection
(Baraff–Witkin filter)."""
import numpy as np

from ..contact.row_kernels import curvature_product
from ..fem.block_sparse import row_product, upper_product
from ..jit import FAST_SUMS, get_num_threads, njit, prange
from ..node_rows import dot, masked_difference
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
def _fine_smoothing(row_ptr, col, diag, data, ranges, bnode, bcoef, bk, bblocks, pinv, free, omega, vec, z, t, lo, hi,
                    post, serial):
    """One half of the V-cycle's fine level on the rows lo ≤ n < hi of bodies (vec: those rows; z, t: whole-model; the
    bodies' block rows `ranges`, the contact rows' curvature blocks `bblocks`, fine_operator). Before the coarse correction (post False):
    z = ω S P⁻¹ vec, then t = vec − S A z. After it (post True): t = vec − S A z, then z += ω S P⁻¹ t; returns vec·z.
    serial: as in _assembled_jacobi_iterations. Each parallel loop wakes the sleeping OpenMP pool (~15-25 us,
    measured): on more than one thread the residual of a single body with no curvature block is taken in the product's
    loop, so a half is two loops, not four. (One call in place of eight kernels and numpy operations: the resting bunny's
    V-cycle took 184 against 193 us.)"""
    single = bblocks.shape[0] == 0 and ranges.shape[0] == 1 and ranges[0, 0] == lo and ranges[0, 1] == hi \
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
    if bblocks.shape[0]:
        curvature_product(bnode, bcoef, bk, bblocks, z, free, t)
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
def _assembled_jacobi_iterations(row_ptr, col, diag, data, ranges, pinv, free, x, r, p, z, ap, rz, limit,
                                 max_iterations, serial):
    """The iterations of block-Jacobi CG on assembled blocks in one kernel (a Python loop of kernel calls spent
    ~25 µs an iteration in dispatch, a fifth of a small body's step): the body's block rows `ranges` (1,2), from
    r, z = S P⁻¹ r, p = z and rz = r·z, until rz ≤ limit or max_iterations. Whole-model arrays. serial: the kernels
    run on one thread (the products then read the upper blocks alone, block_sparse.upper_product). Returns
    (iterations, rz)."""
    rows = _rows_of(ranges)
    it = 0
    while it < max_iterations and rz > limit:
        pap = 0.0
        if serial:
            for body in range(ranges.shape[0]):
                pap += upper_product(row_ptr, col, diag, data, p, free, ap, ranges[body, 0], ranges[body, 1])
        else:
            for k in prange(rows.shape[0]):
                pap += row_product(row_ptr, col, data, p, free, ap, rows[k])
        if not pap > 0.0:
            break
        step = rz / pap
        rz_new = 0.0
        for i in prange(rows.shape[0]):
            n = rows[i]
            for k in range(3):
                x[n, k] += step * p[n, k]
                r[n, k] -= step * ap[n, k]
            rz_new += _block_solve(pinv, r, free, z, n)
        beta = rz_new / rz
        for i in prange(rows.shape[0]):
            n = rows[i]
            for k in range(3):
                p[n, k] = z[n, k] + beta * p[n, k]
        rz = rz_new
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


@njit(parallel=True, cache=True)
def _new_direction(p, z, beta):
    for n in prange(p.shape[0]):
        for k in range(3):
            p[n, k] = z[n, k] + beta * p[n, k]


def pcg(system, b, x, free, max_iterations, tolerance, multigrid=None, only=None, pinv=None, load=None):
    """Solve A x = b (A: a linear_system, block-diagonal per body) with x fixed on nodes where free == 0 (their values
    in x are the prescribed ones). x is the warm start and is updated in place.

    Each body is solved by its own CG (own step scalars, own stopping test), so a body's result does not depend on
    the others: its CG stops when its preconditioned residual norm falls below `tolerance` times that of its
    right-hand side (or of its initial residual, if larger), or after `max_iterations`. Returns the per-body lists
    (iterations, relative residuals).

    multigrid (a core.solve.multigrid.Hierarchy of this system), if given, preconditions with its V-cycle
    instead of block-Jacobi. only: the bodies to solve instead of all (the other bodies' rows of x are left as they
    are, their figures 0). pinv: the block-Jacobi inverse, if already computed.
    load (like b), if given, is a right-hand side the tolerance is never finer than: where it is larger than b (in
    Euclidean norm), the tolerance is relative to it."""
    if multigrid is not None:
        pinv = multigrid.pinv
    elif pinv is None:
        pinv = system.block_jacobi_inverse()
    work = _Work(x)
    n_bodies = len(system.node_ranges)
    iterations, residuals = [0] * n_bodies, [0.0] * n_bodies
    for body in (range(n_bodies) if only is None else only):
        iterations[body], residuals[body] = _body_pcg(system, body, b, x, free, pinv, work, max_iterations, tolerance,
                                                      multigrid, load)
    return iterations, residuals


class _Work:
    """CG vectors for all nodes; A's columns are global node indices, so products read whole arrays. Zeroed: a
    body's solve updates whole-model vectors whose other rows it never writes."""

    def __init__(self, x):
        self.ap, self.z, self.r, self.p, self.t = (np.zeros_like(x) for _ in range(5))


def _body_pcg(system, body, b_all, x_all, free_all, pinv_all, work, max_iterations, tolerance, multigrid,
              load_all=None):
    """PCG on the rows of one body (as views)."""
    rows = slice(*system.node_ranges[body])
    b, x, free, pinv = b_all[rows], x_all[rows], free_all[rows], pinv_all[rows]
    ap, z, r, p = work.ap[rows], work.z[rows], work.r[rows], work.p[rows]

    def apply(vec, out, filt):
        return system.apply(vec, out, filt, body)

    lo, hi = rows.indices(len(x_all))[:2]
    fine = fine_operator(system, [body]) if hasattr(system, "pattern") else None
    if multigrid is not None:
        omega = multigrid.omega([body])

        def precondition(vec):
            return v_cycle(fine, multigrid, [body], pinv_all, free_all, omega, vec, work.z, work.t, lo, hi)
    else:
        def precondition(vec):
            return _precondition(pinv, vec, free, z)

    apply(x_all, work.ap, np.ones_like(free_all))
    masked_difference(b, ap, free, r)
    scale = masked_difference(b, None, free, np.empty_like(b))
    load = None if load_all is None else masked_difference(load_all[rows], None, free, np.empty_like(b))
    if load is not None and dot(load, load) > dot(scale, scale):
        ref = precondition(load) if multigrid is None else multigrid.load_norm([body], load, precondition)
    else:
        ref = precondition(scale)
    rz0 = precondition(r)
    ref = max(ref, rz0)
    if not ref > 0.0:
        return 0, 0.0
    translations = Translations(system, [body], free_all)
    # z = S P⁻¹ r from the reference unless the translation moved x (a multigrid V-cycle is worth saving)
    rz = precondition(r) if translations.correct(x_all, work.r) else rz0
    p[:] = z
    if multigrid is None and fine is not None:
        it, rz = _assembled_jacobi_iterations(*fine[:5], pinv_all, free_all, x_all, work.r, work.p, work.z, work.ap, rz,
                                              tolerance * tolerance * ref, max_iterations, get_num_threads() == 1)
        translations.correct(x_all, work.r)
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
    translations.correct(x_all, work.r)
    return it, float(np.sqrt(max(rz, 0.0) / ref))


def v_cycle(fine, hierarchy, bodies, pinv, free, omega, vec, z, t, lo, hi):
    """z = the symmetric V-cycle of `hierarchy` applied to vec, the rows lo ≤ n < hi of `bodies` whose operator is
    `fine` (fine_operator); pinv, free, z, t (work space): whole-model. Returns vec·z."""
    serial = get_num_threads() == 1
    _fine_smoothing(*fine, pinv, free, omega, vec, z, t, lo, hi, False, serial)
    hierarchy.coarse_correction(t, z, bodies)
    return _fine_smoothing(*fine, pinv, free, omega, vec, z, t, lo, hi, True, serial)


_NO_NODE, _NO_COEF, _NO_BLOCKS, _NO_INDEX = np.zeros((0, 1), np.int64), np.zeros((0, 1)), np.zeros((0, 3, 3)), \
    np.zeros(0, np.int64)


def fine_operator(system, bodies, blocks=None):
    """The arguments of the kernels naming the operator of `bodies`: the assembled blocks (row_ptr, col, diag, data),
    the bodies' block rows (B,2) and the contact rows' curvature blocks (`blocks`' block_node, block_coef, block_k and
    all their indices; empty for none)."""
    pat = system.pattern
    ranges = np.array([system.node_ranges[i] for i in bodies], np.int64)
    if blocks is None or not len(blocks.block_node):
        return pat.row_ptr, pat.col, pat.diag, system.data, ranges, _NO_NODE, _NO_COEF, _NO_BLOCKS, _NO_INDEX
    return (pat.row_ptr, pat.col, pat.diag, system.data, ranges, blocks.block_node, blocks.block_coef,
            blocks.block_k, np.arange(len(blocks.block_node)))
