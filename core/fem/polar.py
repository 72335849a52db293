"""Polar decomposition F = R S of a 3×3 matrix with det F > 0: scaled Newton iteration, warm-started."""
import math

from ..jit import njit
from . import mat3

_MAX_ITERATIONS = 40


@njit(cache=True)
def polar_rotation(f, warm):
    """Rotation R of F = R S (det F > 0), iterating on warmᵀF so a good warm rotation costs ~2 iterations.

    Returns (R, ok); ok is False (and R = warm) when det F <= 0 or F is numerically singular.
    Higham's Newton iteration X ← (ζX + X⁻ᵀ/ζ)/2 with Frobenius scaling converges globally for
    nonsingular X and keeps the sign of det X, so R is a proper rotation."""
    x = mat3.tmul(warm, f)
    for _ in range(_MAX_ITERATIONS):
        d = mat3.det(x)
        if not d > 1e-300 or not d > 1e-15 * mat3.frob2(x) ** 1.5:
            return warm, False
        cof = mat3.cofactor(x)
        xinv_t = (cof[0] / d, cof[1] / d, cof[2] / d, cof[3] / d, cof[4] / d, cof[5] / d,
                  cof[6] / d, cof[7] / d, cof[8] / d)
        zeta = math.sqrt(math.sqrt(mat3.frob2(xinv_t) / mat3.frob2(x)))
        change = 0.0
        nxt = (0.5 * (zeta * x[0] + xinv_t[0] / zeta), 0.5 * (zeta * x[1] + xinv_t[1] / zeta),
               0.5 * (zeta * x[2] + xinv_t[2] / zeta), 0.5 * (zeta * x[3] + xinv_t[3] / zeta),
               0.5 * (zeta * x[4] + xinv_t[4] / zeta), 0.5 * (zeta * x[5] + xinv_t[5] / zeta),
               0.5 * (zeta * x[6] + xinv_t[6] / zeta), 0.5 * (zeta * x[7] + xinv_t[7] / zeta),
               0.5 * (zeta * x[8] + xinv_t[8] / zeta))
        for i in range(9):
            change += (nxt[i] - x[i]) ** 2
        x = nxt
        if change < 1e-26:
            break
    return mat3.mul(warm, x), True
