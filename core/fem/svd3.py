"""Symmetric 3×3 eigendecomposition (cyclic Jacobi) and the signed SVD F = U diag(σ) Vᵀ of Irving et al. 2004."""
import math

from ..jit import njit

_SWEEPS = 10


@njit(inline="always", cache=True)
def _rotate(app, aqq, apq, arp, arq, v0p, v0q, v1p, v1q, v2p, v2q):
    """One Jacobi rotation zeroing a_pq (r the third index; v's columns p, q rotated alike)."""
    if apq == 0.0:
        return app, aqq, arp, arq, v0p, v0q, v1p, v1q, v2p, v2q
    theta = (aqq - app) / (2.0 * apq)
    t = 1.0 / (abs(theta) + math.sqrt(theta * theta + 1.0))
    if theta < 0.0:
        t = -t
    c = 1.0 / math.sqrt(t * t + 1.0)
    s = t * c
    return (app - t * apq, aqq + t * apq, c * arp - s * arq, s * arp + c * arq,
            c * v0p - s * v0q, s * v0p + c * v0q, c * v1p - s * v1q, s * v1p + c * v1q,
            c * v2p - s * v2q, s * v2p + c * v2q)


@njit(cache=True)
def sym_eigen(a00, a11, a22, a01, a02, a12):
    """Eigenvalues (d0, d1, d2) and eigenvectors (row-major 9-tuple V, eigenvector k in column k) of the symmetric
    matrix [[a00, a01, a02], [a01, a11, a12], [a02, a12, a22]]; V is orthogonal (det ±1), unsorted."""
    v00, v01, v02, v10, v11, v12, v20, v21, v22 = 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0
    scale = a00 * a00 + a11 * a11 + a22 * a22 + 2.0 * (a01 * a01 + a02 * a02 + a12 * a12)
    for _ in range(_SWEEPS):
        if a01 * a01 + a02 * a02 + a12 * a12 <= 1e-30 * scale:
            break
        a00, a11, a02, a12, v00, v01, v10, v11, v20, v21 = _rotate(a00, a11, a01, a02, a12, v00, v01, v10, v11,
                                                                   v20, v21)
        a01 = 0.0
        a00, a22, a01, a12, v00, v02, v10, v12, v20, v22 = _rotate(a00, a22, a02, a01, a12, v00, v02, v10, v12,
                                                                   v20, v22)
        a02 = 0.0
        a11, a22, a01, a02, v01, v02, v11, v12, v21, v22 = _rotate(a11, a22, a12, a01, a02, v01, v02, v11, v12,
                                                                   v21, v22)
        a12 = 0.0
    return (a00, a11, a22), (v00, v01, v02, v10, v11, v12, v20, v21, v22)


@njit(inline="always", cache=True)
def _unit_perpendicular(x, y, z):
    """A unit vector perpendicular to the unit vector (x, y, z)."""
    if abs(x) < abs(y) and abs(x) < abs(z):
        a, b, c = 0.0, z, -y            # (1, 0, 0) × u
    elif abs(y) < abs(z):
        a, b, c = -z, 0.0, x            # (0, 1, 0) × u
    else:
        a, b, c = y, -x, 0.0            # (0, 0, 1) × u
    n = math.sqrt(a * a + b * b + c * c)
    return a / n, b / n, c / n


@njit(cache=True)
def signed_svd(f):
    """F (row-major 9-tuple) = U diag(σ) Vᵀ with U, V proper rotations and σ₀ ≥ σ₁ ≥ |σ₂|: an inverted F
    (det F < 0) gets the reflection in σ₂ < 0 (Irving, Teran, Fedkiw 2004). Returns (U, (σ₀, σ₁, σ₂), V)."""
    c00 = f[0] * f[0] + f[3] * f[3] + f[6] * f[6]
    c11 = f[1] * f[1] + f[4] * f[4] + f[7] * f[7]
    c22 = f[2] * f[2] + f[5] * f[5] + f[8] * f[8]
    c01 = f[0] * f[1] + f[3] * f[4] + f[6] * f[7]
    c02 = f[0] * f[2] + f[3] * f[5] + f[6] * f[8]
    c12 = f[1] * f[2] + f[4] * f[5] + f[7] * f[8]
    d, v = sym_eigen(c00, c11, c22, c01, c02, c12)
    # columns of V in decreasing order of σ²
    i0, i1, i2 = 0, 1, 2
    if d[i0] < d[i1]:
        i0, i1 = i1, i0
    if d[i1] < d[i2]:
        i1, i2 = i2, i1
    if d[i0] < d[i1]:
        i0, i1 = i1, i0
    va = (v[i0], v[3 + i0], v[6 + i0])
    vb = (v[i1], v[3 + i1], v[6 + i1])
    vc = (va[1] * vb[2] - va[2] * vb[1], va[2] * vb[0] - va[0] * vb[2], va[0] * vb[1] - va[1] * vb[0])  # det V = 1
    b0 = (f[0] * va[0] + f[1] * va[1] + f[2] * va[2], f[3] * va[0] + f[4] * va[1] + f[5] * va[2],
          f[6] * va[0] + f[7] * va[1] + f[8] * va[2])
    b1 = (f[0] * vb[0] + f[1] * vb[1] + f[2] * vb[2], f[3] * vb[0] + f[4] * vb[1] + f[5] * vb[2],
          f[6] * vb[0] + f[7] * vb[1] + f[8] * vb[2])
    b2 = (f[0] * vc[0] + f[1] * vc[1] + f[2] * vc[2], f[3] * vc[0] + f[4] * vc[1] + f[5] * vc[2],
          f[6] * vc[0] + f[7] * vc[1] + f[8] * vc[2])
    s0 = math.sqrt(b0[0] * b0[0] + b0[1] * b0[1] + b0[2] * b0[2])
    if s0 > 1e-300:
        u0 = (b0[0] / s0, b0[1] / s0, b0[2] / s0)
    else:
        u0 = (1.0, 0.0, 0.0)
    dot = u0[0] * b1[0] + u0[1] * b1[1] + u0[2] * b1[2]
    w = (b1[0] - dot * u0[0], b1[1] - dot * u0[1], b1[2] - dot * u0[2])
    s1 = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    if s1 > 1e-12 * s0 and s1 > 1e-300:
        u1 = (w[0] / s1, w[1] / s1, w[2] / s1)
    else:
        u1 = _unit_perpendicular(u0[0], u0[1], u0[2])
    u2 = (u0[1] * u1[2] - u0[2] * u1[1], u0[2] * u1[0] - u0[0] * u1[2], u0[0] * u1[1] - u0[1] * u1[0])
    s2 = u2[0] * b2[0] + u2[1] * b2[1] + u2[2] * b2[2]
    u = (u0[0], u1[0], u2[0], u0[1], u1[1], u2[1], u0[2], u1[2], u2[2])
    vm = (va[0], vb[0], vc[0], va[1], vb[1], vc[1], va[2], vb[2], vc[2])
    return u, (s0, s1, s2), vm
