"""Self contact: a body's render points against its own render triangles (vertex–triangle, continuous), with the
neighbouring features excluded once from the rest shape.

The exclusion rule. A render point never collides with the triangles of its own one-ring, nor with any triangle of
its body whose rest-shape distance from it is below its exclusion radius: the longest surface edge at the point, and
at least EXCLUDE_THICKNESS times the contact thickness. Those triangles are its neighbours on the surface (a point
lies on them, or is closer to them than one triangle's size): their planes pass through or next to it, and a row
against them would hold the surface's own bends open. The rest distance is the straight-line distance, which is at
most the distance along the surface, so everything nearer along the surface than the radius is excluded too. The
excluded pairs are found once per body (self_exclusions, a numba kernel over a BVH of the rest triangles) and kept as
a sorted list per point (CSR).

The side. A closed body's own surface puts every point behind some of its triangles (the bottom of a bar lies behind
its top), so "the nearest triangle behind the point holds it inside" does not apply to self contact. A point meets
one of its body's triangles only from outside: its signed height above the triangle's plane (outward normal) at the
start of the step must be above −thickness; a point that starts further behind is inside the body, or has already
passed through, and is left alone. An open surface has no inside: a point keeps the side of the triangle it starts
on, or the side its last row against its own body held it on (its side hint) while within OPEN_DEPTH of the plane.

Rows are the body–body rows (core.contact.detect.vertex_rows, a 16-wide stencil: the point's tet nodes, then each
triangle vertex's nodes times −its barycentric weight), here on the same body: a stencil may name a node twice, and
every consumer sums a node's coefficients (project, spread and the curvature blocks are linear in them;
schur_diagonal and fold_diagonal sum them first).

The cage limits self contact: two surface parts embedded in the same cage cell move by one affine map, so a row
between them can only push them apart by deforming that cell; two parts that share a cell at rest cannot be held
apart. Finer cages (or the cage's feature split, which keeps parts the rest shape separates on separate nodes) lift
this.
"""
import numpy as np

from ..jit import njit, prange
from .bvh import BVH, STACK_SIZE, query_box
from .detect import BARY_TOLERANCE, CANDIDATES, CHUNK, HINT_COSINE, take_slot, triangle_normal, vertex_rows
from .row_sets import STENCIL, Candidates
from .self_cull import Clusters
from .sides import OPEN_DEPTH, body_source
from .surface import point_positions
from .triangle import closest_point_barycentric, plane_barycentric

EXCLUDE_THICKNESS = 2.0   # the exclusion radius is at least this many contact thicknesses
QUIET_SLACK = 5.0         # contact thicknesses a quiet body's points may close in before it is tested again
QUIET_SHARE = 0.1         # a body turns quiet only if at most this share of its points are near (tested every step)
QUIET_RETRY = 32          # steps before a body that could not turn quiet (too many near points) tries again


def exclusion_radius(rest, triangles, thickness):
    """Per point (P,): its exclusion radius, the longest edge of its triangles (0 for a point on none), at least
    EXCLUDE_THICKNESS × thickness."""
    radius = np.full(len(rest), EXCLUDE_THICKNESS * float(thickness))
    if len(triangles):
        a, b = triangles.ravel(), np.roll(triangles, -1, axis=1).ravel()
        length = np.linalg.norm(rest[a] - rest[b], axis=1)
        np.maximum.at(radius, a, length)
        np.maximum.at(radius, b, length)
    return radius


def self_exclusions(rest, triangles, thickness):
    """The excluded (point, triangle) pairs of a surface (rest points (P,3), triangles (T,3) over them) as CSR: ptr
    (P+1,), tri (sorted within each point's range). See the module docstring for the rule."""
    rest = np.ascontiguousarray(rest, dtype=np.float64)
    triangles = np.ascontiguousarray(triangles, dtype=np.int64).reshape(-1, 3)
    radius = exclusion_radius(rest, triangles, thickness)
    if not len(triangles):
        return np.zeros(len(rest) + 1, np.int64), np.zeros(0, np.int64)
    bvh = BVH(rest, triangles)
    bvh.refit(rest, rest, np.zeros(len(triangles)))
    count = np.zeros(len(rest), np.int64)
    _exclusions(rest, triangles, radius, bvh.left, bvh.right, bvh.start, bvh.count, bvh.order, bvh.lo, bvh.hi,
                count, np.zeros(0, np.int64), np.zeros(1, np.int64))
    ptr = np.concatenate([[0], np.cumsum(count)]).astype(np.int64)
    out = np.empty(ptr[-1], np.int64)
    _exclusions(rest, triangles, radius, bvh.left, bvh.right, bvh.start, bvh.count, bvh.order, bvh.lo, bvh.hi,
                count, out, ptr)
    return ptr, out


