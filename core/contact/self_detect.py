"""Self contact's narrow phase: the test of one render point against one of its body's triangles over a step, and
the two ways of choosing the pairs to test: a BVH query per point (detect_self), or a body's reference pair list
(reference_pairs, detect_pairs) for a body that has moved little since the list was taken.

The side and row rules are core.contact.self_contact's (its module docstring)."""
import numpy as np

from ..csr import csr_find
from ..jit import njit, prange
from .bvh import STACK_SIZE, query_box
from .detect import BARY_TOLERANCE, CANDIDATES, CHUNK, HINT_COSINE, keep_slot, triangle_normal
from .self_cull import CONE_LIMIT, TRIANGLE, triangle_cone, union_angle, union_of
from .sides import OPEN_DEPTH
from .surface import embed_swept
from .triangle import closest_point_barycentric, plane_barycentric

@njit(cache=True, inline="always")
def _meet(q0, q1, closed, tau, margin, hinted, hx, hy, hz):
    """Whether the point q[0] meets the triangle q[1..3] (q0: start, q1: end of the step, (4,3)) within margin:
    (met, u, v, w, nx, ny, nz, H0, score); n: the normal on the side the point is held on, H0: its start height,
    score: its end height less tau (lower: more urgent)."""
    nx, ny, nz, ok = triangle_normal(q0, TRIANGLE, 0)
    if not ok:
        return False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    h0 = nx * (q0[0, 0] - q0[1, 0]) + ny * (q0[0, 1] - q0[1, 1]) + nz * (q0[0, 2] - q0[1, 2])
    h1 = nx * (q1[0, 0] - q1[1, 0]) + ny * (q1[0, 1] - q1[1, 1]) + nz * (q1[0, 2] - q1[1, 2])
    if closed:
        s = 1.0
    elif hinted and abs(h0) < OPEN_DEPTH + tau and abs(hx * nx + hy * ny + hz * nz) >= HINT_COSINE:
        s = 1.0 if hx * nx + hy * ny + hz * nz >= 0.0 else -1.0
    elif h0 > 0.0:
        s = 1.0
    elif h0 < 0.0:
        s = -1.0
    else:
        s = -1.0 if h1 > 0.0 else 1.0
    H0 = s * h0
    H1 = s * h1
    if H0 < -tau or H1 >= tau + margin:
        return False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    if H0 <= tau:
        ts = 0.0
    elif H1 < tau:
        ts = (H0 - tau) / (H0 - H1)
    else:
        ts = 1.0
    r = 1.0 - ts
    u, v, w, ok = plane_barycentric(
        r * q0[0, 0] + ts * q1[0, 0], r * q0[0, 1] + ts * q1[0, 1], r * q0[0, 2] + ts * q1[0, 2],
        r * q0[1, 0] + ts * q1[1, 0], r * q0[1, 1] + ts * q1[1, 1], r * q0[1, 2] + ts * q1[1, 2],
        r * q0[2, 0] + ts * q1[2, 0], r * q0[2, 1] + ts * q1[2, 1], r * q0[2, 2] + ts * q1[2, 2],
        r * q0[3, 0] + ts * q1[3, 0], r * q0[3, 1] + ts * q1[3, 1], r * q0[3, 2] + ts * q1[3, 2])
    if not ok or u < -BARY_TOLERANCE or v < -BARY_TOLERANCE or w < -BARY_TOLERANCE:
        return False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    return True, u, v, w, s * nx, s * ny, s * nz, H0, H1 - tau


@njit(cache=True, inline="always")
def _load(p0, p1, i, tris, t, q0, q1):
    """q0, q1 = point i and triangle t's vertices at the start and end (rows 0, 1..3)."""
    for d in range(3):
        q0[0, d], q1[0, d] = p0[i, d], p1[i, d]
        for j in range(3):
            q0[j + 1, d], q1[j + 1, d] = p0[tris[t, j], d], p1[tris[t, j], d]


@njit(cache=True, inline="always")
def _ring_cone(i, ring_ptr, ring_tri, tri_axis, tri_angle, cones):
    """The cone (axis, half-angle) holding the cones (tri_axis, tri_angle) of point i's own triangles (ring_ptr,
    ring_tri: CSR); cones: scratch rows."""
    n = 0
    for e in range(ring_ptr[i], ring_ptr[i + 1]):
        r = ring_tri[e]
        cones[n, 0], cones[n, 1], cones[n, 2] = tri_axis[r, 0], tri_axis[r, 1], tri_axis[r, 2]
        cones[n, 3] = tri_angle[r]
        n += 1
    return union_of(cones, n)


