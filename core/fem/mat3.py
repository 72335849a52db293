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


@njit(cache=True)
def sym_eigenvalues(s):
    """Eigenvalues of the symmetric part of s (closed form, trigonometric)."""
    a00, a11, a22 = s[0], s[4], s[8]
    a01, a02, a12 = 0.5 * (s[1] + s[3]), 0.5 * (s[2] + s[6]), 0.5 * (s[5] + s[7])
    p1 = a01 * a01 + a02 * a02 + a12 * a12
    q = (a00 + a11 + a22) / 3.0
    p2 = (a00 - q) ** 2 + (a11 - q) ** 2 + (a22 - q) ** 2 + 2.0 * p1
    if p2 <= 1e-30 * (q * q + 1e-300):
        return q, q, q
    p = math.sqrt(p2 / 6.0)
    b00, b11, b22 = (a00 - q) / p, (a11 - q) / p, (a22 - q) / p
    b01, b02, b12 = a01 / p, a02 / p, a12 / p
    r = 0.5 * (b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02)
               + b02 * (b01 * b12 - b11 * b02))
    r = min(1.0, max(-1.0, r))
    phi = math.acos(r) / 3.0
    e0 = q + 2.0 * p * math.cos(phi)
    e2 = q + 2.0 * p * math.cos(phi + 2.0 * math.pi / 3.0)
    return e0, 3.0 * q - e0 - e2, e2
