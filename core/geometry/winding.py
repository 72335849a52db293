"""Generalized winding numbers of a triangle soup, fast: a BVH with a far-field dipole expansion (Barill et al. 2018)."""
import numpy as np

from ..jit import njit, prange

_LEAF_SIZE = 8
# Far field when |q - cluster centre| > _BETA * cluster radius; error measured in tests/core/test_winding.py.
_BETA = 2.0
_CHUNK = 64
_FOUR_PI = 4.0 * np.pi


def morton_codes(points):
    """30-bit Morton (Z-order) code of every point in its bounding box."""
    lo = points.min(axis=0)
    ext = max(float((points.max(axis=0) - lo).max()), np.finfo(float).tiny)
    q = np.minimum(((points - lo) / ext * 1023.0).astype(np.int64), 1023)
    code = np.zeros(len(points), dtype=np.int64)
    for bit in range(10):
        for axis in range(3):
            code |= ((q[:, axis] >> bit) & 1) << (3 * bit + axis)
    return code


@njit(cache=True)
def _build_tree(codes, leaf_size):
    """Breadth-first binary tree over sorted Morton codes, split at the highest differing bit (octree-like
    compact clusters; the median when all codes are equal): children of node k are left[k], left[k]+1."""
    n = len(codes)
    cap = 2 * n + 1
    lo = np.empty(cap, np.int64)
    hi = np.empty(cap, np.int64)
    left = np.full(cap, -1, np.int64)
    lo[0] = 0
    hi[0] = n
    count = 1
    k = 0
    while k < count:
        if hi[k] - lo[k] > leaf_size:
            x = codes[lo[k]] ^ codes[hi[k] - 1]
            if x == 0:
                mid = (lo[k] + hi[k]) // 2
            else:
                bit = 62
                while (x >> bit) & 1 == 0:
                    bit -= 1
                s, e = lo[k], hi[k] - 1  # first index in range with `bit` set lies in (s, e]
                while e - s > 1:
                    m = (s + e) // 2
                    if (codes[m] >> bit) & 1:
                        e = m
                    else:
                        s = m
                mid = e
            left[k] = count
            lo[count], hi[count] = lo[k], mid
            lo[count + 1], hi[count + 1] = mid, hi[k]
            count += 2
        k += 1
    return lo[:count].copy(), hi[:count].copy(), left[:count].copy()


@njit(cache=True)
def _cluster_moments(a, b, c, lo, hi, left):
    """Area-weighted centre, bounding radius and dipole (sum of area vectors) of every tree node."""
    nn = len(lo)
    center = np.zeros((nn, 3))
    radius = np.zeros(nn)
    dipole = np.zeros((nn, 3))
    area = np.zeros(nn)
    for k in range(nn - 1, -1, -1):
        if left[k] < 0:
            tot = 0.0
            for t in range(lo[k], hi[k]):
                nx = (b[t, 1] - a[t, 1]) * (c[t, 2] - a[t, 2]) - (b[t, 2] - a[t, 2]) * (c[t, 1] - a[t, 1])
                ny = (b[t, 2] - a[t, 2]) * (c[t, 0] - a[t, 0]) - (b[t, 0] - a[t, 0]) * (c[t, 2] - a[t, 2])
                nz = (b[t, 0] - a[t, 0]) * (c[t, 1] - a[t, 1]) - (b[t, 1] - a[t, 1]) * (c[t, 0] - a[t, 0])
                ar = 0.5 * np.sqrt(nx * nx + ny * ny + nz * nz)
                dipole[k, 0] += 0.5 * nx
                dipole[k, 1] += 0.5 * ny
                dipole[k, 2] += 0.5 * nz
                # tiny floor: zero-area triangles still pull the centre toward themselves
                w = ar + 1e-300
                for d in range(3):
                    center[k, d] += w * (a[t, d] + b[t, d] + c[t, d]) / 3.0
                tot += w
            for d in range(3):
                center[k, d] /= tot
            area[k] = tot
            r2 = 0.0
            for t in range(lo[k], hi[k]):
                for p in (a, b, c):
                    dx = p[t, 0] - center[k, 0]
                    dy = p[t, 1] - center[k, 1]
                    dz = p[t, 2] - center[k, 2]
                    r2 = max(r2, dx * dx + dy * dy + dz * dz)
            radius[k] = np.sqrt(r2)
        else:
            l, r = left[k], left[k] + 1
            tot = area[l] + area[r]
            for d in range(3):
                center[k, d] = (area[l] * center[l, d] + area[r] * center[r, d]) / tot
                dipole[k, d] = dipole[l, d] + dipole[r, d]
            area[k] = tot
            rl = np.sqrt(((center[l] - center[k]) ** 2).sum()) + radius[l]
            rr = np.sqrt(((center[r] - center[k]) ** 2).sum()) + radius[r]
            radius[k] = max(rl, rr)
    return center, radius, dipole


