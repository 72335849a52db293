"""Closest points of two segments: at rest, and of a body edge and another edge moving linearly over a step."""
import math

from ..jit import njit


@njit(cache=True, inline="always")
def segment_closest(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz):
    """Parameters (s, t) of the closest points a + s(b − a), c + t(d − c) of two non-degenerate segments
    (Ericson, RTCD 5.1.9); for parallel segments the middle of their overlap (or the nearest ends)."""
    e1x, e1y, e1z = bx - ax, by - ay, bz - az
    e2x, e2y, e2z = dx - cx, dy - cy, dz - cz
    rx, ry, rz = ax - cx, ay - cy, az - cz
    A = e1x * e1x + e1y * e1y + e1z * e1z
    E = e2x * e2x + e2y * e2y + e2z * e2z
    B = e1x * e2x + e1y * e2y + e1z * e2z
    C = e1x * rx + e1y * ry + e1z * rz
    F = e2x * rx + e2y * ry + e2z * rz
    den = A * E - B * B
    if den > 1e-10 * A * E:
        s = min(1.0, max(0.0, (B * F - C * E) / den))
    else:
        sc = -C / A               # c and d projected on ab, in units of s
        sd = (B - C) / A
        lo = max(0.0, min(sc, sd))
        hi = min(1.0, max(sc, sd))
        if lo <= hi:
            s = 0.5 * (lo + hi)
        else:
            s = 0.0 if max(sc, sd) < 0.0 else 1.0
    t = (B * s + F) / E
    if t < 0.0:
        t = 0.0
        s = min(1.0, max(0.0, -C / A))
    elif t > 1.0:
        t = 1.0
        s = min(1.0, max(0.0, (B - C) / A))
    return s, t


@njit(cache=True, inline="always")
def pair_offsets(s, t, p0, p1, ia, ib, v0, v1, ic, id_):
    """The body edge's point at s minus the other edge's point at t at the start of the step (3 values), and
    the change of that offset over the step (3 values)."""
    r, q = 1.0 - s, 1.0 - t
    ux = r * p0[ia, 0] + s * p0[ib, 0] - q * v0[ic, 0] - t * v0[id_, 0]
    uy = r * p0[ia, 1] + s * p0[ib, 1] - q * v0[ic, 1] - t * v0[id_, 1]
    uz = r * p0[ia, 2] + s * p0[ib, 2] - q * v0[ic, 2] - t * v0[id_, 2]
    mx = r * p1[ia, 0] + s * p1[ib, 0] - q * v1[ic, 0] - t * v1[id_, 0] - ux
    my = r * p1[ia, 1] + s * p1[ib, 1] - q * v1[ic, 1] - t * v1[id_, 1] - uy
    mz = r * p1[ia, 2] + s * p1[ib, 2] - q * v1[ic, 2] - t * v1[id_, 2] - uz
    return ux, uy, uz, mx, my, mz


@njit(cache=True)
def closest_at(time, p0, p1, ia, ib, v0, v1, ic, id_):
    """Closest-point parameters (s, t) and distance of the body edge (ia, ib) and the other edge (ic, id_),
    both interpolated linearly to `time` in [0, 1] of the step."""
    r = 1.0 - time
    ax, ay, az = r * p0[ia, 0] + time * p1[ia, 0], r * p0[ia, 1] + time * p1[ia, 1], r * p0[ia, 2] + time * p1[ia, 2]
    bx, by, bz = r * p0[ib, 0] + time * p1[ib, 0], r * p0[ib, 1] + time * p1[ib, 1], r * p0[ib, 2] + time * p1[ib, 2]
    cx, cy, cz = r * v0[ic, 0] + time * v1[ic, 0], r * v0[ic, 1] + time * v1[ic, 1], r * v0[ic, 2] + time * v1[ic, 2]
    dx, dy, dz = (r * v0[id_, 0] + time * v1[id_, 0], r * v0[id_, 1] + time * v1[id_, 1],
                  r * v0[id_, 2] + time * v1[id_, 2])
    s, t = segment_closest(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
    ux = ax + s * (bx - ax) - cx - t * (dx - cx)
    uy = ay + s * (by - ay) - cy - t * (dy - cy)
    uz = az + s * (bz - az) - cz - t * (dz - cz)
    return s, t, math.sqrt(ux * ux + uy * uy + uz * uz)