@njit(cache=True, parallel=True)
def _exclusions(rest, tris, radius, left, right, start, count, order, lo, hi, n, out, ptr):
    """Per point p, the triangles that hold p or lie within radius[p] of it (rest shape): their number in n[p] when
    out is empty, else written sorted to out[ptr[p]:ptr[p + 1]]."""
    write = out.shape[0] > 0
    npts = rest.shape[0]
    nchunks = (npts + CHUNK - 1) // CHUNK
    for ch in prange(nchunks):
        cand = np.empty(CANDIDATES, np.int64)
        stack = np.empty(STACK_SIZE, np.int64)
        for p in range(ch * CHUNK, min(npts, (ch + 1) * CHUNK)):
            r = radius[p]
            px, py, pz = rest[p, 0], rest[p, 1], rest[p, 2]
            found = query_box(px - r, py - r, pz - r, px + r, py + r, pz + r, left, right, start, count, order,
                              lo, hi, stack, cand)
            if found > cand.shape[0]:   # a dense neighbourhood: look again with room for all of it
                cand = np.empty(found, np.int64)
                found = query_box(px - r, py - r, pz - r, px + r, py + r, pz + r, left, right, start, count, order,
                                  lo, hi, stack, cand)
            k = 0
            for j in range(found):
                t = cand[j]
                a, b, c = tris[t, 0], tris[t, 1], tris[t, 2]
                near = a == p or b == p or c == p
                if not near:
                    u, v, w = closest_point_barycentric(px, py, pz, rest[a, 0], rest[a, 1], rest[a, 2],
                                                        rest[b, 0], rest[b, 1], rest[b, 2],
                                                        rest[c, 0], rest[c, 1], rest[c, 2])
                    dx = px - (u * rest[a, 0] + v * rest[b, 0] + w * rest[c, 0])
                    dy = py - (u * rest[a, 1] + v * rest[b, 1] + w * rest[c, 1])
                    dz = pz - (u * rest[a, 2] + v * rest[b, 2] + w * rest[c, 2])
                    near = dx * dx + dy * dy + dz * dz < r * r
                if near:
                    if write:
                        out[ptr[p] + k] = t
                    k += 1
            if write:
                out[ptr[p]:ptr[p] + k].sort()
            else:
                n[p] = k


