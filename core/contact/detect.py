"""Detection kernels: render points' swept segments against padded triangles through the BVH (continuous, conservative), as rows."""
import math

import numpy as np

from ..jit import njit, prange
from .bvh import STACK_SIZE, query_box
from .triangle import closest_point_barycentric, plane_barycentric

CANDIDATES = 4096   # candidate triangles examined per point (a long segment over a fine mesh)
CHUNK = 256         # points per parallel work item (buffers are allocated per chunk)
BARY_TOLERANCE = 0.003   # a point may project this far (in barycentric units) past a triangle edge
# A side hint tells the side of the triangles within 60° of it: across a sharper fold of an open mesh (a cup's wall
# and its floor, at 90°) the hint says nothing of the other face, and taken there as "the side n·hint ≥ 0" it put a
# cube resting in the cup on the floor's underside, pushed down through it against the plane below (a cage node
# was thrown 1e14 m)
HINT_COSINE = 0.5


@njit(cache=True, inline="always")
def take_slot(score, used, sc):
    """The slot a candidate of score sc (lower: more urgent) takes when the best score.shape[0] are kept and
    `used` slots are filled: the next free one, else the one of the worst kept if sc beats it, else −1; sc is
    recorded in it. Returns the slot and how many slots are filled now."""
    if used < score.shape[0]:
        score[used] = sc
        return used, used + 1
    k = 0
    for m in range(1, score.shape[0]):
        if score[m] > score[k]:
            k = m
    if sc < score[k]:
        score[k] = sc
        return k, used
    return -1, used


@njit(cache=True, inline="always")
def keep_slot(row, t, u, v, w, nx, ny, nz, H0, sc, tau, score, used, slot_tri, slot_b, slot_n, slot_gap):
    """Record triangle t met at barycentrics (u, v, w) with normal n, start height H0 and score sc in the row's
    slots (the best K by score, take_slot), unless a kept one shows the same plane (normal within 0.8° and the same
    score: a point over a shared edge sees one plane through two triangles: one row). Returns how many slots are
    filled."""
    for m in range(used):
        if (slot_n[row, m, 0] * nx + slot_n[row, m, 1] * ny + slot_n[row, m, 2] * nz > 0.9999
                and abs(score[m] - sc) <= 1e-9 + 1e-6 * abs(sc)):
            return used
    k, used = take_slot(score, used, sc)
    if k >= 0:
        slot_tri[row, k] = t
        slot_b[row, k, 0], slot_b[row, k, 1], slot_b[row, k, 2] = u, v, w
        slot_n[row, k, 0], slot_n[row, k, 1], slot_n[row, k, 2] = nx, ny, nz
        slot_gap[row, k] = H0 - tau
    return used


@njit(cache=True, inline="always")
def triangle_normal(v, tris, t):
    """Unit normal of triangle t (vertices v) and whether it is one: False for a degenerate (or NaN) triangle."""
    ia, ib, ic = tris[t, 0], tris[t, 1], tris[t, 2]
    e0x, e0y, e0z = v[ib, 0] - v[ia, 0], v[ib, 1] - v[ia, 1], v[ib, 2] - v[ia, 2]
    e1x, e1y, e1z = v[ic, 0] - v[ia, 0], v[ic, 1] - v[ia, 1], v[ic, 2] - v[ia, 2]
    nx = e0y * e1z - e0z * e1y
    ny = e0z * e1x - e0x * e1z
    nz = e0x * e1y - e0y * e1x
    nlen = math.sqrt(nx * nx + ny * ny + nz * nz)
    scale = e0x * e0x + e0y * e0y + e0z * e0z + e1x * e1x + e1y * e1y + e1z * e1z
    if not nlen > 1e-12 * scale:
        return 0.0, 0.0, 0.0, False
    return nx / nlen, ny / nlen, nz / nlen, True


@njit(cache=True, parallel=True)
def triangle_normals(v, tris, out):
    """out (T,3): the triangles' unit normals (triangle_normal), NaN for a degenerate one."""
    for t in prange(tris.shape[0]):
        nx, ny, nz, ok = triangle_normal(v, tris, t)
        if not ok:
            nx = ny = nz = np.nan
        out[t, 0], out[t, 1], out[t, 2] = nx, ny, nz