@njit(cache=True, inline="always")
def _embedded_ring_cone(i, ring_ptr, ring_tri, x0, v, dt, nodes, weights, tris, q0, q1, cones):
    """As _ring_cone, with the triangles' cones from their vertices embedded here (into q0, q1 rows 1..3)."""
    n = 0
    for e in range(ring_ptr[i], ring_ptr[i + 1]):
        r = ring_tri[e]
        for j in range(3):
            embed_swept(x0, nodes, weights, dt, v, tris[r, j], q0, q1, j + 1)
        cones[n, 0], cones[n, 1], cones[n, 2], cones[n, 3] = triangle_cone(q0, q1)
        n += 1
    return union_of(cones, n)


@njit(cache=True)
def _largest_ring(ring_ptr):
    n = 0
    for i in range(ring_ptr.shape[0] - 1):
        n = max(n, ring_ptr[i + 1] - ring_ptr[i])
    return n


@njit(cache=True, parallel=True)
def detect_self(ids, p0, p1, tris, ptr, excl, closed, tau, margin, hint, hint_source, source, ring_ptr, ring_tri,
                tri_axis, tri_angle, left, right, start, count, order, lo, hi, slot_tri, slot_b, slot_n, slot_gap):
    """Up to K self contacts per point ids[r] of one body (slot_* (len(ids),K,...), slot_tri −1 when empty): point i
    (start p0[i], end p1[i]) against the triangles tris over the same points that the BVH (left .. hi) finds, but
    its excluded ones (ptr, excl) and those whose cone with the point's own triangles' (ring_ptr,
    ring_tri: CSR; tri_axis, tri_angle: the triangles' cones over the step) is narrower than CONE_LIMIT (the rule of
    core.contact.self_cull); tau: the contact thickness; hint, hint_source: the points' side hints (source: the
    body's surface id). slot_gap: the start height less tau."""
    npts = ids.shape[0]
    K = slot_tri.shape[1]
    ring = _largest_ring(ring_ptr)
    nchunks = (npts + CHUNK - 1) // CHUNK
    for ch in prange(nchunks):
        cand = np.empty(CANDIDATES, np.int64)
        stack = np.empty(STACK_SIZE, np.int64)
        score = np.empty(K)
        q0, q1 = np.empty((4, 3)), np.empty((4, 3))
        cones = np.empty((ring, 4))
        for row in range(ch * CHUNK, min(npts, (ch + 1) * CHUNK)):
            for k in range(K):
                slot_tri[row, k] = -1
            i = ids[row]
            ax, ay, az, alpha = _ring_cone(i, ring_ptr, ring_tri, tri_axis, tri_angle, cones)
            cull = alpha < CONE_LIMIT
            nfound = query_box(min(p0[i, 0], p1[i, 0]), min(p0[i, 1], p1[i, 1]), min(p0[i, 2], p1[i, 2]),
                               max(p0[i, 0], p1[i, 0]), max(p0[i, 1], p1[i, 1]), max(p0[i, 2], p1[i, 2]),
                               left, right, start, count, order, lo, hi, stack, cand)
            hinted = hint_source[i] == source
            used = 0
            for j in range(min(nfound, CANDIDATES)):
                t = cand[j]
                if cull and union_angle(ax, ay, az, alpha, tri_axis[t, 0], tri_axis[t, 1], tri_axis[t, 2],
                                        tri_angle[t]) < CONE_LIMIT:
                    continue
                if tris[t, 0] == i or tris[t, 1] == i or tris[t, 2] == i or csr_find(ptr, excl, i, t) >= 0:
                    continue
                _load(p0, p1, i, tris, t, q0, q1)
                met, u, v, w, nx, ny, nz, H0, sc = _meet(q0, q1, closed, tau, margin, hinted, hint[i, 0],
                                                         hint[i, 1], hint[i, 2])
                if met:
                    used = keep_slot(row, t, u, v, w, nx, ny, nz, H0, sc, tau, score, used, slot_tri, slot_b, slot_n,
                                 slot_gap)


