"""St Venant–Kirchhoff: Ψ = ½λ(tr E)² + μ E:E = ⅛λ(I₁ − 3)² + ¼μ Σ(σᵢ² − 1)² (E = ½(FᵀF − I))."""
from ...jit import njit


@njit(inline="always", cache=True)
def derivatives(s0, s1, s2, mu, lam, _unused):
    """(Ψ, ∂Ψ/∂σᵢ (3), ∂²Ψ/∂σᵢ∂σⱼ (00, 11, 22, 01, 02, 12)) at the principal stretches σ."""
    q0, q1, q2 = s0 * s0 - 1.0, s1 * s1 - 1.0, s2 * s2 - 1.0
    t = q0 + q1 + q2                                # I₁ − 3
    psi = 0.125 * lam * t * t + 0.25 * mu * (q0 * q0 + q1 * q1 + q2 * q2)
    k = 0.5 * lam * t
    g0, g1, g2 = (k + mu * q0) * s0, (k + mu * q1) * s1, (k + mu * q2) * s2
    h00 = k + lam * s0 * s0 + mu * (3.0 * s0 * s0 - 1.0)
    h11 = k + lam * s1 * s1 + mu * (3.0 * s1 * s1 - 1.0)
    h22 = k + lam * s2 * s2 + mu * (3.0 * s2 * s2 - 1.0)
    return psi, g0, g1, g2, h00, h11, h22, lam * s0 * s1, lam * s0 * s2, lam * s1 * s2