@njit(cache=True, parallel=True)
def detect(p0, p1, ids, pt_group, v0, v1, tris, tri_normal, tri_group, tri_thick, tri_onesided, held,
           left, right, start, count, order, lo, hi, margin, search_depth, hint_depth, side_hint, hint_source,
           tri_source, slot_tri, slot_b, slot_n, slot_gap):
    """Fill up to K contact constraints per point (slot_* arrays of shape (P,K,...), slot_tri -1 when empty).

    Row i of p0, p1 (start and end positions) is point ids[i] of pt_group and side_hint. tri_normal: the
    triangles' unit normals at v0 (triangle_normals), or (0,3): computed here.

    For a triangle with (outward) normal n and thickness τ, the point's signed height H(t) above the
    offset plane is linear over the step; the constraint is recorded when H(1) < τ + margin and the
    point, at the time it reaches the offset plane (or at the start if already inside the shell),
    projects inside the triangle. Open meshes are two-sided: the side is the one of the point's
    previous contact normal side_hint (if nonzero, within 60° of ±n (HINT_COSINE), and the point is within
    hint_depth of the plane, so a point that sank slightly below a zero-thickness plane is pushed back, not through)
    and came from this surface (hint_source[pid] == tri_source[t]: another surface's normal tells nothing of this
    one's sides), else the side the point starts on; closed meshes are one-sided: a point behind its nearest
    triangle is inside and gets a single
    push-out constraint along that triangle's normal (unless an equally near triangle sees it in front); for a body
    held inside a closed collider (held[pt_group, tri_source], tri_source ≥ 0: a collider) its normals are turned
    inward, its outside solid.
    slot_gap holds H(0) − τ.
    """
    npts = p0.shape[0]
    K = slot_tri.shape[1]
    nchunks = (npts + CHUNK - 1) // CHUNK
    for ch in prange(nchunks):
        cand = np.empty(CANDIDATES, np.int64)
        stack = np.empty(STACK_SIZE, np.int64)
        score = np.empty(K)
        for i in range(ch * CHUNK, min(npts, (ch + 1) * CHUNK)):
            for k in range(K):
                slot_tri[i, k] = -1
            pid = ids[i]
            hx, hy, hz = side_hint[pid, 0], side_hint[pid, 1], side_hint[pid, 2]
            hsource = hint_source[pid]
            px0, py0, pz0 = p0[i, 0], p0[i, 1], p0[i, 2]
            px1, py1, pz1 = p1[i, 0], p1[i, 1], p1[i, 2]
            # the triangles' boxes carry the padding (thickness, margin, search depth of closed meshes)
            nfound = query_box(min(px0, px1), min(py0, py1), min(pz0, pz1), max(px0, px1), max(py0, py1),
                               max(pz0, pz1), left, right, start, count, order, lo, hi, stack, cand)
            nfound = min(nfound, CANDIDATES)
            used = 0
            best = -1
            best_d = np.inf
            best_cos = 0.0
            best_h = 0.0
            front_tie = False
            bu = bv = bw = 0.0
            bnx = bny = bnz = 0.0
            for j in range(nfound):
                t = cand[j]
                if tri_group[t] == pt_group[pid]:
                    continue
                if tri_normal.shape[0] > 0:
                    nx, ny, nz = tri_normal[t, 0], tri_normal[t, 1], tri_normal[t, 2]
                    ok = nx == nx
                else:
                    nx, ny, nz, ok = triangle_normal(v0, tris, t)
                if not ok:  # degenerate (or NaN) triangle: skipped
                    continue
                src = tri_source[t]
                if tri_onesided[t] and 0 <= src < held.shape[1] and held[pt_group[pid], src]:
                    nx, ny, nz = -nx, -ny, -nz
                ia, ib, ic = tris[t, 0], tris[t, 1], tris[t, 2]
                ax, ay, az = v0[ia, 0], v0[ia, 1], v0[ia, 2]
                bx, by, bz = v0[ib, 0], v0[ib, 1], v0[ib, 2]
                cx, cy, cz = v0[ic, 0], v0[ic, 1], v0[ic, 2]
                h0 = nx * (px0 - ax) + ny * (py0 - ay) + nz * (pz0 - az)
                h1 = (nx * (px1 - v1[ia, 0]) + ny * (py1 - v1[ia, 1]) + nz * (pz1 - v1[ia, 2]))
                tau = tri_thick[t]
                if tri_onesided[t]:
                    u, v, w = closest_point_barycentric(px0, py0, pz0, ax, ay, az, bx, by, bz, cx, cy, cz)
                    dx = px0 - (u * ax + v * bx + w * cx)
                    dy = py0 - (u * ay + v * by + w * cy)
                    dz = pz0 - (u * az + v * bz + w * cz)
                    d = math.sqrt(dx * dx + dy * dy + dz * dz)
                    cosv = abs(h0) / d if d > 0.0 else 1.0
                    tol = 1e-6 * d + 1e-12
                    if d < best_d - tol:
                        front_tie = h0 >= 0.0
                    elif d <= best_d + tol:
                        front_tie = front_tie or h0 >= 0.0
                    if d < best_d - tol or (d <= best_d + tol and cosv > best_cos):
                        best, best_d, best_cos, best_h = t, d, cosv, h0
                        bu, bv, bw = u, v, w
                        bnx, bny, bnz = nx, ny, nz
                    s = 1.0
                elif (hsource == tri_source[t] and abs(h0) < hint_depth + tau
                      and abs(hx * nx + hy * ny + hz * nz) >= HINT_COSINE):
                    s = 1.0 if hx * nx + hy * ny + hz * nz >= 0.0 else -1.0
                elif h0 > 0.0:
                    s = 1.0
                elif h0 < 0.0:
                    s = -1.0
                else:
                    s = -1.0 if h1 > 0.0 else 1.0
                H0 = s * h0
                H1 = s * h1
                if (H0 < 0.0 and tri_onesided[t]) or H1 >= tau + margin:
                    continue
                if H0 <= tau:
                    ts = 0.0
                elif H1 < tau:
                    ts = (H0 - tau) / (H0 - H1)
                else:
                    ts = 1.0
                r = 1.0 - ts
                qx, qy, qz = r * px0 + ts * px1, r * py0 + ts * py1, r * pz0 + ts * pz1
                u, v, w, ok = plane_barycentric(
                    qx, qy, qz,
                    r * ax + ts * v1[ia, 0], r * ay + ts * v1[ia, 1], r * az + ts * v1[ia, 2],
                    r * bx + ts * v1[ib, 0], r * by + ts * v1[ib, 1], r * bz + ts * v1[ib, 2],
                    r * cx + ts * v1[ic, 0], r * cy + ts * v1[ic, 1], r * cz + ts * v1[ic, 2])
                if not ok or u < -BARY_TOLERANCE or v < -BARY_TOLERANCE or w < -BARY_TOLERANCE:
                    continue
                used = keep_slot(i, t, u, v, w, s * nx, s * ny, s * nz, H0, H1 - tau, tau, score, used, slot_tri,
                                 slot_b, slot_n, slot_gap)
            # inside only when no triangle as near as the nearest one sees the point in front: at a convex edge
            # or corner (a point just past a cube's corner) the crossing constraints above are kept instead; and
            # only within search_depth: a large face's box can hold a point far from the face itself (a body
            # falling beside a stair box was pushed 1.25 m along the normal of a face behind it)
            if best >= 0 and best_h < 0.0 and not front_tie and best_d <= search_depth + tri_thick[best]:
                for k in range(K):
                    slot_tri[i, k] = -1
                slot_tri[i, 0] = best
                slot_b[i, 0, 0], slot_b[i, 0, 1], slot_b[i, 0, 2] = bu, bv, bw
                slot_n[i, 0, 0], slot_n[i, 0, 1], slot_n[i, 0, 2] = bnx, bny, bnz
                slot_gap[i, 0] = best_h - tri_thick[best]


