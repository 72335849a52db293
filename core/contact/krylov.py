"""The contact solve's Conjugate Gradients (core.contact.mlcp), each iteration's vector updates in two kernels."""
import math

import numpy as np

from ..jit import njit


def pcg(hessian, r, pinv, free, absolute, max_iterations):
    """d with H d ≈ r (preconditioned Conjugate Gradients from zero, to `absolute` in the A_d⁻¹ norm; hessian: mlcp's
    _Hessian, whose apply returns pᵀ H p); returns (d, iterations). An iteration is H's product, one kernel for the
    step and block-Jacobi (or the hessian's preconditioner), the region's solve, one kernel for the next direction."""
    d = np.zeros_like(r)
    res = r.copy()
    z = np.empty_like(r)
    hessian.precondition(res, z)
    p = z.copy()
    rz = float(np.vdot(res, z))
    hp = np.zeros_like(r)
    jacobi = hessian.vcycle is None
    k = 0
    while k < max(max_iterations, 1):
        if k and math.sqrt(max(rz, 0.0)) <= absolute:
            break
        php = hessian.apply(p, hp)
        if php <= 0.0 or not math.isfinite(php):
            break
        _step(rz / php, p, hp, d, res, pinv, free, z, jacobi)
        if jacobi:
            hessian.region.solve(res, z)
        else:
            hessian.precondition(res, z)
        rz = _next_direction(res, z, p, rz)
        k += 1
    return d, k


@njit(cache=True)
def _step(alpha, p, hp, d, res, pinv, free, z, jacobi):
    """d += α p, res −= α H p, and, if jacobi, z = S A_d⁻¹ res (blocks pinv, S zeroing held nodes)."""
    for n in range(p.shape[0]):
        for i in range(3):
            d[n, i] += alpha * p[n, i]
            res[n, i] -= alpha * hp[n, i]
        if jacobi:
            f = free[n]
            for i in range(3):
                z[n, i] = f * (pinv[n, i, 0] * res[n, 0] + pinv[n, i, 1] * res[n, 1] + pinv[n, i, 2] * res[n, 2])


@njit(cache=True)
def _next_direction(res, z, p, rz):
    """p = z + (res·z / rz) p; returns res·z."""
    rz_new = 0.0
    for n in range(res.shape[0]):
        for i in range(3):
            rz_new += res[n, i] * z[n, i]
    beta = rz_new / rz
    for n in range(p.shape[0]):
        for i in range(3):
            p[n, i] = z[n, i] + beta * p[n, i]
    return rz_new
