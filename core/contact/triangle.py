"""Point–triangle geometry kernels: closest point (barycentric) and projection onto a triangle's plane."""
from ..jit import njit


@njit(cache=True, inline="always")
def closest_point_barycentric(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz):
    """Barycentric coordinates (u, v, w) of the point of triangle abc closest to p (Ericson, RTCD 5.1.5)."""
    abx, aby, abz = bx - ax, by - ay, bz - az
    acx, acy, acz = cx - ax, cy - ay, cz - az
    apx, apy, apz = px - ax, py - ay, pz - az
    d1 = abx * apx + aby * apy + abz * apz
    d2 = acx * apx + acy * apy + acz * apz
    if d1 <= 0.0 and d2 <= 0.0:
        return 1.0, 0.0, 0.0
    bpx, bpy, bpz = px - bx, py - by, pz - bz
    d3 = abx * bpx + aby * bpy + abz * bpz
    d4 = acx * bpx + acy * bpy + acz * bpz
    if d3 >= 0.0 and d4 <= d3:
        return 0.0, 1.0, 0.0
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        t = d1 / (d1 - d3)
        return 1.0 - t, t, 0.0
    cpx, cpy, cpz = px - cx, py - cy, pz - cz
    d5 = abx * cpx + aby * cpy + abz * cpz
    d6 = acx * cpx + acy * cpy + acz * cpz
    if d6 >= 0.0 and d5 <= d6:
        return 0.0, 0.0, 1.0
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        t = d2 / (d2 - d6)
        return 1.0 - t, 0.0, t
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return 0.0, 1.0 - t, t
    denom = va + vb + vc
    if denom == 0.0:  # degenerate triangle: fall back on vertex a
        return 1.0, 0.0, 0.0
    v = vb / denom
    w = vc / denom
    return 1.0 - v - w, v, w


@njit(cache=True, inline="always")
def plane_barycentric(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz):
    """Barycentric coordinates of p's projection onto the plane of abc (may lie outside [0,1]); ok=False if degenerate."""
    e0x, e0y, e0z = bx - ax, by - ay, bz - az
    e1x, e1y, e1z = cx - ax, cy - ay, cz - az
    wx, wy, wz = px - ax, py - ay, pz - az
    d00 = e0x * e0x + e0y * e0y + e0z * e0z
    d01 = e0x * e1x + e0y * e1y + e0z * e1z
    d11 = e1x * e1x + e1y * e1y + e1z * e1z
    d20 = wx * e0x + wy * e0y + wz * e0z
    d21 = wx * e1x + wy * e1y + wz * e1z
    den = d00 * d11 - d01 * d01
    if den <= 1e-30 * (d00 * d11 + 1e-300):
        return 1.0, 0.0, 0.0, False
    v = (d11 * d20 - d01 * d21) / den
    w = (d00 * d21 - d01 * d20) / den
    return 1.0 - v - w, v, w, True

