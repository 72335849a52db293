"""3×3 matrix helpers for numba kernels on row-major 9-tuples (values on the stack, no allocation)."""
import math

from ..jit import njit


@njit(cache=True)
def load(a, e):
    """Row-major 9-tuple of the 3×3 block a[e]."""
    return (a[e, 0, 0], a[e, 0, 1], a[e, 0, 2], a[e, 1, 0], a[e, 1, 1], a[e, 1, 2],
            a[e, 2, 0], a[e, 2, 1], a[e, 2, 2])


@njit(cache=True)
def store(a, e, m):
    """a[e] = m."""
    for i in range(3):
        for j in range(3):
            a[e, i, j] = m[3 * i + j]


@njit(cache=True)
def mul(a, b):
    """a @ b."""
    return (a[0] * b[0] + a[1] * b[3] + a[2] * b[6], a[0] * b[1] + a[1] * b[4] + a[2] * b[7],
            a[0] * b[2] + a[1] * b[5] + a[2] * b[8],
            a[3] * b[0] + a[4] * b[3] + a[5] * b[6], a[3] * b[1] + a[4] * b[4] + a[5] * b[7],
            a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
            a[6] * b[0] + a[7] * b[3] + a[8] * b[6], a[6] * b[1] + a[7] * b[4] + a[8] * b[7],
            a[6] * b[2] + a[7] * b[5] + a[8] * b[8])


@njit(cache=True)
def tmul(a, b):
    """aᵀ @ b."""
    return (a[0] * b[0] + a[3] * b[3] + a[6] * b[6], a[0] * b[1] + a[3] * b[4] + a[6] * b[7],
            a[0] * b[2] + a[3] * b[5] + a[6] * b[8],
            a[1] * b[0] + a[4] * b[3] + a[7] * b[6], a[1] * b[1] + a[4] * b[4] + a[7] * b[7],
            a[1] * b[2] + a[4] * b[5] + a[7] * b[8],
            a[2] * b[0] + a[5] * b[3] + a[8] * b[6], a[2] * b[1] + a[5] * b[4] + a[8] * b[7],
            a[2] * b[2] + a[5] * b[5] + a[8] * b[8])


@njit(cache=True)
def det(a):
    return (a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6])
            + a[2] * (a[3] * a[7] - a[4] * a[6]))


@njit(cache=True)
def cofactor(a):
    """Cofactor matrix: cof(a) = det(a) a⁻ᵀ."""
    return (a[4] * a[8] - a[5] * a[7], a[5] * a[6] - a[3] * a[8], a[3] * a[7] - a[4] * a[6],
            a[2] * a[7] - a[1] * a[8], a[0] * a[8] - a[2] * a[6], a[1] * a[6] - a[0] * a[7],
            a[1] * a[5] - a[2] * a[4], a[2] * a[3] - a[0] * a[5], a[0] * a[4] - a[1] * a[3])


@njit(cache=True)
def inverse(a):
    """a⁻¹, zero unless det a > 0 (a singular or inverted block adds nothing to a preconditioner)."""
    c = cofactor(a)
    d = a[0] * c[0] + a[1] * c[1] + a[2] * c[2]
    inv = 1.0 / d if d > 0.0 else 0.0
    return (c[0] * inv, c[3] * inv, c[6] * inv, c[1] * inv, c[4] * inv, c[7] * inv, c[2] * inv, c[5] * inv,
            c[8] * inv)


@njit(cache=True)
def frob2(a):
    s = 0.0
    for i in range(9):
        s += a[i] * a[i]
    return s


@njit(cache=True)
def trace(a):
    return a[0] + a[4] + a[8]


@njit(cache=True)
def from_columns(c0, c1, c2):
    """Matrix whose columns are the 3-tuples c0, c1, c2."""
    return (c0[0], c1[0], c2[0], c0[1], c1[1], c2[1], c0[2], c1[2], c2[2])