@njit(cache=True, parallel=True)
def detect_pairs(ids, pair_ptr, pair_tri, pair_dist, bound, x0, v, dt, nodes, weights, tris, closed, tau, margin,
                 hint, hint_source, source, ring_ptr, ring_tri, slot_tri, slot_b, slot_n, slot_gap):
    """As detect_self (its cone rule included), but each point ids[r] is tested only against the triangles of its
    reference pairs (pair_tri[pair_ptr[i]:pair_ptr[i + 1]], see reference_pairs) whose reference distance is at most
    `bound`; the points are embedded here from the nodes' motion x0 + dt v (nodes, weights: the body's stencils)."""
    npts = ids.shape[0]
    K = slot_tri.shape[1]
    ring = _largest_ring(ring_ptr)
    nchunks = (npts + CHUNK - 1) // CHUNK
    for ch in prange(nchunks):
        score = np.empty(K)
        q0, q1 = np.empty((4, 3)), np.empty((4, 3))
        cones = np.empty((ring, 4))
        for row in range(ch * CHUNK, min(npts, (ch + 1) * CHUNK)):
            for k in range(K):
                slot_tri[row, k] = -1
            i = ids[row]
            ax, ay, az, alpha = _embedded_ring_cone(i, ring_ptr, ring_tri, x0, v, dt, nodes, weights, tris, q0, q1,
                                                    cones)
            cull = alpha < CONE_LIMIT
            embed_swept(x0, nodes, weights, dt, v, i, q0, q1, 0)
            hinted = hint_source[i] == source
            used = 0
            for e in range(pair_ptr[i], pair_ptr[i + 1]):
                if pair_dist[e] > bound:
                    continue
                t = pair_tri[e]
                for j in range(3):
                    embed_swept(x0, nodes, weights, dt, v, tris[t, j], q0, q1, j + 1)
                if cull:
                    bx, by, bz, beta = triangle_cone(q0, q1)
                    if union_angle(ax, ay, az, alpha, bx, by, bz, beta) < CONE_LIMIT:
                        continue
                met, u, v_, w, nx, ny, nz, H0, sc = _meet(q0, q1, closed, tau, margin, hinted, hint[i, 0],
                                                          hint[i, 1], hint[i, 2])
                if met:
                    used = keep_slot(row, t, u, v_, w, nx, ny, nz, H0, sc, tau, score, used, slot_tri, slot_b, slot_n,
                                 slot_gap)


@njit(cache=True, parallel=True)
def reference_pairs(p, tris, ptr, excl, reach, left, right, start, count, order, lo, hi, write, n, pair_ptr,
                    pair_tri, pair_dist, clearance):
    """Per point i of p, its pairs: the triangles (over the same points) it is not excluded from within `reach` of it,
    and their distances. Without `write`, their number goes to n[i]; with it, they are written to
    pair_tri[pair_ptr[i]:pair_ptr[i + 1]] with pair_dist, and clearance[i] = the smallest distance (`reach` without
    one). A point whose query overflows the candidate buffer is looked up again with room for all of it. The BVH
    (left .. hi) bounds the triangles at p."""
    npts = p.shape[0]
    nchunks = (npts + CHUNK - 1) // CHUNK
    for ch in prange(nchunks):
        cand = np.empty(CANDIDATES, np.int64)
        stack = np.empty(STACK_SIZE, np.int64)
        for i in range(ch * CHUNK, min(npts, (ch + 1) * CHUNK)):
            px, py, pz = p[i, 0], p[i, 1], p[i, 2]
            found = query_box(px - reach, py - reach, pz - reach, px + reach, py + reach, pz + reach, left, right,
                              start, count, order, lo, hi, stack, cand)
            if found > cand.shape[0]:
                cand = np.empty(found, np.int64)
                found = query_box(px - reach, py - reach, pz - reach, px + reach, py + reach, pz + reach, left,
                                  right, start, count, order, lo, hi, stack, cand)
            k = 0
            best = reach
            for j in range(found):
                t = cand[j]
                a, b, c = tris[t, 0], tris[t, 1], tris[t, 2]
                if a == i or b == i or c == i or csr_find(ptr, excl, i, t) >= 0:
                    continue
                u, v, w = closest_point_barycentric(px, py, pz, p[a, 0], p[a, 1], p[a, 2], p[b, 0], p[b, 1],
                                                    p[b, 2], p[c, 0], p[c, 1], p[c, 2])
                dx = px - (u * p[a, 0] + v * p[b, 0] + w * p[c, 0])
                dy = py - (u * p[a, 1] + v * p[b, 1] + w * p[c, 1])
                dz = pz - (u * p[a, 2] + v * p[b, 2] + w * p[c, 2])
                d = np.sqrt(dx * dx + dy * dy + dz * dz)
                if d < reach:
                    if write:
                        pair_tri[pair_ptr[i] + k] = t
                        pair_dist[pair_ptr[i] + k] = d
                    best = min(best, d)
                    k += 1
            if write:
                clearance[i] = best
            else:
                n[i] = k


@njit(cache=True)
def drift(x, ref):
    """The largest distance (m) a node moved from ref to x (both (n,3)) other than by their mean translation: no
    two points embedded in these nodes (with weights summing to 1, W their absolute sum at most) came closer or
    went further apart than 2 W times it."""
    n = x.shape[0]
    mx = my = mz = 0.0
    for j in range(n):
        mx += x[j, 0] - ref[j, 0]
        my += x[j, 1] - ref[j, 1]
        mz += x[j, 2] - ref[j, 2]
    mx, my, mz = mx / max(n, 1), my / max(n, 1), mz / max(n, 1)
    worst = 0.0
    for j in range(n):
        dx, dy, dz = x[j, 0] - ref[j, 0] - mx, x[j, 1] - ref[j, 1] - my, x[j, 2] - ref[j, 2] - mz
        worst = max(worst, dx * dx + dy * dy + dz * dz)
    return np.sqrt(worst)
