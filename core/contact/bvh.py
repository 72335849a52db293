"""Bounding-volume hierarchy over triangles in flat arrays, built once and refit every step (moving/deforming), and the cage-cell boxes of the broad phase."""
import numpy as np

from ..jit import njit, prange

LEAF_SIZE = 4
STACK_SIZE = 64


class BVH:
    """Median-split AABB tree over a fixed triangle set; `refit` updates the boxes for new vertex positions.

    Nodes are stored parent-before-child, so a reverse sweep refits bottom-up. Boxes are swept:
    they bound each triangle at the start and at the end of the step, padded per triangle.
    vertex_cell (optional, per vertex): the cell (a cage tet) each vertex moves inside, so that `refit` can
    bound the leaves far from a query region by their cells' boxes instead of reading their vertices.
    """

    def __init__(self, vertices, triangles, vertex_cell=None):
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
        self.leaves = np.ascontiguousarray(np.flatnonzero(self.left < 0))
        if vertex_cell is not None:
            self.leaf_ptr, self.leaf_cells = _leaf_cells(self.leaves, self.triangles, self.start, self.count,
                                                         self.order, np.ascontiguousarray(vertex_cell, np.int64))

    def refit(self, v0, v1, pad, cell_lo=None, cell_hi=None, region=None):
        """Boxes bound every triangle over the step (positions v0 at start, v1 at end), grown by pad (per triangle).

        With cell boxes (cell_lo, cell_hi: (cells,3), each bounding its vertices' paths; needs vertex_cell) and
        region (lo (3,), hi (3,)): a leaf whose cells' box (grown by pad) misses the region keeps that box, a
        looser but still valid bound, and only the other leaves read v0 and v1 (which need to be valid only for
        their vertices)."""
        if region is None:
            _exact_leaves(self.leaves, self.triangles, v0, v1, pad, self.start, self.count, self.order,
                          self.lo, self.hi)
        else:
            _near_leaves(self.leaves, self.leaf_ptr, self.leaf_cells, cell_lo, cell_hi, region[0], region[1],
                         self.triangles, v0, v1, pad, self.start, self.count, self.order, self.lo, self.hi)
        _inner_boxes(self.left, self.right, self.lo, self.hi)


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
def _exact_leaves(leaves, triangles, v0, v1, pad, start, count, order, lo, hi):
    """Every leaf's box from its triangles' boxes (computed in triangle order first: cache-friendly reads)."""
    nt = triangles.shape[0]
    tlo = np.empty((nt, 3))
    thi = np.empty((nt, 3))
    _tri_boxes(triangles, v0, v1, pad, tlo, thi)
    for i in range(leaves.shape[0]):
        node = leaves[i]
        for k in range(3):
            lo[node, k] = np.inf
            hi[node, k] = -np.inf
        for e in range(start[node], start[node] + count[node]):
            t = order[e]
            for k in range(3):
                lo[node, k] = min(lo[node, k], tlo[t, k])
                hi[node, k] = max(hi[node, k], thi[t, k])


@njit(cache=True)
def _leaf_cells(leaves, triangles, start, count, order, vertex_cell):
    """Per leaf (CSR), the distinct cells of its triangles' vertices."""
    ptr = np.zeros(leaves.shape[0] + 1, np.int64)
    ids = np.empty(3 * triangles.shape[0], np.int64)
    n = 0
    for i in range(leaves.shape[0]):
        node = leaves[i]
        own = np.empty(3 * count[node], np.int64)
        for e in range(count[node]):
            for k in range(3):
                own[3 * e + k] = vertex_cell[triangles[order[start[node] + e], k]]
        own.sort()
        for e in range(own.shape[0]):
            if e == 0 or own[e] != own[e - 1]:
                ids[n] = own[e]
                n += 1
        ptr[i + 1] = n
    return ptr, ids[:n].copy()