@njit(cache=True, inline="always")
def _excluded(ptr, excl, p, t):
    """Whether triangle t is in point p's sorted exclusion list."""
    lo, hi = ptr[p], ptr[p + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if excl[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo < ptr[p + 1] and excl[lo] == t


@njit(cache=True, parallel=True)
def detect_self(ids, p0, p1, tris, ptr, excl, closed, tau, margin, hint, hint_source, source, left, right, start,
                count, order, lo, hi, slot_tri, slot_b, slot_n, slot_gap):
    """Up to K self contacts per point ids[r] of one body (slot_* (len(ids),K,...), slot_tri −1 when empty): point i
    (start p0[i], end p1[i]) against the body's triangles tris over the same points that the BVH (left .. hi) finds,
    but its excluded ones (ptr, excl); tau: the
    contact thickness; hint, hint_source: the points' side hints (source: the body's surface id). A triangle with
    (outward) normal n gives a row when the point's height H(t) above it, on the side it starts on (closed: outside,
    and H(0) > −tau; open: see the module docstring), falls below tau + margin in the step and the point, when it
    reaches the offset plane (at the start if within it already), projects inside the triangle.
    slot_gap: H(0) − tau."""
    npts = ids.shape[0]
    K = slot_tri.shape[1]
    nchunks = (npts + CHUNK - 1) // CHUNK
    for ch in prange(nchunks):
        cand = np.empty(CANDIDATES, np.int64)
        stack = np.empty(STACK_SIZE, np.int64)
        score = np.empty(K)
        for row in range(ch * CHUNK, min(npts, (ch + 1) * CHUNK)):
            for k in range(K):
                slot_tri[row, k] = -1
            i = ids[row]
            px0, py0, pz0 = p0[i, 0], p0[i, 1], p0[i, 2]
            px1, py1, pz1 = p1[i, 0], p1[i, 1], p1[i, 2]
            nfound = query_box(min(px0, px1), min(py0, py1), min(pz0, pz1), max(px0, px1), max(py0, py1),
                               max(pz0, pz1), left, right, start, count, order, lo, hi, stack, cand)
            nfound = min(nfound, CANDIDATES)
            hx, hy, hz = hint[i, 0], hint[i, 1], hint[i, 2]
            hinted = hint_source[i] == source
            used = 0
            for j in range(nfound):
                t = cand[j]
                ia, ib, ic = tris[t, 0], tris[t, 1], tris[t, 2]
                if ia == i or ib == i or ic == i or _excluded(ptr, excl, i, t):
                    continue
                nx, ny, nz, ok = triangle_normal(p0, tris, t)
                if not ok:
                    continue
                h0 = nx * (px0 - p0[ia, 0]) + ny * (py0 - p0[ia, 1]) + nz * (pz0 - p0[ia, 2])
                h1 = nx * (px1 - p1[ia, 0]) + ny * (py1 - p1[ia, 1]) + nz * (pz1 - p1[ia, 2])
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
                    continue
                if H0 <= tau:
                    ts = 0.0
                elif H1 < tau:
                    ts = (H0 - tau) / (H0 - H1)
                else:
                    ts = 1.0
                r = 1.0 - ts
                u, v, w, ok = plane_barycentric(
                    r * px0 + ts * px1, r * py0 + ts * py1, r * pz0 + ts * pz1,
                    r * p0[ia, 0] + ts * p1[ia, 0], r * p0[ia, 1] + ts * p1[ia, 1], r * p0[ia, 2] + ts * p1[ia, 2],
                    r * p0[ib, 0] + ts * p1[ib, 0], r * p0[ib, 1] + ts * p1[ib, 1], r * p0[ib, 2] + ts * p1[ib, 2],
                    r * p0[ic, 0] + ts * p1[ic, 0], r * p0[ic, 1] + ts * p1[ic, 1], r * p0[ic, 2] + ts * p1[ic, 2])
                if not ok or u < -BARY_TOLERANCE or v < -BARY_TOLERANCE or w < -BARY_TOLERANCE:
                    continue
                sc = H1 - tau
                same = False   # the same plane seen through two triangles (a point over a shared edge): one row
                for m in range(used):
                    if (slot_n[row, m, 0] * s * nx + slot_n[row, m, 1] * s * ny + slot_n[row, m, 2] * s * nz > 0.9999
                            and abs(score[m] - sc) <= 1e-9 + 1e-6 * abs(sc)):
                        same = True
                if same:
                    continue
                k, used = take_slot(score, used, sc)
                if k < 0:
                    continue
                slot_tri[row, k] = t
                slot_b[row, k, 0], slot_b[row, k, 1], slot_b[row, k, 2] = u, v, w
                slot_n[row, k, 0], slot_n[row, k, 1], slot_n[row, k, 2] = s * nx, s * ny, s * nz
                slot_gap[row, k] = H0 - tau


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


@njit(cache=True, parallel=True)
def near_points(p, tris, ptr, excl, reach, left, right, start, count, order, lo, hi, out):
    """out[i] = whether point i of p lies within `reach` of one of the triangles (over the same points) it is not
    excluded from (the BVH left .. hi bounds the triangles at p; a point whose query overflows counts as near)."""
    npts = p.shape[0]
    nchunks = (npts + CHUNK - 1) // CHUNK
    for ch in prange(nchunks):
        cand = np.empty(CANDIDATES, np.int64)
        stack = np.empty(STACK_SIZE, np.int64)
        for i in range(ch * CHUNK, min(npts, (ch + 1) * CHUNK)):
            out[i] = False
            px, py, pz = p[i, 0], p[i, 1], p[i, 2]
            found = query_box(px - reach, py - reach, pz - reach, px + reach, py + reach, pz + reach, left, right,
                              start, count, order, lo, hi, stack, cand)
            if found > cand.shape[0]:
                out[i] = True
                continue
            for j in range(found):
                t = cand[j]
                a, b, c = tris[t, 0], tris[t, 1], tris[t, 2]
                if a == i or b == i or c == i or _excluded(ptr, excl, i, t):
                    continue
                u, v, w = closest_point_barycentric(px, py, pz, p[a, 0], p[a, 1], p[a, 2], p[b, 0], p[b, 1],
                                                    p[b, 2], p[c, 0], p[c, 1], p[c, 2])
                dx = px - (u * p[a, 0] + v * p[b, 0] + w * p[c, 0])
                dy = py - (u * p[a, 1] + v * p[b, 1] + w * p[c, 1])
                dz = pz - (u * p[a, 2] + v * p[b, 2] + w * p[c, 2])
                if dx * dx + dy * dy + dz * dz < reach * reach:
                    out[i] = True
                    break


class SelfSurface:
    """One self-colliding body's surface in the stage's layout: its points first..first+count (render points and
    samples) with their stencils, its triangles (the layout's triangles tri_slice; tris: over its own points), their
    BVH and its clusters (core.contact.self_cull), its exclusions (ptr, excl) and whether it is closed (one-sided)."""

    def __init__(self, body, first, count, tri_slice, lay, surface):
        self.body, self.first, self.count, self.tri_slice = body, int(first), int(count), tri_slice
        self.tris_global = np.ascontiguousarray(lay["tris"][tri_slice], dtype=np.int64)
        self.tris = np.ascontiguousarray(self.tris_global - self.first)
        self.nodes = np.ascontiguousarray(lay["nodes"][self.first:self.first + self.count])
        self.weights = np.ascontiguousarray(lay["weights"][self.first:self.first + self.count])
        self.ptr, self.excl = surface.self_excluded
        self.closed = bool(surface.closed)
        self.source = int(body_source(body))
        self.bvh = BVH(surface.rest, self.tris) if len(self.tris) else None
        self.clusters = Clusters(self.bvh, surface.rest) if len(self.tris) else None
        self.node_range = (int(lay["offsets"][body]), int(lay["offsets"][body + 1]))
        self.spread = float(np.abs(self.weights).sum(axis=1).max(initial=1.0))
        self.quiet = None   # (node positions, near points) since no self contact was found (see rows)
        self.wait = 0       # steps before the next try to turn quiet (see _try_quiet)

    def rows(self, lay, sides, x0, v, dt, tau, margin, max_per_point, mu):
        """The self-contact rows of the motion x0 + dt v (all nodes) within margin, as one row tuple (see
        core.contact.row_sets.gather_rows) or None.

        A quiet body pays a refit and one BVH pass: once a step found no self contact, the points then farther than
        tau + QUIET_SLACK from every triangle they are not excluded from are left out until the body's nodes have
        moved (other than by a common translation, drift) so far that two of its points may have closed that slack
        less the margin; its other points (near) are tested every step. Otherwise only the points and triangles of
        the clusters that may touch (Clusters.near_leaves) are tested one by one."""
        if self.bvh is None:
            return None
        n0, n1 = self.node_range
        ends = x0[n0:n1], x0[n0:n1] + dt * v[n0:n1]
        slack = QUIET_SLACK * tau
        pad = tau + margin + (0.0 if self.closed else OPEN_DEPTH)
        if self.quiet is not None:
            reference, near = self.quiet
            moved = max(drift(ends[0], reference), drift(ends[1], reference))
            if 2.0 * self.spread * moved + pad - tau <= slack:
                if not len(near):
                    return None
                p0 = point_positions(x0, self.nodes, self.weights, 0.0, v)
                p1 = point_positions(x0, self.nodes, self.weights, dt, v)
                self.bvh.refit(p0, p1, np.full(len(self.tris), pad))
                return self._detect(lay, sides, near, p0, p1, tau, margin, max_per_point, mu)
            self.quiet = None
        p0 = point_positions(x0, self.nodes, self.weights, 0.0, v)
        p1 = point_positions(x0, self.nodes, self.weights, dt, v)
        leaves = self.clusters.near_leaves(self.bvh, p0, p1, pad)
        found = None
        if len(leaves):
            self.bvh.fit_leaves(leaves, p0, p1, np.full(len(self.tris), pad))   # those clusters' triangles alone
            found = self._detect(lay, sides, self.bvh.leaf_vertices(leaves), p0, p1, tau, margin, max_per_point, mu)
        if found is None:
            self._try_quiet(ends, p0, tau + slack, slack, pad - tau)
        return found

    def _detect(self, lay, sides, ids, p0, p1, tau, margin, max_per_point, mu):
        """The rows of the points ids (local) against the triangles the BVH, as fitted, finds (see rows)."""
        b = self.bvh
        K = max_per_point
        slot_tri = np.empty((len(ids), K), np.int64)
        slot_b = np.empty((len(ids), K, 3))
        slot_n = np.empty((len(ids), K, 3))
        slot_gap = np.empty((len(ids), K))
        at = slice(self.first, self.first + self.count)
        detect_self(ids, p0, p1, self.tris, self.ptr, self.excl, self.closed, tau, margin, sides.hint[at],
                    sides.source[at], self.source, b.left, b.right, b.start, b.count, b.order, b.lo, b.hi,
                    slot_tri, slot_b, slot_n, slot_gap)
        if not (slot_tri >= 0).any():
            return None
        point, tri, normal, gap, node, coef, move = vertex_rows(ids + self.first, slot_tri, slot_b, slot_n, slot_gap,
                                                                lay["nodes"], lay["weights"], self.tris_global,
                                                                np.zeros((0, 3)), STENCIL)
        tri = tri + self.tri_slice.start
        n = len(point)
        return (Candidates(point, tri, normal, gap), node, coef, move, np.full(n, mu), np.full(n, -1, np.int64),
                np.full(n, self.body, np.int64))

    def _try_quiet(self, ends, p0, reach, slack, beyond):
        """After a step that found no self contact: the body turns quiet from its start positions ends[0], its near
        points those of p0 within reach of a triangle they are not excluded from. Tried only when the step's own
        motion, other than a translation, and what the detection reaches beyond the thickness (`beyond`: margin, open
        depth) take at most three quarters of the slack (a body turning or deforming fast would leave quiet within a
        step or two: not worth the pass over every point), and not within QUIET_RETRY steps of a try that found more
        than QUIET_SHARE of the points near."""
        if self.wait > 0:
            self.wait -= 1
            return
        if 2.0 * self.spread * drift(ends[1], ends[0]) + beyond > 0.75 * slack:
            return
        b = self.bvh
        b.refit(p0, p0, np.zeros(len(self.tris)))
        near = np.empty(self.count, np.bool_)
        near_points(p0, self.tris, self.ptr, self.excl, reach, b.left, b.right, b.start, b.count, b.order, b.lo,
                    b.hi, near)
        near = np.flatnonzero(near)
        if len(near) > QUIET_SHARE * self.count:   # a fine mesh's many close neighbours: the clusters do better
            self.wait = QUIET_RETRY
            return
        self.quiet = (np.ascontiguousarray(ends[0]).copy(), near)


def self_surfaces(lay, surfaces):
    """A SelfSurface per body with self collision on (and triangles) in the layout `lay` of `surfaces`."""
    poffs = np.concatenate([[0], np.cumsum([len(s) for s in surfaces])])
    toffs = np.concatenate([[0], np.cumsum([len(s.triangles) for s in surfaces])])
    out = []
    for b, s in enumerate(surfaces):
        if s.self_collision and len(s.triangles):
            sl = slice(int(toffs[b]), int(toffs[b + 1]))
            out.append(SelfSurface(b, poffs[b], len(s), sl, lay, s))
    return out
