"""Self contact: a body's render points against its own render triangles (vertex–triangle, continuous), with the
neighbouring features excluded once from the rest shape.

The exclusion rule. A render point never collides with the triangles of its own one-ring, nor with any triangle of
its body whose rest-shape distance from it is below its exclusion radius: the longest surface edge at the point, and
at least EXCLUDE_THICKNESS times the contact thickness. Those triangles are its neighbours on the surface (a point
lies on them, or is closer to them than one triangle's size): their planes pass through or next to it, and a row
against them would hold the surface's own bends open. The rest distance is the straight-line distance, which is at
most the distance along the surface, so everything nearer along the surface than the radius is excluded too. The
excluded pairs are found once per body (self_exclusions, a numba kernel over a BVH of the rest triangles) and kept as
a sorted list per point (CSR). A body's sharp edges meet each other by the same rule (core.contact.self_edges).

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
from .detect import CANDIDATES, CHUNK, vertex_rows
from .row_sets import STENCIL, Candidates
from .self_cull import Clusters
from .self_detect import detect_pairs, detect_self, drift, reference_pairs
from .self_edges import SelfEdges
from .sides import OPEN_DEPTH, body_source
from .surface import point_positions
from .triangle import closest_point_barycentric

EXCLUDE_THICKNESS = 2.0   # the exclusion radius is at least this many contact thicknesses
REACH = 2.5               # contact thicknesses a self detection looks beyond the thickness, at most
REFERENCE_SHARE = 0.1     # the reference is dropped when more than this share of the points may touch in a step
REFERENCE_RETRY = 32      # steps before a body with too many points within reach at its reference tries again


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


class SelfSurface:
    """One self-colliding body's surface in the stage's layout: its points first..first+count (render points and
    samples) with their stencils, its triangles (the layout's triangles tri_slice; tris: over its own points), their
    BVH and its clusters (core.contact.self_cull), its exclusions (ptr, excl) and whether it is closed (one-sided)."""

    def __init__(self, body, first, count, tri_slice, lay, surface, thickness):
        self.body, self.first, self.count, self.tri_slice = body, int(first), int(count), tri_slice
        self.tris_global = np.ascontiguousarray(lay["tris"][tri_slice], dtype=np.int64)
        self.tris = np.ascontiguousarray(self.tris_global - self.first)
        self.nodes = np.ascontiguousarray(lay["nodes"][self.first:self.first + self.count])
        self.weights = np.ascontiguousarray(lay["weights"][self.first:self.first + self.count])
        self.ptr, self.excl = surface.self_excluded
        self.closed = bool(surface.closed)
        self.source = int(body_source(body))
        self.bvh = BVH(surface.rest, self.tris) if len(self.tris) else None
        order = np.argsort(self.tris.ravel(), kind="stable")   # each point's own triangles, CSR
        self.ring = (np.searchsorted(self.tris.ravel()[order], np.arange(self.count + 1)).astype(np.int64),
                     np.ascontiguousarray(order // 3))
        self.clusters = Clusters(self.bvh, surface.rest) if len(self.tris) else None
        self.node_range = (int(lay["offsets"][body]), int(lay["offsets"][body + 1]))
        self.spread = float(np.abs(self.weights).sum(axis=1).max(initial=1.0))
        self.edges = SelfEdges(lay, surface, body, first, exclusion_radius(surface.rest, surface.render_triangles,
                                                                           thickness))
        self.reference = None   # the pair list of an earlier step (see rows and _take_reference)
        self.bound = None        # the reference's bound of the last detection (see rows); None: no reference
        self.margin = 0.0        # the margin of the last detection (see rows)
        self.wait = 0            # steps before the next try to take a reference (see _take_reference)

    def rows(self, lay, sides, x0, v, dt, tau, margin, least_margin, max_per_point, mu):
        """The self-contact rows of the motion x0 + dt v (all nodes) within this body's own margin, as one row tuple
        (see core.contact.row_sets.gather_rows) or None.

        Only the body's motion relative to its nodes' mean motion matters to contact with itself, so the detection
        runs in that moving frame (the rows are the same: heights and barycentrics do not change under a common
        translation). Its margin is least_margin plus the step's largest relative travel, that at most REACH tau (a
        wider search costs more than the solve it may save: on a fine surface the candidates grow as the square of
        the margin), and the whole at most `margin` (the world's); it is kept in self.margin for the check of the
        solved motion (strayed).

        A body with a reference pays a drift pass and a test of the pairs that may touch. The reference holds, from an
        earlier step's start, each point's pairs: the triangles it is not excluded from within tau + REACH tau of it,
        with their distances. Since then no point came closer to a triangle by more than 2 W drift (W: the
        largest absolute weight sum of a point's stencil; drift: the nodes' largest motion other than a common
        translation), so only the pairs whose distance was at most pad + 2 W drift (pad: tau + margin, and the open
        depth) can meet within the step. When their points are more than REFERENCE_SHARE of the body's, the reference
        is dropped, and only the points and triangles of the clusters that may touch (Clusters.near_leaves) are
        tested, against the triangles a BVH query finds."""
        if self.bvh is None:
            return None
        n0, n1 = self.node_range
        v = self.relative(v)
        own = v[n0:n1]
        travel = dt * float(np.sqrt(np.max(np.einsum("nd,nd->n", own, own), initial=0.0)))
        margin = min(margin, least_margin + min(travel, REACH * tau))
        self.margin = margin
        ends = x0[n0:n1], x0[n0:n1] + dt * v[n0:n1]
        pad = tau + margin + (0.0 if self.closed else OPEN_DEPTH)
        self.bound = None
        if self.reference is not None:
            reach = self._within_reach(ends, pad)
            if reach is not None:
                ids, self.bound = reach
                if not len(ids):
                    return None
                slots = self._slots(len(ids), max_per_point)
                _, ptr, tri, dist = self.reference
                at = slice(self.first, self.first + self.count)
                detect_pairs(ids, ptr, tri, dist, self.bound, x0, v, dt, self.nodes, self.weights, self.tris,
                             self.closed, tau, margin, sides.hint[at], sides.source[at], self.source, *self.ring,
                             *slots)
                return self._rows(lay, ids, slots, mu)
        p0 = point_positions(x0, self.nodes, self.weights, 0.0, v)
        p1 = point_positions(x0, self.nodes, self.weights, dt, v)
        leaves = self.clusters.near_leaves(self.bvh, p0, p1, pad)
        found = None
        if len(leaves):
            self.bvh.fit_leaves(leaves, p0, p1, np.full(len(self.tris), pad))   # those clusters' triangles alone
            ids = self.bvh.leaf_vertices(leaves)
            slots = self._slots(len(ids), max_per_point)
            b, c = self.bvh, self.clusters
            at = slice(self.first, self.first + self.count)
            detect_self(ids, p0, p1, self.tris, self.ptr, self.excl, self.closed, tau, margin, sides.hint[at],
                        sides.source[at], self.source, *self.ring, c.tri_axis, c.tri_angle, b.left, b.right, b.start,
                        b.count, b.order, b.lo, b.hi, *slots)
            found = self._rows(lay, ids, slots, mu)
        self._take_reference(ends, p0, tau, pad)
        return found

    def edge_rows(self, lay, x0, v, dt, tau, max_per_edge):
        """The row tuple of the body's sharp edges against each other (core.contact.self_edges) over the motion
        x0 + dt v (all nodes) within the margin of the last rows (call after them), or None: none, or none can touch
        (the reference's bound)."""
        if not len(self.edges.edges) or (self.bound is not None and self.edges.clearance > self.bound):
            return None
        return self.edges.rows(lay, x0, self.relative(v), dt, tau, self.margin, max_per_edge)

    def relative(self, v):
        """The node velocities v (all bodies') with this body's own less their mean: its moving frame (see rows)."""
        n0, n1 = self.node_range
        v = v.copy()
        v[n0:n1] -= v[n0:n1].mean(axis=0)
        return v

    def strayed(self, v, guess, dt):
        """Whether the solved velocities v may have brought two of the body's points closer than the detection along
        `guess` saw them by its margin: twice the nodes' largest end-of-step stray other than a common one."""
        n0, n1 = self.node_range
        d = v[n0:n1] - guess[n0:n1]
        d -= d.mean(axis=0)
        return 2.0 * dt * float(np.sqrt(np.max(np.einsum("nd,nd->n", d, d), initial=0.0))) >= self.margin

    @staticmethod
    def _slots(n, K):
        """Empty contact slots for n points, K each: triangle, barycentrics, normal, gap."""
        return np.empty((n, K), np.int64), np.empty((n, K, 3)), np.empty((n, K, 3)), np.empty((n, K))

    def _rows(self, lay, ids, slots, mu):
        """The row tuple of the filled slots of the points ids (local), or None when none is filled."""
        slot_tri, slot_b, slot_n, slot_gap = slots
        if not (slot_tri >= 0).any():
            return None
        point, tri, normal, gap, node, coef, move = vertex_rows(ids + self.first, slot_tri, slot_b, slot_n, slot_gap,
                                                                lay["nodes"], lay["weights"], self.tris_global,
                                                                np.zeros((0, 3)), STENCIL)
        tri = tri + self.tri_slice.start
        n = len(point)
        return (Candidates(point, tri, normal, gap), node, coef, move, np.full(n, mu), np.full(n, -1, np.int64),
                np.full(n, self.body, np.int64))

    def _within_reach(self, ends, pad):
        """(The points (local) with a pair within the bound, the bound) for the step between the node positions ends,
        by the reference (see rows); None, and the reference dropped, when they are more than REFERENCE_SHARE of
        them."""
        reference, order, clearance = self.reference[0]
        moved = max(drift(ends[0], reference), drift(ends[1], reference))
        bound = pad + 2.0 * self.spread * moved
        k = int(np.searchsorted(clearance, bound, side="right"))
        if k > REFERENCE_SHARE * self.count:
            self.reference = None
            return None
        return order[:k], bound

    def _take_reference(self, ends, p0, tau, pad):
        """Take the reference from the step's start (node positions ends[0], points p0): its pair lists (CSR), and the
        points ordered by their nearest pair's distance (clearance). Only when the step's own motion, other than a
        translation, and what the detection reaches beyond the thickness take at most three quarters of the slack
        (REACH tau; a body turning or deforming fast would drop it within a step or two: not worth the pass over every
        point), and not within REFERENCE_RETRY steps of a try that found more than REFERENCE_SHARE of the points
        within pad (a body pressed on itself all over: the clusters do better)."""
        if self.wait > 0:
            self.wait -= 1
            return
        slack = REACH * tau
        if 2.0 * self.spread * drift(ends[1], ends[0]) + pad - tau > 0.75 * slack:
            return
        reference = self.pair_list(ends[0], p0, tau + slack)
        if np.searchsorted(reference[0][2], pad, side="right") > REFERENCE_SHARE * self.count:
            self.wait = REFERENCE_RETRY
            return
        self.reference = reference
        self.edges.take_reference(p0, tau + slack)

    def pair_list(self, x, p, reach):
        """A reference taken at the node positions x (render points p): ((x, the points ordered by clearance, their
        clearances), then the pairs as CSR: ptr, triangles, distances) for the pairs within `reach` (see rows)."""
        b = self.bvh
        b.refit(p, p, np.zeros(len(self.tris)))
        bvh = (b.left, b.right, b.start, b.count, b.order, b.lo, b.hi)
        n = np.zeros(self.count, np.int64)
        clearance = np.empty(self.count)
        none_i, none_f = np.zeros(0, np.int64), np.zeros(0)
        reference_pairs(p, self.tris, self.ptr, self.excl, reach, *bvh, False, n, none_i, none_i, none_f, clearance)
        ptr = np.concatenate([[0], np.cumsum(n)]).astype(np.int64)
        tri, dist = np.empty(ptr[-1], np.int64), np.empty(ptr[-1])
        reference_pairs(p, self.tris, self.ptr, self.excl, reach, *bvh, True, n, ptr, tri, dist, clearance)
        order = np.argsort(clearance, kind="stable")
        return (np.ascontiguousarray(x).copy(), order, clearance[order]), ptr, tri, dist


def self_surfaces(lay, surfaces, thickness):
    """A SelfSurface per body with self collision on (and triangles) in the layout `lay` of `surfaces`, for the contact
    thickness `thickness`."""
    poffs = np.concatenate([[0], np.cumsum([len(s) for s in surfaces])])
    toffs = np.concatenate([[0], np.cumsum([len(s.triangles) for s in surfaces])])
    out = []
    for b, s in enumerate(surfaces):
        if s.self_collision and len(s.triangles):
            sl = slice(int(toffs[b]), int(toffs[b + 1]))
            out.append(SelfSurface(b, poffs[b], len(s), sl, lay, s, thickness))
    return out