@njit(cache=True)
def _solid_angle(qx, qy, qz, a, b, c, t):
    """Signed solid angle of triangle t seen from q (Van Oosterom & Strackee)."""
    ax, ay, az = a[t, 0] - qx, a[t, 1] - qy, a[t, 2] - qz
    bx, by, bz = b[t, 0] - qx, b[t, 1] - qy, b[t, 2] - qz
    cx, cy, cz = c[t, 0] - qx, c[t, 1] - qy, c[t, 2] - qz
    la = np.sqrt(ax * ax + ay * ay + az * az)
    lb = np.sqrt(bx * bx + by * by + bz * bz)
    lc = np.sqrt(cx * cx + cy * cy + cz * cz)
    det = ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
    den = la * lb * lc + (ax * bx + ay * by + az * bz) * lc + (ax * cx + ay * cy + az * cz) * lb \
        + (bx * cx + by * cy + bz * cz) * la
    return 2.0 * np.arctan2(det, den)


@njit(cache=True, parallel=True)
def _winding_numbers(q, a, b, c, lo, hi, left, center, radius, dipole, beta):
    n = len(q)
    out = np.empty(n)
    nchunks = (n + _CHUNK - 1) // _CHUNK
    for ch in prange(nchunks):
        stack = np.empty(256, np.int64)
        for i in range(ch * _CHUNK, min(n, (ch + 1) * _CHUNK)):
            qx, qy, qz = q[i, 0], q[i, 1], q[i, 2]
            w = 0.0
            top = 0
            stack[0] = 0
            top = 1
            while top > 0:
                top -= 1
                k = stack[top]
                dx = center[k, 0] - qx
                dy = center[k, 1] - qy
                dz = center[k, 2] - qz
                d2 = dx * dx + dy * dy + dz * dz
                rb = beta * radius[k]
                if d2 > rb * rb:
                    w += (dx * dipole[k, 0] + dy * dipole[k, 1] + dz * dipole[k, 2]) / (d2 * np.sqrt(d2))
                elif left[k] < 0:
                    for t in range(lo[k], hi[k]):
                        w += _solid_angle(qx, qy, qz, a, b, c, t)
                else:
                    stack[top] = left[k]
                    stack[top + 1] = left[k] + 1
                    top += 2
            out[i] = w / _FOUR_PI
    return out


