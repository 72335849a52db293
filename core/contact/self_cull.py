"""Self contact's broad phase: which clusters of a body's render triangles may touch each other in a step, by their
swept boxes and normal cones, so that a body far from folding pays one pass over its triangles and a pass over the
clusters' box tree, and only the clusters that may touch have their points tested one by one.

The rule (normal cones, Volino & Magnenat-Thalmann 1994, without their contour test). A render point that meets one of
its body's triangles from the triangle's front is, at that moment, the point of its neighbourhood furthest toward the
triangle: one of its own triangles faces the triangle (their normals are more than 90° apart). So two clusters whose
normals (at the start and at the end of the step) all lie in one cone of half-angle below CONE_LIMIT (45°, less a
margin for the normals' turn within the step) hold no first contact between them, nor does one such cluster within
itself, and clusters whose swept boxes (grown by the contact thickness and margin) do not meet hold none either.
The clusters are the subtrees of the body's triangle BVH (core.contact.bvh, built on the rest shape) with at most
CLUSTER triangles. The same rule holds between a point's own triangles and one candidate triangle, which the narrow
phase applies to each pair (core.contact.self_detect.detect_self): on a fine surface most of a point's candidates lie
beside it on the same smooth sheet. On an open surface the rule takes the triangles' winding as their outside: a
sheet rolled so that its layers meet back to front (the point's normals and the triangle's alike) is not held.
"""
import math

import numpy as np

from ..jit import njit, prange
from .bvh import STACK_SIZE, BoxTree
from .detect import triangle_normal

TRIANGLE = np.array([[1, 2, 3]], np.int64)   # a triangle's vertices in the rows of a (4,3) point buffer
CLUSTER = 32                         # triangles per cluster at most
CONE_LIMIT = math.radians(40.0)      # half-angle of a normal cone below which a cluster (pair) is culled


class Clusters:
    """The clusters of a triangle BVH (bvh: core.contact.bvh.BVH): cluster c holds the triangles
    bvh.order[start[c]:start[c] + count[c]] and the BVH leaves leaves[leaf_ptr[c]:leaf_ptr[c + 1]]; a BoxTree over
    them (their rest centres), and per-step scratch: boxes (lo, hi), cone axes and half-angles."""

    def __init__(self, bvh, rest):
        self.start, self.count, self.leaf_ptr, self.leaves = _clusters(bvh.left, bvh.right, bvh.start, bvh.count,
                                                                       CLUSTER)
        centres = np.empty((len(self.start), 3))
        tri_centre = rest[bvh.triangles].mean(axis=1)
        for c, (s, n) in enumerate(zip(self.start, self.count)):
            centres[c] = tri_centre[bvh.order[s:s + n]].mean(axis=0)
        self.tree = BoxTree(centres)
        c = len(self.start)
        self.lo, self.hi = np.empty((c, 3)), np.empty((c, 3))
        self.axis, self.angle = np.empty((c, 3)), np.empty(c)
        self.n0 = np.empty((len(bvh.triangles), 3))
        self.n1 = np.empty((len(bvh.triangles), 3))
        self.tri_axis = np.empty((len(bvh.triangles), 3))   # each triangle's cone over the step (see near_leaves)
        self.tri_angle = np.empty(len(bvh.triangles))

    def near_leaves(self, bvh, p0, p1, pad):
        """The BVH leaves of the clusters that may hold a self contact over the motion p0 -> p1 (points' start and
        end positions; boxes grown by pad), by the rule of the module docstring; the triangles' cones (tri_axis,
        tri_angle) of the step."""
        triangle_cones(p0, p1, bvh.triangles, self.n0, self.n1, self.tri_axis, self.tri_angle)
        cluster_bounds(p0, p1, bvh.triangles, self.n0, self.n1, bvh.order, self.start, self.count, pad, self.lo,
                       self.hi, self.axis, self.angle)
        t = self.tree
        t.fit(self.lo, self.hi)
        active = np.zeros(len(self.start), np.bool_)
        flag_clusters(t.left, t.right, t.start, t.count, t.order, t.lo, t.hi, self.lo, self.hi, self.axis, self.angle,
                      CONE_LIMIT, active)
        return _gather_leaves(np.flatnonzero(active), self.leaf_ptr, self.leaves)