@njit(cache=True, parallel=True)
def _near_leaves(leaves, ptr, cells, cell_lo, cell_hi, rlo, rhi, triangles, v0, v1, pad, start, count, order,
                 lo, hi):
    """Leaf boxes: the box of the leaf's cells grown by the largest pad or, where that box meets the region
    (few leaves), its triangles' exact box."""
    p = pad.max() if pad.shape[0] > 0 else 0.0
    for i in prange(leaves.shape[0]):
        node = leaves[i]
        l0 = l1 = l2 = np.inf
        h0 = h1 = h2 = -np.inf
        for e in range(ptr[i], ptr[i + 1]):
            c = cells[e]
            l0 = min(l0, cell_lo[c, 0])
            l1 = min(l1, cell_lo[c, 1])
            l2 = min(l2, cell_lo[c, 2])
            h0 = max(h0, cell_hi[c, 0])
            h1 = max(h1, cell_hi[c, 1])
            h2 = max(h2, cell_hi[c, 2])
        l0, l1, l2, h0, h1, h2 = l0 - p, l1 - p, l2 - p, h0 + p, h1 + p, h2 + p
        if not (l0 > rhi[0] or h0 < rlo[0] or l1 > rhi[1] or h1 < rlo[1] or l2 > rhi[2] or h2 < rlo[2]):
            l0 = l1 = l2 = np.inf
            h0 = h1 = h2 = -np.inf
            for e in range(start[node], start[node] + count[node]):
                t = order[e]
                q = pad[t]
                for k in range(3):
                    j = triangles[t, k]
                    l0 = min(l0, v0[j, 0] - q, v1[j, 0] - q)
                    l1 = min(l1, v0[j, 1] - q, v1[j, 1] - q)
                    l2 = min(l2, v0[j, 2] - q, v1[j, 2] - q)
                    h0 = max(h0, v0[j, 0] + q, v1[j, 0] + q)
                    h1 = max(h1, v0[j, 1] + q, v1[j, 1] + q)
                    h2 = max(h2, v0[j, 2] + q, v1[j, 2] + q)
        lo[node, 0], lo[node, 1], lo[node, 2] = l0, l1, l2
        hi[node, 0], hi[node, 1], hi[node, 2] = h0, h1, h2


@njit(cache=True)
def _inner_boxes(left, right, lo, hi):
    """Inner nodes' boxes bottom-up (children are stored after their parent)."""
    for node in range(left.shape[0] - 1, -1, -1):
        a = left[node]
        if a >= 0:
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


@njit(cache=True, parallel=True)
def cell_boxes(cells, grow, x0, x1, pad, lo, hi):
    """Swept box of each cell's nodes (rows of node ids, −1 unused) over positions x0 -> x1, grown by pad and
    by grow[c] times its extent: the box of every point Σ w_j x_j whose negative weights sum to at most −grow[c]."""
    for c in prange(cells.shape[0]):
        for k in range(3):
            lo[c, k] = np.inf
            hi[c, k] = -np.inf
        for s in range(cells.shape[1]):
            j = cells[c, s]
            if j >= 0:
                for k in range(3):
                    lo[c, k] = min(lo[c, k], x0[j, k], x1[j, k])
                    hi[c, k] = max(hi[c, k], x0[j, k], x1[j, k])
        for k in range(3):
            e = grow[c] * (hi[c, k] - lo[c, k]) + pad
            lo[c, k] -= e
            hi[c, k] += e


@njit(cache=True, parallel=True)
def boxes_touch(qlo, qhi, left, right, count, lo, hi, out):
    """out[i] |= box i (qlo[i], qhi[i]) overlaps a leaf box of the tree (a conservative broad phase)."""
    for i in prange(qlo.shape[0]):
        if out[i]:
            continue
        stack = np.empty(STACK_SIZE, np.int64)
        stack[0] = 0
        top = 1 if left.shape[0] > 0 else 0
        while top > 0:
            top -= 1
            node = stack[top]
            if (lo[node, 0] > qhi[i, 0] or hi[node, 0] < qlo[i, 0] or lo[node, 1] > qhi[i, 1]
                    or hi[node, 1] < qlo[i, 1] or lo[node, 2] > qhi[i, 2] or hi[node, 2] < qlo[i, 2]):
                continue
            if left[node] < 0:
                if count[node] > 0:
                    out[i] = True
                    break
            elif top + 2 <= STACK_SIZE:
                stack[top] = left[node]
                stack[top + 1] = right[node]
                top += 2
            else:       # too deep to descend: count it as touching (conservative)
                out[i] = True
                break