@njit(cache=True)
def vertex_rows(ids, slot_tri, slot_b, slot_n, slot_gap, nodes, weights, tris, dv, width):
    """The filled slots of detect as solver rows, in point then slot order: point ids[i], triangle, normal, gap,
    the stencil (node, coef: width columns, −1 and 0 where unused) and the triangle's motion at the contact.

    The stencil holds the point's nodes and weights (nodes, weights: per point id); width 16 (a body's triangle,
    its vertices being points too) then each vertex's nodes and −b times its weights. The motion is Σ b dv over
    the triangle's vertices (dv: their displacement over the step; no rows: zeros)."""
    n = 0
    for i in range(slot_tri.shape[0]):
        for k in range(slot_tri.shape[1]):
            n += slot_tri[i, k] >= 0
    point = np.empty(n, np.int64)
    tri = np.empty(n, np.int64)
    normal = np.empty((n, 3))
    gap = np.empty(n)
    node = np.full((n, width), -1, np.int64)
    coef = np.zeros((n, width))
    move = np.zeros((n, 3))
    side = nodes.shape[1]
    c = 0
    for i in range(slot_tri.shape[0]):
        for k in range(slot_tri.shape[1]):
            t = slot_tri[i, k]
            if t < 0:
                continue
            p = ids[i]
            point[c] = p
            tri[c] = t
            gap[c] = slot_gap[i, k]
            for d in range(3):
                normal[c, d] = slot_n[i, k, d]
            for s in range(side):
                node[c, s] = nodes[p, s]
                coef[c, s] = weights[p, s]
            if width > side:
                for m in range(3):
                    q = tris[t, m]
                    for s in range(side):
                        node[c, side * (m + 1) + s] = nodes[q, s]
                        coef[c, side * (m + 1) + s] = -(slot_b[i, k, m] * weights[q, s])
            if dv.shape[0] > 0:
                for d in range(3):
                    acc = 0.0   # as np.einsum sums (from zero: −0.0 terms sum to +0.0)
                    for m in range(3):
                        acc += slot_b[i, k, m] * dv[tris[t, m], d]
                    move[c, d] = acc
            c += 1
    return point, tri, normal, gap, node, coef, move