@njit(cache=True)
def _clusters(left, right, start, count, size):
    """The subtrees of at most `size` items (or leaves) whose parent holds more: their item ranges and, CSR, their
    leaves."""
    cs, cc = np.empty(left.shape[0], np.int64), np.empty(left.shape[0], np.int64)
    ptr = np.zeros(left.shape[0] + 1, np.int64)
    leaves = np.empty(left.shape[0], np.int64)
    stack = np.empty(left.shape[0] + 1, np.int64)
    sub = np.empty(left.shape[0] + 1, np.int64)   # a cluster's subtree, walked for its leaves
    n = nl = 0
    top = 1 if left.shape[0] > 0 else 0
    stack[0] = 0
    while top > 0:
        top -= 1
        node = stack[top]
        if count[node] <= size or left[node] < 0:
            cs[n], cc[n] = start[node], count[node]
            sub[0] = node
            st = 1
            while st > 0:
                st -= 1
                m = sub[st]
                if left[m] < 0:
                    leaves[nl] = m
                    nl += 1
                else:
                    sub[st] = left[m]
                    sub[st + 1] = right[m]
                    st += 2
            n += 1
            ptr[n] = nl
        else:
            stack[top] = right[node]
            stack[top + 1] = left[node]
            top += 2
    return cs[:n].copy(), cc[:n].copy(), ptr[:n + 1].copy(), leaves[:nl].copy()


@njit(cache=True, inline="always")
def triangle_cone(q0, q1):
    """The cone (axis, half-angle in radians) holding the unit normals of the triangle q0[1..3] at the start and
    q1[1..3] at the end of a step; half-angle π for a degenerate triangle or one turned half round."""
    ax, ay, az, ok0 = triangle_normal(q0, TRIANGLE, 0)
    bx, by, bz, ok1 = triangle_normal(q1, TRIANGLE, 0)
    sx, sy, sz = ax + bx, ay + by, az + bz
    ls = math.sqrt(sx * sx + sy * sy + sz * sz)
    if not (ok0 and ok1 and ls > 1e-9):
        return 0.0, 0.0, 0.0, math.pi
    return sx / ls, sy / ls, sz / ls, 0.5 * math.acos(max(-1.0, min(1.0, ax * bx + ay * by + az * bz)))


@njit(cache=True, parallel=True)
def triangle_cones(p0, p1, tris, n0, n1, axis, angle):
    """n0, n1 (T,3): the triangles' unit normals at positions p0 and p1 (NaN for a degenerate one); axis, angle:
    their cones (triangle_cone)."""
    nchunks = (tris.shape[0] + 255) // 256
    for ch in prange(nchunks):
        q0, q1 = np.empty((4, 3)), np.empty((4, 3))
        for t in range(ch * 256, min(tris.shape[0], (ch + 1) * 256)):
            _unit_normal(p0, tris, t, n0)
            _unit_normal(p1, tris, t, n1)
            for j in range(3):
                for d in range(3):
                    q0[j + 1, d], q1[j + 1, d] = p0[tris[t, j], d], p1[tris[t, j], d]
            axis[t, 0], axis[t, 1], axis[t, 2], angle[t] = triangle_cone(q0, q1)


@njit(cache=True, inline="always")
def union_of(cones, n):
    """The cone (axis, half-angle) holding the first n cones of `cones` (rows: axis, half-angle); half-angle π when
    there are none or their axes cancel."""
    sx = sy = sz = 0.0
    for k in range(n):
        sx, sy, sz = sx + cones[k, 0], sy + cones[k, 1], sz + cones[k, 2]
    ls = math.sqrt(sx * sx + sy * sy + sz * sz)
    if not ls > 1e-9:
        return 0.0, 0.0, 0.0, math.pi
    sx, sy, sz = sx / ls, sy / ls, sz / ls
    alpha = 0.0
    for k in range(n):
        c = sx * cones[k, 0] + sy * cones[k, 1] + sz * cones[k, 2]
        alpha = max(alpha, math.acos(max(-1.0, min(1.0, c))) + cones[k, 3])
    return sx, sy, sz, min(alpha, math.pi)


@njit(cache=True, inline="always")
def union_angle(ax, ay, az, alpha, bx, by, bz, beta):
    """The half-angle of a cone holding the cones (axis a, half-angle alpha) and (b, beta) (radians)."""
    between = math.acos(max(-1.0, min(1.0, ax * bx + ay * by + az * bz)))
    return max(alpha, beta, 0.5 * (between + alpha + beta))


@njit(cache=True, inline="always")
def _unit_normal(p, tris, t, out):
    a, b, c = tris[t, 0], tris[t, 1], tris[t, 2]
    ex, ey, ez = p[b, 0] - p[a, 0], p[b, 1] - p[a, 1], p[b, 2] - p[a, 2]
    fx, fy, fz = p[c, 0] - p[a, 0], p[c, 1] - p[a, 1], p[c, 2] - p[a, 2]
    nx, ny, nz = ey * fz - ez * fy, ez * fx - ex * fz, ex * fy - ey * fx
    ln = math.sqrt(nx * nx + ny * ny + nz * nz)
    if not ln > 1e-12 * (ex * ex + ey * ey + ez * ez + fx * fx + fy * fy + fz * fz):
        out[t, 0] = out[t, 1] = out[t, 2] = np.nan
    else:
        out[t, 0], out[t, 1], out[t, 2] = nx / ln, ny / ln, nz / ln


