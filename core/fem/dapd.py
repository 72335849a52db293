"""DAPD (degeneration-aware polar decomposition): witness pairs and the virtual un-inversion of collapsed tets.

A tet whose det F falls below α gets a witness: the vertex–face pair (vertex w opposite its face,
w = 0..3) or edge–edge pair (w = 4: edges 01/23, 5: 02/13, 6: 03/12) that became coincident when
det F(t) = α along the step's straight path (the first root of a cubic in t), or, when the tet
was already collapsed (initial state, scrambled nodes), the pair nearest to coincidence.
While the tet stays collapsed, the witness feature is pushed back virtually along its normal by
λ so that its normalized separation s = h / h_rest becomes s̄ = s + λ(s): λ = 0 for s ≥ α, a
C¹ ramp λ = β d² / (2α) in depth d = α − s < α, then linear with gain β (λ = β (d − α/2)), so
s̄ ≥ α (1 − 1/(2β)) > 0 and grows with inversion depth; R is the polar rotation of the pushed,
un-inverted F̄. The stress still uses the true F, so the energy rises with inversion depth.
"""
import math

from ..jit import njit
from . import mat3

NO_WITNESS = -1


@njit(cache=True)
def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(cache=True)
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True)
def _axpy(a, x, y):
    return (y[0] + a * x[0], y[1] + a * x[1], y[2] + a * x[2])


@njit(cache=True)
def _pick(i, p0, p1, p2, p3):
    if i == 0:
        return p0
    if i == 1:
        return p1
    if i == 2:
        return p2
    return p3


@njit(cache=True)
def edge_matrix(p0, p1, p2, p3):
    """Ds = [p1−p0, p2−p0, p3−p0] (columns)."""
    return mat3.from_columns(_sub(p1, p0), _sub(p2, p0), _sub(p3, p0))


@njit(cache=True)
def _pair(w):
    """Node indices (a, b, c, d) of witness w: vertex a over face bcd (w<4) or edges ab, cd (w>=4)."""
    if w == 0:
        return 0, 1, 2, 3
    if w == 1:
        return 1, 0, 2, 3
    if w == 2:
        return 2, 0, 1, 3
    if w == 3:
        return 3, 0, 1, 2
    if w == 4:
        return 0, 1, 2, 3
    if w == 5:
        return 0, 2, 1, 3
    return 0, 3, 1, 2


@njit(cache=True)
def _normal_and_offset(w, p0, p1, p2, p3):
    """Unnormalized witness normal n and (moving feature − base)·n."""
    a, b, c, d = _pair(w)
    pa, pb, pc, pd = _pick(a, p0, p1, p2, p3), _pick(b, p0, p1, p2, p3), \
        _pick(c, p0, p1, p2, p3), _pick(d, p0, p1, p2, p3)
    if w < 4:
        n = _cross(_sub(pc, pb), _sub(pd, pb))
        return n, _dot(_sub(pa, pb), n)
    n = _cross(_sub(pb, pa), _sub(pd, pc))
    return n, _dot(_sub(pc, pa), n)


@njit(cache=True)
def _clamp01(t):
    return min(1.0, max(0.0, t))


