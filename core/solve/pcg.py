"""Block-Jacobi preconditioned conjugate gradients with per-node constraint projection (Baraff–Witkin filter)."""
import numpy as np

from ..jit import njit, prange


@njit(parallel=True, cache=True)
def _gather_product(buf, node_ptr, node_ent, p, mass_term, free, ap):
    """ap = S (Σ per-tet K p + mass_term p) per node, and returns p·ap (S zeroes constrained nodes)."""
    acc = 0.0
    for n in prange(p.shape[0]):
        s0, s1, s2 = 0.0, 0.0, 0.0
        for k in range(node_ptr[n], node_ptr[n + 1]):
            ent = node_ent[k]
            e, a = ent >> 2, ent & 3
            s0 += buf[e, a, 0]
            s1 += buf[e, a, 1]
            s2 += buf[e, a, 2]
        f, m = free[n], mass_term[n]
        a0, a1, a2 = f * (s0 + m * p[n, 0]), f * (s1 + m * p[n, 1]), f * (s2 + m * p[n, 2])
        ap[n, 0], ap[n, 1], ap[n, 2] = a0, a1, a2
        acc += p[n, 0] * a0 + p[n, 1] * a1 + p[n, 2] * a2
    return acc


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


def pcg(force_model, mass_coef, tet_scale, b, x, free, max_iterations, tolerance):
    """Solve (mass_coef M + Σ scaleₑ Kₑ) x = b with x fixed on nodes where free == 0 (their values
    in x are the prescribed ones). x is the warm start and is updated in place.

    Stops when the preconditioned residual norm falls below `tolerance` times that of the
    right-hand side (or of the initial residual, if larger). Returns (iterations, relative residual)."""
    md = force_model.model
    mass_term = mass_coef * md.mass
    pinv = force_model.block_jacobi_inverse(mass_coef, tet_scale)
    ap = np.empty_like(x)
    z = np.empty_like(x)
    _gather_product(force_model.tet_products(x, tet_scale), md.node_ptr, md.node_ent, x, mass_term,
                    np.ones_like(free), ap)
    r = (b - ap) * free[:, None]
    rz = _precondition(pinv, r, free, z)
    ref = max(_precondition(pinv, b * free[:, None], free, np.empty_like(x)), rz)
    if not ref > 0.0:
        return 0, 0.0
    p = z.copy()
    it = 0
    while it < max_iterations and rz > tolerance * tolerance * ref:
        pap = _gather_product(force_model.tet_products(p, tet_scale), md.node_ptr, md.node_ent, p,
                              mass_term, free, ap)
        if not pap > 0.0:
            break
        step = rz / pap
        rz_new = _step_and_precondition(x, r, p, ap, step, pinv, free, z)
        _new_direction(p, z, rz_new / rz)
        rz = rz_new
        it += 1
    return it, float(np.sqrt(max(rz, 0.0) / ref))