class WindingNumber:
    """Generalized winding number field of a triangle soup (open, non-manifold or self-intersecting is fine),
    and segment-surface crossing queries on the same tree.

    `WindingNumber(vertices, triangles)(points)` -> (k,) winding numbers: ~1 inside a closed outward-oriented
    surface, ~0 outside, a smooth in-between value near holes.
    """

    def __init__(self, vertices, triangles):
        v = np.ascontiguousarray(vertices, dtype=np.float64)
        t = np.asarray(triangles, dtype=np.int64)
        codes = morton_codes(v[t].mean(axis=1))
        order = np.argsort(codes, kind="stable")
        t = t[order]
        self._a = np.ascontiguousarray(v[t[:, 0]])
        self._b = np.ascontiguousarray(v[t[:, 1]])
        self._c = np.ascontiguousarray(v[t[:, 2]])
        self._lo, self._hi, self._left = _build_tree(codes[order], _LEAF_SIZE)
        self._center, self._radius, self._dipole = _cluster_moments(
            self._a, self._b, self._c, self._lo, self._hi, self._left)

    def __call__(self, points, beta=_BETA):
        """Winding numbers at points (k,3); beta=inf gives the exact (brute-force) sum."""
        q = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 3)
        return _winding_numbers(q, self._a, self._b, self._c, self._lo, self._hi, self._left,
                                self._center, self._radius, self._dipole, float(beta))

    def crossings(self, starts, ends, margin=1e-6):
        """For segments (k,3)->(k,3): True where a triangle crosses the segment strictly inside (segment parameter
        in (margin, 1 - margin)), so a segment that starts or ends on the surface does not count its own ends."""
        return _crossings(np.ascontiguousarray(starts, np.float64), np.ascontiguousarray(ends, np.float64),
                          self._a, self._b, self._c, self._lo, self._hi, self._left, self._center, self._radius,
                          float(margin))


@njit(cache=True)
def _segment_crosses_triangle(p, d, a, b, c, t, lo, hi):
    """Möller-Trumbore: does p + s*d, s in (lo, hi), cross triangle t (non-parallel crossings only)?"""
    e1x, e1y, e1z = b[t, 0] - a[t, 0], b[t, 1] - a[t, 1], b[t, 2] - a[t, 2]
    e2x, e2y, e2z = c[t, 0] - a[t, 0], c[t, 1] - a[t, 1], c[t, 2] - a[t, 2]
    px, py, pz = d[1] * e2z - d[2] * e2y, d[2] * e2x - d[0] * e2z, d[0] * e2y - d[1] * e2x
    det = e1x * px + e1y * py + e1z * pz
    scale = np.sqrt((e1x * e1x + e1y * e1y + e1z * e1z) * (px * px + py * py + pz * pz))
    if abs(det) <= 1e-12 * scale or scale == 0.0:
        return False
    inv = 1.0 / det
    sx, sy, sz = p[0] - a[t, 0], p[1] - a[t, 1], p[2] - a[t, 2]
    u = (sx * px + sy * py + sz * pz) * inv
    if u < 0.0 or u > 1.0:
        return False
    qx, qy, qz = sy * e1z - sz * e1y, sz * e1x - sx * e1z, sx * e1y - sy * e1x
    v = (d[0] * qx + d[1] * qy + d[2] * qz) * inv
    if v < 0.0 or u + v > 1.0:
        return False
    s = (e2x * qx + e2y * qy + e2z * qz) * inv
    return lo < s < hi


@njit(cache=True, parallel=True)
def _crossings(starts, ends, a, b, c, lo, hi, left, center, radius, margin):
    n = len(starts)
    out = np.zeros(n, np.bool_)
    for i in prange(n):
        stack = np.empty(256, np.int64)
        p = starts[i]
        d = ends[i] - starts[i]
        dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
        stack[0] = 0
        top = 1
        while top > 0 and not out[i]:
            top -= 1
            k = stack[top]
            # distance from the cluster's centre to the segment vs its radius
            s = 0.0
            if dd != 0.0:
                s = ((center[k, 0] - p[0]) * d[0] + (center[k, 1] - p[1]) * d[1] + (center[k, 2] - p[2]) * d[2]) / dd
                s = min(1.0, max(0.0, s))
            qx = p[0] + s * d[0] - center[k, 0]
            qy = p[1] + s * d[1] - center[k, 1]
            qz = p[2] + s * d[2] - center[k, 2]
            if qx * qx + qy * qy + qz * qz > radius[k] * radius[k]:
                continue
            if left[k] < 0:
                for t in range(lo[k], hi[k]):
                    if _segment_crosses_triangle(p, d, a, b, c, t, margin, 1.0 - margin):
                        out[i] = True
                        break
            else:
                stack[top] = left[k]
                stack[top + 1] = left[k] + 1
                top += 2
    return out