@njit(cache=True)
def _point_triangle_distance2(p, a, b, c):
    """Squared distance from p to triangle abc (Ericson, Real-Time Collision Detection 5.1.5)."""
    ab, ac, ap = _sub(b, a), _sub(c, a), _sub(p, a)
    d1, d2 = _dot(ab, ap), _dot(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return _dot(ap, ap)
    bp = _sub(p, b)
    d3, d4 = _dot(ab, bp), _dot(ac, bp)
    if d3 >= 0.0 and d4 <= d3:
        return _dot(bp, bp)
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        q = _axpy(d1 / (d1 - d3), ab, a)
        return _dot(_sub(p, q), _sub(p, q))
    cp = _sub(p, c)
    d5, d6 = _dot(ab, cp), _dot(ac, cp)
    if d6 >= 0.0 and d5 <= d6:
        return _dot(cp, cp)
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        q = _axpy(d2 / (d2 - d6), ac, a)
        return _dot(_sub(p, q), _sub(p, q))
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        q = _axpy((d4 - d3) / ((d4 - d3) + (d5 - d6)), _sub(c, b), b)
        return _dot(_sub(p, q), _sub(p, q))
    den = va + vb + vc
    if not abs(den) > 1e-300:
        return _dot(ap, ap)
    q = _axpy(vc / den, ac, _axpy(vb / den, ab, a))
    return _dot(_sub(p, q), _sub(p, q))


@njit(cache=True)
def _segment_distance2(p1, q1, p2, q2):
    """Squared distance between segments p1q1 and p2q2 (Ericson 5.1.9)."""
    d1, d2, r = _sub(q1, p1), _sub(q2, p2), _sub(p1, p2)
    a, e, f = _dot(d1, d1), _dot(d2, d2), _dot(d2, r)
    c, b = _dot(d1, r), _dot(d1, d2)
    den = a * e - b * b
    s = _clamp01((b * f - c * e) / den) if den > 1e-300 * (a * e + 1e-300) else 0.0
    t = (b * s + f) / e if e > 1e-300 else 0.0
    if t < 0.0:
        t, s = 0.0, (_clamp01(-c / a) if a > 1e-300 else 0.0)
    elif t > 1.0:
        t, s = 1.0, (_clamp01((b - c) / a) if a > 1e-300 else 0.0)
    c1, c2 = _axpy(s, d1, p1), _axpy(t, d2, p2)
    return _dot(_sub(c1, c2), _sub(c1, c2))


@njit(cache=True)
def _feature_distance2(w, p0, p1, p2, p3):
    """Squared distance between the two features of witness pair w."""
    a, b, c, d = _pair(w)
    pa, pb, pc, pd = _pick(a, p0, p1, p2, p3), _pick(b, p0, p1, p2, p3), \
        _pick(c, p0, p1, p2, p3), _pick(d, p0, p1, p2, p3)
    if w < 4:
        return _point_triangle_distance2(pa, pb, pc, pd)
    return _segment_distance2(pa, pb, pc, pd)


@njit(cache=True)
def nearest_witness(p0, p1, p2, p3):
    """The witness pair whose features are nearest each other (coincident ones at distance 0)."""
    best, best_d = 0, math.inf
    for w in range(7):
        d = _feature_distance2(w, p0, p1, p2, p3)
        if d < best_d:
            best, best_d = w, d
    return best


@njit(cache=True)
def _det_cubic(a, b):
    """Coefficients of det(a + t b) = c0 + c1 t + c2 t² + c3 t³."""
    ca, cb = mat3.cofactor(a), mat3.cofactor(b)
    c1, c2 = 0.0, 0.0
    for i in range(9):
        c1 += ca[i] * b[i]
        c2 += cb[i] * a[i]
    return mat3.det(a), c1, c2, mat3.det(b)


@njit(cache=True)
def _cubic(c, t):
    return c[0] + t * (c[1] + t * (c[2] + t * c[3]))


@njit(cache=True)
def first_crossing(d0, d1, target):
    """First t in [0, 1] with det(d0 + t (d1 − d0)) = target, given det(d0) > target; −1 if none.

    The cubic is split at its critical points into monotone pieces; the first piece that
    changes sign is bisected."""
    c0, c1, c2, c3 = _det_cubic(d0, (d1[0] - d0[0], d1[1] - d0[1], d1[2] - d0[2], d1[3] - d0[3],
                                     d1[4] - d0[4], d1[5] - d0[5], d1[6] - d0[6], d1[7] - d0[7],
                                     d1[8] - d0[8]))
    c = (c0 - target, c1, c2, c3)
    # critical points of the cubic: 3 c3 t² + 2 c2 t + c1 = 0
    ts = [0.0]
    qa, qb, qc = 3.0 * c3, 2.0 * c2, c1
    if abs(qa) > 1e-300:
        disc = qb * qb - 4.0 * qa * qc
        if disc > 0.0:
            sq = math.sqrt(disc)
            r1, r2 = (-qb - sq) / (2.0 * qa), (-qb + sq) / (2.0 * qa)
            if r1 > r2:
                r1, r2 = r2, r1
            if 0.0 < r1 < 1.0:
                ts.append(r1)
            if 0.0 < r2 < 1.0:
                ts.append(r2)
    elif abs(qb) > 1e-300:
        r = -qc / qb
        if 0.0 < r < 1.0:
            ts.append(r)
    ts.append(1.0)
    for k in range(len(ts) - 1):
        lo, hi = ts[k], ts[k + 1]
        if _cubic(c, lo) > 0.0 and _cubic(c, hi) <= 0.0:
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                if _cubic(c, mid) > 0.0:
                    lo = mid
                else:
                    hi = mid
            return hi
    return -1.0


@njit(cache=True)
def uninverted_edges(w, p0, p1, p2, p3, r0, r1, r2, r3, alpha, beta):
    """Edge matrix D̄s with the witness feature pushed back (see module docstring); ok False when the
    witness normal degenerates (face of zero area, parallel edges)."""
    n, hn = _normal_and_offset(w, p0, p1, p2, p3)
    n_rest, hn_rest = _normal_and_offset(w, r0, r1, r2, r3)
    nn, nn_rest = math.sqrt(_dot(n, n)), math.sqrt(_dot(n_rest, n_rest))
    if not nn > 1e-8 * nn_rest or not nn_rest > 0.0:
        return edge_matrix(p0, p1, p2, p3), False
    sign = 1.0 if hn_rest > 0.0 else -1.0
    h_rest = abs(hn_rest) / nn_rest
    h = sign * hn / nn
    s = h / h_rest
    if s >= alpha:
        return edge_matrix(p0, p1, p2, p3), True
    depth = alpha - s
    if depth < alpha:
        push = h_rest * beta * depth * depth / (2.0 * alpha)
    else:
        push = h_rest * beta * (depth - 0.5 * alpha)
    unit = (sign * n[0] / nn, sign * n[1] / nn, sign * n[2] / nn)
    a, b, c, d = _pair(w)
    q = [p0, p1, p2, p3]
    if w < 4:
        q[a] = _axpy(push, unit, q[a])
    else:
        q[a] = _axpy(-0.5 * push, unit, q[a])
        q[b] = _axpy(-0.5 * push, unit, q[b])
        q[c] = _axpy(0.5 * push, unit, q[c])
        q[d] = _axpy(0.5 * push, unit, q[d])
    return edge_matrix(q[0], q[1], q[2], q[3]), True