@njit(cache=True, parallel=True)
def cluster_bounds(p0, p1, tris, n0, n1, order, start, count, pad, lo, hi, axis, angle):
    """Per cluster: the box of its triangles over the motion p0 -> p1 grown by pad, and the cone (axis, half-angle
    in radians; π when a triangle is degenerate) holding its triangles' normals at both ends."""
    for c in prange(start.shape[0]):
        l0 = l1 = l2 = np.inf
        h0 = h1 = h2 = -np.inf
        sx = sy = sz = 0.0
        wide = False
        for e in range(start[c], start[c] + count[c]):
            t = order[e]
            for j in range(3):
                a = tris[t, j]
                l0, l1, l2 = min(l0, p0[a, 0], p1[a, 0]), min(l1, p0[a, 1], p1[a, 1]), min(l2, p0[a, 2], p1[a, 2])
                h0, h1, h2 = max(h0, p0[a, 0], p1[a, 0]), max(h1, p0[a, 1], p1[a, 1]), max(h2, p0[a, 2], p1[a, 2])
            if n0[t, 0] != n0[t, 0] or n1[t, 0] != n1[t, 0]:
                wide = True
            else:
                sx += n0[t, 0] + n1[t, 0]
                sy += n0[t, 1] + n1[t, 1]
                sz += n0[t, 2] + n1[t, 2]
        lo[c, 0], lo[c, 1], lo[c, 2] = l0 - pad, l1 - pad, l2 - pad
        hi[c, 0], hi[c, 1], hi[c, 2] = h0 + pad, h1 + pad, h2 + pad
        ls = math.sqrt(sx * sx + sy * sy + sz * sz)
        if wide or not ls > 1e-9:
            angle[c] = math.pi
            axis[c, 0] = axis[c, 1] = axis[c, 2] = 0.0
            continue
        sx, sy, sz = sx / ls, sy / ls, sz / ls
        least = 1.0
        for e in range(start[c], start[c] + count[c]):
            t = order[e]
            least = min(least, n0[t, 0] * sx + n0[t, 1] * sy + n0[t, 2] * sz,
                        n1[t, 0] * sx + n1[t, 1] * sy + n1[t, 2] * sz)
        axis[c, 0], axis[c, 1], axis[c, 2] = sx, sy, sz
        angle[c] = math.acos(max(-1.0, min(1.0, least)))


@njit(cache=True)
def flag_clusters(left, right, start, count, order, lo, hi, clo, chi, axis, angle, limit, active):
    """active[c] = True for each cluster c whose own cone is at least `limit` wide, and for both clusters of each pair
    whose boxes (clo, chi) meet and whose two cones together need a cone at least `limit` wide (the tree: a BoxTree
    over the clusters, fitted to their boxes)."""
    stack = np.empty(STACK_SIZE, np.int64)
    for c in range(clo.shape[0]):
        if angle[c] >= limit:
            active[c] = True
        stack[0] = 0
        top = 1 if left.shape[0] > 0 else 0
        while top > 0:
            top -= 1
            node = stack[top]
            if (lo[node, 0] > chi[c, 0] or hi[node, 0] < clo[c, 0] or lo[node, 1] > chi[c, 1]
                    or hi[node, 1] < clo[c, 1] or lo[node, 2] > chi[c, 2] or hi[node, 2] < clo[c, 2]):
                continue
            if left[node] >= 0:
                stack[top] = left[node]
                stack[top + 1] = right[node]
                top += 2
                continue
            for e in range(start[node], start[node] + count[node]):
                d = order[e]
                if d <= c or (active[c] and active[d]):
                    continue
                if (clo[d, 0] > chi[c, 0] or chi[d, 0] < clo[c, 0] or clo[d, 1] > chi[c, 1]
                        or chi[d, 1] < clo[c, 1] or clo[d, 2] > chi[c, 2] or chi[d, 2] < clo[c, 2]):
                    continue
                if union_angle(axis[c, 0], axis[c, 1], axis[c, 2], angle[c], axis[d, 0], axis[d, 1], axis[d, 2],
                               angle[d]) >= limit:
                    active[c] = True
                    active[d] = True


@njit(cache=True)
def _gather_leaves(clusters, ptr, leaves):
    n = 0
    for c in clusters:
        n += ptr[c + 1] - ptr[c]
    out = np.empty(n, np.int64)
    n = 0
    for c in clusters:
        for e in range(ptr[c], ptr[c + 1]):
            out[n] = leaves[e]
            n += 1
    return out
