"""Block-Jacobi preconditioned conjugate gradients per body, with per-node constraint projection (Baraff–Witkin filter)."""
import numpy as np

from ..jit import njit, prange


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


@njit(parallel=True, cache=True)
def _new_direction(p, z, beta):
    for n in prange(p.shape[0]):
        for k in range(3):
            p[n, k] = z[n, k] + beta * p[n, k]


def pcg(system, b, x, free, max_iterations, tolerance):
    """Solve A x = b (A: a linear_system, block-diagonal per body) with x fixed on nodes where free == 0
    (their values in x are the prescribed ones). x is the warm start and is updated in place.

    Each body is solved by its own CG (own step scalars, own stopping test), so a body's result does
    not depend on the other bodies: a body's CG stops when its preconditioned residual norm falls
    below `tolerance` times that of its right-hand side (or of its initial residual, if larger), or
    after `max_iterations`. Returns the per-body lists (iterations, relative residuals)."""
    pinv = system.block_jacobi_inverse()
    work = _Work(x, free)
    iterations, residuals = [], []
    for body in range(len(system.node_ranges)):
        its, res = _body_pcg(system, body, b, x, free, pinv, work, max_iterations, tolerance)
        iterations.append(its)
        residuals.append(res)
    return iterations, residuals


class _Work:
    """CG vectors for all nodes; A's columns are global node indices, so products read whole arrays."""

    def __init__(self, x, free):
        self.ap, self.z, self.r, self.p = (np.empty_like(x) for _ in range(4))
        self.ones = np.ones_like(free)


def _body_pcg(system, body, b_all, x_all, free_all, pinv_all, work, max_iterations, tolerance):
    """PCG on the rows of one body (its diagonal block); the vector kernels run on row views."""
    rows = slice(*system.node_ranges[body])
    b, x, free, pinv = b_all[rows], x_all[rows], free_all[rows], pinv_all[rows]
    ap, z, r, p = work.ap[rows], work.z[rows], work.r[rows], work.p[rows]
    system.apply(x_all, work.ap, work.ones, body)
    np.multiply(b - ap, free[:, None], out=r)
    rz = _precondition(pinv, r, free, z)
    ref = max(_precondition(pinv, b * free[:, None], free, np.empty_like(x)), rz)
    if not ref > 0.0:
        return 0, 0.0
    p[:] = z
    it = 0
    while it < max_iterations and rz > tolerance * tolerance * ref:
        pap = system.apply(work.p, work.ap, free_all, body)
        if not pap > 0.0:
            break
        step = rz / pap
        rz_new = _step_and_precondition(x, r, p, ap, step, pinv, free, z)
        _new_direction(p, z, rz_new / rz)
        rz = rz_new
        it += 1
    return it, float(np.sqrt(max(rz, 0.0) / ref))
