"""Bounding-volume hierarchy over triangles in flat arrays: built once, refit every step (moving/deforming)."""
import numpy as np

from ..jit import njit, prange

LEAF_SIZE = 4
STACK_SIZE = 64


class BVH:
    """Median-split AABB tree over a fixed triangle set; `refit` updates the boxes for new vertex positions.

    Nodes are stored parent-before-child, so a reverse sweep refits bottom-up. Boxes are swept:
    they bound each triangle at the start and at the end of the step, padded per triangle.
    """

    def __init__(self, vertices, triangles):
        self.triangles = np.ascontiguousarray(triangles, dtype=np.int64)
        centroids = np.asarray(vertices, np.float64)[self.triangles].mean(axis=1)
        (self.left, self.right, self.start, self.count, self.order,
         num_nodes) = _build(np.ascontiguousarray(centroids))
        self.left = self.left[:num_nodes]
        self.right = self.right[:num_nodes]
        self.start = self.start[:num_nodes]
        self.count = self.count[:num_nodes]
        self.lo = np.zeros((num_nodes, 3))
        self.hi = np.zeros((num_nodes, 3))

    def refit(self, v0, v1, pad):
        """Boxes bound every triangle over the step (positions v0 at start, v1 at end), grown by pad (per triangle)."""
        _refit(self.triangles, v0, v1, pad, self.left, self.right, self.start, self.count, self.order,
               self.lo, self.hi)


@njit(cache=True)
def _build(centroids):
    n = centroids.shape[0]
    cap = max(1, 2 * ((n + LEAF_SIZE - 1) // LEAF_SIZE) + 1)
    cap = max(cap, 2 * n + 1)
    left = np.full(cap, -1, np.int64)
    right = np.full(cap, -1, np.int64)
    start = np.zeros(cap, np.int64)
    count = np.zeros(cap, np.int64)
    order = np.arange(n).astype(np.int64)
    stack = np.empty((128, 1), np.int64)
    num_nodes = 1
    start[0] = 0
    count[0] = n
    stack[0, 0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top, 0]
        s = start[node]
        c = count[node]
        if c <= LEAF_SIZE:
            continue
        lo = np.full(3, np.inf)
        hi = np.full(3, -np.inf)
        for i in range(s, s + c):
            for k in range(3):
                x = centroids[order[i], k]
                lo[k] = min(lo[k], x)
                hi[k] = max(hi[k], x)
        ext = hi - lo
        axis = 0
        if ext[1] > ext[axis]:
            axis = 1
        if ext[2] > ext[axis]:
            axis = 2
        seg = order[s:s + c].copy()
        keys = np.empty(c)
        for i in range(c):
            keys[i] = centroids[seg[i], axis]
        perm = np.argsort(keys, kind="mergesort")
        for i in range(c):
            order[s + i] = seg[perm[i]]
        half = c // 2
        l = num_nodes
        r = num_nodes + 1
        num_nodes += 2
        left[node] = l
        right[node] = r
        start[l] = s
        count[l] = half
        start[r] = s + half
        count[r] = c - half
        stack[top, 0] = l
        stack[top + 1, 0] = r
        top += 2
    return left, right, start, count, order, num_nodes


@njit(cache=True, parallel=True)
def _tri_boxes(triangles, v0, v1, pad, tlo, thi):
    for t in prange(triangles.shape[0]):
        for k in range(3):
            lo = np.inf
            hi = -np.inf
            for j in range(3):
                a = v0[triangles[t, j], k]
                b = v1[triangles[t, j], k]
                lo = min(lo, a, b)
                hi = max(hi, a, b)
            tlo[t, k] = lo - pad[t]
            thi[t, k] = hi + pad[t]


@njit(cache=True)
def _refit(triangles, v0, v1, pad, left, right, start, count, order, lo, hi):
    nt = triangles.shape[0]
    tlo = np.empty((nt, 3))
    thi = np.empty((nt, 3))
    _tri_boxes(triangles, v0, v1, pad, tlo, thi)
    for node in range(left.shape[0] - 1, -1, -1):
        if left[node] < 0:
            for k in range(3):
                lo[node, k] = np.inf
                hi[node, k] = -np.inf
            for i in range(start[node], start[node] + count[node]):
                t = order[i]
                for k in range(3):
                    lo[node, k] = min(lo[node, k], tlo[t, k])
                    hi[node, k] = max(hi[node, k], thi[t, k])
        else:
            a = left[node]
            b = right[node]
            for k in range(3):
                lo[node, k] = min(lo[a, k], lo[b, k])
                hi[node, k] = max(hi[a, k], hi[b, k])


@njit(cache=True, inline="always")
def query_box(qlo0, qlo1, qlo2, qhi0, qhi1, qhi2, left, right, start, count, order, lo, hi, stack, out):
    """Triangles whose box overlaps the query box, written to out; returns how many were found (may exceed out's size)."""
    found = 0
    if left.shape[0] == 0:
        return 0
    top = 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        if (lo[node, 0] > qhi0 or hi[node, 0] < qlo0 or lo[node, 1] > qhi1 or hi[node, 1] < qlo1
                or lo[node, 2] > qhi2 or hi[node, 2] < qlo2):
            continue
        if left[node] < 0:
            for i in range(start[node], start[node] + count[node]):
                if found < out.shape[0]:
                    out[found] = order[i]
                found += 1
        elif top + 2 <= stack.shape[0]:
            stack[top] = left[node]
            stack[top + 1] = right[node]
            top += 2
    return found
