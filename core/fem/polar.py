"""Polar decomposition F = R S of a 3×3 matrix with det F > 0: scaled Newton iteration, warm-started."""
import math

from ..jit import njit
from . import mat3

_MAX_ITERATIONS = 40
# Frobenius scaling pays while far from orthogonal; near convergence it only costs (ζ → 1).
_SCALE_WHILE_CHANGE2 = 1e-4
# Quadratic convergence: once an update is below 1e-9, the new iterate is accurate to ~1e-18.
_CONVERGED_CHANGE2 = 1e-18


@njit(cache=True)
def polar_rotation(f, warm):
    """Rotation R of F = R S (det F > 0), iterating on warmᵀF so a good warm rotation costs ~2 iterations.

    Returns (R, ok); ok is False (and R = warm) when det F <= 0 or F is numerically singular.
    Higham's Newton iteration X ← (ζX + X⁻ᵀ/ζ)/2 with Frobenius scaling converges globally for
    nonsingular X and keeps the sign of det X, so R is a proper rotation."""
    x = mat3.tmul(warm, f)
    change = math.inf
    for _ in range(_MAX_ITERATIONS):
        cof = mat3.cofactor(x)
        d = x[0] * cof[0] + x[1] * cof[1] + x[2] * cof[2]
        n2 = mat3.frob2(x)
        if not d > 1e-300 or not d > 1e-15 * n2 * math.sqrt(n2):
            return warm, False
        inv_d = 1.0 / d
        if change > _SCALE_WHILE_CHANGE2:
            zeta = math.sqrt(math.sqrt(mat3.frob2(cof) * inv_d * inv_d / n2))
        else:
            zeta = 1.0
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
    return mat3.mul(warm, x), True
