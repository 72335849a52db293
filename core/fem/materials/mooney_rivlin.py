"""Compressible Mooney–Rivlin (Vega's): Ψ = c₀₁(Ī₂ − 3) + c₁₀(Ī₁ − 3) + v₁(J − 1)², Ī₁ = I₁J^(−2/3),
Ī₂ = I₂J^(−4/3), I₁ = Σσᵢ², I₂ = Σ_{i<j} σᵢ²σⱼ² (σᵢ > 0: the caller clamps). At rest μ = 2(c₀₁ + c₁₀), κ = 2v₁."""
from ...jit import njit


@njit(inline="always", cache=True)
def _isochoric(w0, w1, w2, i1, i2, a, b):
    """Gradient and Hessian entries (i, j) of c₁₀Ī₁ (a = c₁₀J^(−2/3)) + c₀₁Ī₂ (b = c₀₁J^(−4/3)) in σᵢ = w0, σⱼ = w1
    (w2 the third stretch): returns (∂/∂σᵢ, ∂²/∂σᵢ², ∂²/∂σᵢ∂σⱼ)."""
    ri, rj = 1.0 / w0, 1.0 / w1
    ai = w0 * w0
    qi = 2.0 * w0 * (i1 - ai) - (4.0 / 3.0) * i2 * ri
    grad = a * (2.0 * w0 - (2.0 / 3.0) * i1 * ri) + b * qi
    hii = (a * (-2.0 / 3.0 + (10.0 / 9.0) * i1 * ri * ri)
           + b * (-(4.0 / 3.0) * qi * ri - (2.0 / 3.0) * (i1 - ai) + (4.0 / 3.0) * i2 * ri * ri))
    hij = (a * (-(4.0 / 3.0) * (w0 * rj + w1 * ri) + (4.0 / 9.0) * i1 * ri * rj)
           + b * (-(4.0 / 3.0) * qi * rj + 4.0 * w0 * w1 - (8.0 / 3.0) * w1 * (i1 - w1 * w1) * ri))
    return grad, hii, hij


@njit(inline="always", cache=True)
def derivatives(s0, s1, s2, c01, c10, v1):
    """(Ψ, ∂Ψ/∂σᵢ (3), ∂²Ψ/∂σᵢ∂σⱼ (00, 11, 22, 01, 02, 12)) at the principal stretches σ."""
    p0, p1, p2 = s0 * s0, s1 * s1, s2 * s2
    i1 = p0 + p1 + p2
    i2 = p0 * p1 + p0 * p2 + p1 * p2
    j = s0 * s1 * s2
    a = c10 * j ** (-2.0 / 3.0)
    b = c01 * j ** (-4.0 / 3.0)
    psi = b * i2 - 3.0 * c01 + a * i1 - 3.0 * c10 + v1 * (j - 1.0) ** 2
    g0, h00, h01 = _isochoric(s0, s1, s2, i1, i2, a, b)
    g1, h11, h12 = _isochoric(s1, s2, s0, i1, i2, a, b)
    g2, h22, h02 = _isochoric(s2, s0, s1, i1, i2, a, b)
    v = 2.0 * v1 * (j - 1.0) * j
    w = 2.0 * v1 * j * (2.0 * j - 1.0)
    r0, r1, r2 = 1.0 / s0, 1.0 / s1, 1.0 / s2
    vj2 = 2.0 * v1 * j * j
    return (psi, g0 + v * r0, g1 + v * r1, g2 + v * r2,
            h00 + vj2 * r0 * r0, h11 + vj2 * r1 * r1, h22 + vj2 * r2 * r2,
            h01 + w * r0 * r1, h02 + w * r0 * r2, h12 + w * r1 * r2)