# cos(acos(r)/3) for 0 ≤ r ≤ 1 (the largest root c of 4c³ − 3c = r) as a polynomial in u = 2r − 1: the Chebyshev
# least-squares fit of degree 15, within 8e-15 of the exact value (which is analytic there: its branch point is r = −1).
_C0, _C1, _C2, _C3 = 0.9396926207859078, 0.06582180727244408, -0.006431413987865973, 0.001106654956096175
_C4, _C5, _C6, _C7 = -0.00023364527504374393, 5.4914414990330616e-05, -1.3791315595714315e-05, 3.623312709147403e-06
_C8, _C9, _C10, _C11 = -9.833823738323141e-07, 2.7359890976456246e-07, -7.79916253828422e-08, 2.2524035730282596e-08
_C12, _C13, _C14, _C15 = -6.116777569912348e-09, 1.771941393302708e-09, -8.244016351375189e-10, 2.5665312921534513e-10


@njit(cache=True, fastmath={"contract"})
def _cos_third_acos(r):
    """cos(acos(r)/3) for 0 ≤ r ≤ 1, by the polynomial above (Estrin's scheme: a short dependency chain)."""
    u = 2.0 * r - 1.0
    u2 = u * u
    u4 = u2 * u2
    u8 = u4 * u4
    a = (_C0 + _C1 * u) + (_C2 + _C3 * u) * u2 + ((_C4 + _C5 * u) + (_C6 + _C7 * u) * u2) * u4
    b = (_C8 + _C9 * u) + (_C10 + _C11 * u) * u2 + ((_C12 + _C13 * u) + (_C14 + _C15 * u) * u2) * u4
    return a + b * u8


@njit(cache=True, fastmath={"contract"})
def sym_deviation_l1(s):
    """Σ|λᵢ − 1| over the eigenvalues λᵢ of the symmetric part of s, to ~1e-14 (without acos and cos).

    With A = sym(s) − I = qI + pB (q = tr A / 3, tr B = 0, ‖B‖² = 6), A's eigenvalues are q + 2p cos(φ + 2πk/3),
    cos 3φ = det B / 2. The one farthest from the other two (k = 0 when det B ≥ 0, else k = 1) comes from
    cos(acos|r|/3) on 0 ≤ |r| ≤ 1, where it is smooth; the other two are the roots of x² − σx + π (σ their sum,
    π = c₂(A) − λσ their product), and |x₁| + |x₂| is |σ| = √σ² when they share a sign (π ≥ 0), else √(σ² − 4π)."""
    a00, a11, a22 = s[0] - 1.0, s[4] - 1.0, s[8] - 1.0
    a01, a02, a12 = 0.5 * (s[1] + s[3]), 0.5 * (s[2] + s[6]), 0.5 * (s[5] + s[7])
    c1 = a00 + a11 + a22
    q = c1 / 3.0
    b00, b11, b22 = a00 - q, a11 - q, a22 - q
    p2 = b00 * b00 + b11 * b11 + b22 * b22 + 2.0 * (a01 * a01 + a02 * a02 + a12 * a12)
    if not p2 > 1e-60:
        return abs(c1)          # A = qI (to ~1e-30)
    p = math.sqrt(p2 / 6.0)
    h = 6.0 / p2               # 1/p³ = p h²: the square root and the division run side by side
    det_b = (b00 * (b11 * b22 - a12 * a12) - a01 * (a01 * b22 - a12 * a02)
             + a02 * (a01 * a12 - b11 * a02))
    r = 0.5 * det_b * h * h * p
    # no branches on signs (either is as likely: a mispredicted one cost more than the arithmetic it saves)
    lam = q + math.copysign(2.0 * p, r) * _cos_third_acos(min(1.0, abs(r)))
    c2 = a00 * a11 - a01 * a01 + a00 * a22 - a02 * a02 + a11 * a22 - a12 * a12
    sigma = c1 - lam
    prod = c2 - lam * sigma
    return abs(lam) + math.sqrt(sigma * sigma - 4.0 * min(prod, 0.0))
