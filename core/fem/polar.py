"""Polar decomposition F = R S of a 3×3 matrix with det F > 0: scaled Newton iteration."""
import math

from ..jit import njit
from . import mat3

_MAX_ITERATIONS = 40
# Frobenius scaling pays while far from orthogonal; near convergence it only costs (ζ → 1).
_SCALE_WHILE_CHANGE2 = 1e-4
# ... and only when ζ⁴ = ‖X⁻¹‖²/‖X‖² is outside [1/2, 2]: on a squashed 5.9k-tet ball, scaling by a ζ within 20 % of
# 1 saved a quarter of an iteration per tet but its two square roots and division (on the critical path) cost more.
_SCALE_OUTSIDE = 2.0
# Quadratic convergence: an update of c leaves an iterate accurate to ~c²/2, so stopping once c < 1e-6 gives R to
# ~5e-13 (stopping at 1e-9 cost one more iteration on every tet of a falling ball and on about half of a squashed
# one's, for accuracy no force needs).
_CONVERGED_CHANGE2 = 1e-12


@njit(cache=True, fastmath={"contract"})
def polar_rotation(f, fallback):
    """Rotation R of F = R S (det F > 0).

    Returns (R, ok); ok is False (and R = fallback) when det F <= 0 or F is numerically singular.
    Higham's Newton iteration X ← (ζX + X⁻ᵀ/ζ)/2 from X = F, with Frobenius scaling, converges globally for
    nonsingular X and keeps the sign of det X, so R is a proper rotation. It acts on F's singular values alone
    (σ ← (ζσ + 1/(ζσ))/2), so its iterations depend on how far they are from 1 (one for strains below ~1e-6,
    four or five for ~0.3); starting from warmᵀF (a rotation close to R) saves none and cost two products."""
    x = f
    change = math.inf
    for _ in range(_MAX_ITERATIONS):
        cof = mat3.cofactor(x)
        d = x[0] * cof[0] + x[1] * cof[1] + x[2] * cof[2]
        n2 = mat3.frob2(x)
        if not d > 1e-300 or not d > 1e-15 * n2 * math.sqrt(n2):
            return fallback, False
        inv_d = 1.0 / d
        a, b = 0.5, 0.5 * inv_d
        if change > _SCALE_WHILE_CHANGE2:
            m2 = mat3.frob2(cof)   # ζ⁴ = m2 / (d² n2)
            if m2 > _SCALE_OUTSIDE * d * d * n2 or _SCALE_OUTSIDE * m2 < d * d * n2:
                zeta = math.sqrt(math.sqrt(m2 * inv_d * inv_d / n2))
                a, b = 0.5 * zeta, 0.5 * inv_d / zeta
        nxt = (a * x[0] + b * cof[0], a * x[1] + b * cof[1], a * x[2] + b * cof[2],
               a * x[3] + b * cof[3], a * x[4] + b * cof[4], a * x[5] + b * cof[5],
               a * x[6] + b * cof[6], a * x[7] + b * cof[7], a * x[8] + b * cof[8])
        change = 0.0
        for i in range(9):
            change += (nxt[i] - x[i]) ** 2
        x = nxt
        if change < _CONVERGED_CHANGE2:
            break
    return x, True
