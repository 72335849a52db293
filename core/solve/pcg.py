"""Block-Jacobi preconditioned conjugate gradients with per-node constraint projection (Baraff–Witkin filter)."""
import numpy as np

from ..jit import njit, prange


@njit(parallel=True, cache=True)
def _precondition(pinv, r, free, z):
    """z = S P⁻¹ r and returns r·z (S zeroes constrained nodes)."""
    acc = 0.0
    for n in prange(r.shape[0]):
        f = free[n]
        z0 = f * (pinv[n, 0, 0] * r[n, 0] + pinv[n, 0, 1] * r[n, 1] + pinv[n, 0, 2] * r[n, 2])
        z1 = f * (pinv[n, 1, 0] * r[n, 0] + pinv[n, 1, 1] * r[n, 1] + pinv[n, 1, 2] * r[n, 2])
        z2 = f * (pinv[n, 2, 0] * r[n, 0] + pinv[n, 2, 1] * r[n, 1] + pinv[n, 2, 2] * r[n, 2])
        z[n, 0], z[n, 1], z[n, 2] = z0, z1, z2
        acc += r[n, 0] * z0 + r[n, 1] * z1 + r[n, 2] * z2
    return acc


@njit(parallel=True, cache=True)
def _finish_product(ap, p, mass_term, free):
    """ap = S (ap + mass_term p) and returns p·ap."""
    acc = 0.0
    for n in prange(p.shape[0]):
        for k in range(3):
            v = free[n] * (ap[n, k] + mass_term[n] * p[n, k])
            ap[n, k] = v
            acc += p[n, k] * v
    return acc


@njit(parallel=True, cache=True)
def _advance(x, r, p, ap, step):
    for n in prange(x.shape[0]):
        for k in range(3):
            x[n, k] += step * p[n, k]
            r[n, k] -= step * ap[n, k]


@njit(parallel=True, cache=True)
def _new_direction(p, z, beta):
    for n in prange(p.shape[0]):
        for k in range(3):
            p[n, k] = z[n, k] + beta * p[n, k]


def pcg(force_model, mass_coef, tet_scale, b, x, free, max_iterations, tolerance):
    """Solve (mass_coef M + Σ scaleₑ Kₑ) x = b with x fixed on nodes where free == 0 (their values
    in x are the prescribed ones). x is the warm start and is updated in place.

    Stops when the preconditioned residual norm falls below `tolerance` times that of the
    right-hand side (or of the initial residual, if larger). Returns (iterations, relative residual)."""
    md = force_model.model
    mass_term = mass_coef * md.mass
    pinv = force_model.block_jacobi_inverse(mass_coef, tet_scale)
    r = np.empty_like(x)
    z = np.empty_like(x)
    ap = np.empty_like(x)
    force_model.product(x, ap, tet_scale)
    _finish_product(ap, x, mass_term, np.ones_like(free))
    np.subtract(b, ap, out=r)
    r *= free[:, None]
    rz = _precondition(pinv, r, free, z)
    rb = np.empty_like(b)
    ref = max(_precondition(pinv, b * free[:, None], free, rb), rz)
    if not ref > 0.0:
        return 0, 0.0
    p = z.copy()
    it = 0
    while it < max_iterations and rz > tolerance * tolerance * ref:
        force_model.product(p, ap, tet_scale)
        pap = _finish_product(ap, p, mass_term, free)
        if not pap > 0.0:
            break
        step = rz / pap
        _advance(x, r, p, ap, step)
        rz_new = _precondition(pinv, r, free, z)
        _new_direction(p, z, rz_new / rz)
        rz = rz_new
        it += 1
    return it, float(np.sqrt(max(rz, 0.0) / ref))
