"""Compressible neo-Hookean: Ψ = ½μ(I₁ − 3) − μ log J + ½λ(log J)² (σᵢ > 0: the caller clamps)."""
import math

from ...jit import njit


@njit(inline="always", cache=True)
def derivatives(s0, s1, s2, mu, lam, _unused):
    """(Ψ, ∂Ψ/∂σᵢ (3), ∂²Ψ/∂σᵢ∂σⱼ (00, 11, 22, 01, 02, 12)) at the principal stretches σ."""
    log_j = math.log(s0 * s1 * s2)
    psi = 0.5 * mu * (s0 * s0 + s1 * s1 + s2 * s2 - 3.0) - mu * log_j + 0.5 * lam * log_j * log_j
    k = lam * log_j - mu
    i0, i1, i2 = 1.0 / s0, 1.0 / s1, 1.0 / s2
    d = lam - k                                     # μ + λ(1 − log J)
    return (psi, mu * s0 + k * i0, mu * s1 + k * i1, mu * s2 + k * i2,
            mu + d * i0 * i0, mu + d * i1 * i1, mu + d * i2 * i2,
            lam * i0 * i1, lam * i0 * i2, lam * i1 * i2)
