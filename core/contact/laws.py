"""The contact rows' laws as numba kernels: each row's force f = −∂Φ/∂v and curvature ∂²Φ/∂v² at its value v = J dx −
target (frame coordinates), for Signorini's condition with compliance E_n (stiffness k_n = 1/E_n) and Coulomb's
friction with Huber's stick zone (stiffness k_t = 1/E_t up to the bound μ λ̃, then sliding against the slip)."""
import math

import numpy as np

from ..jit import njit


@njit(cache=True)
def _row_force(v0, v1, v2, bound, k_n, k_t):
    """(λ, γ1, γ2, sticking, slip length) of one row."""
    lam = -k_n * v0 if v0 < 0.0 else 0.0
    length = math.sqrt(v1 * v1 + v2 * v2)
    if bound > 0.0 and length * k_t <= bound:
        return lam, -k_t * v1, -k_t * v2, True, length
    if length > 0.0:
        return lam, -bound * v1 / length, -bound * v2 / length, False, length
    return lam, 0.0, 0.0, False, length


@njit(cache=True)
def row_curvatures(v, bound, k_n, k_t, f, w):
    """f (R,3): the rows' forces (λ, γ1, γ2) at values v (R,3) under friction bounds `bound` (R,); w (R,3,3) =
    ∂²Φ/∂v²: k_n on a pressed normal, k_t I on a sticking tangent plane, (bound / |v_t|) (I − v̂_t v̂_tᵀ) on a
    sliding one."""
    w[:] = 0.0
    for r in range(v.shape[0]):
        lam, g1, g2, stick, length = _row_force(v[r, 0], v[r, 1], v[r, 2], bound[r], k_n[r], k_t[r])
        f[r, 0], f[r, 1], f[r, 2] = lam, g1, g2
        if v[r, 0] < 0.0:
            w[r, 0, 0] = k_n[r]
        if stick:
            w[r, 1, 1] = w[r, 2, 2] = k_t[r]
        elif length > 0.0:
            k = bound[r] / length
            h1, h2 = v[r, 1] / length, v[r, 2] / length
            w[r, 1, 1] = k * (1.0 - h1 * h1)
            w[r, 2, 2] = k * (1.0 - h2 * h2)
            w[r, 1, 2] = w[r, 2, 1] = -k * h1 * h2


@njit(cache=True)
def force_along(v, jd, alpha, bound, k_n, k_t):
    """Σ_r f_r(v_r + α jd_r) · jd_r: the rows' part of Φ's slope along a direction d (jd = J d), with a minus sign."""
    acc = 0.0
    for r in range(v.shape[0]):
        lam, g1, g2, _, _ = _row_force(v[r, 0] + alpha * jd[r, 0], v[r, 1] + alpha * jd[r, 1],
                                       v[r, 2] + alpha * jd[r, 2], bound[r], k_n[r], k_t[r])
        acc += lam * jd[r, 0] + g1 * jd[r, 1] + g2 * jd[r, 2]
    return acc


def stiffness(compliance):
    """1 / compliance where it is positive, else 0 (a row without give has no finite stiffness; it has no stencil)."""
    return np.where(compliance > 0.0, 1.0 / np.where(compliance > 0.0, compliance, 1.0), 0.0)
