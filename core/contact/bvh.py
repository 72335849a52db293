"""Bounding-volume hierarchy over triangles in flat arrays, built once and refit every step (moving/deforming), and the cage-cell boxes of the broad phase."""
import numpy as np

from ..jit import njit, prange

LEAF_SIZE = 4
STACK_SIZE = 64


class BoxTree:
    """Median-split AABB tree over items (built once from their centres) whose boxes move; `fit` sets the
    boxes from the items' boxes. Nodes are stored parent-before-child, so a reverse sweep fits bottom-up."""

    def __init__(self, centres):
        (self.left, self.right, self.start, self.count, self.order,
         num_nodes) = _build(np.ascontiguousarray(centres, dtype=np.float64))
        self.left = self.left[:num_nodes]
        self.right = self.right[:num_nodes]
        self.start = self.start[:num_nodes]
        self.count = self.count[:num_nodes]
        self.leaves = np.ascontiguousarray(np.flatnonzero(self.left < 0))
        self.lo = np.zeros((num_nodes, 3))
        self.hi = np.zeros((num_nodes, 3))

    def fit(self, item_lo, item_hi):
        """Node boxes bound the item boxes (item_lo, item_hi: (items,3))."""
        _item_leaves(self.leaves, item_lo, item_hi, self.start, self.count, self.order, self.lo, self.hi)
        _inner_boxes(self.left, self.right, self.lo, self.hi)


class BVH(BoxTree):
    """Box tree over a fixed triangle set; `refit` updates the boxes for new vertex positions.

    Boxes are swept: they bound each triangle at the start and at the end of the step, padded per triangle.
    """

    def __init__(self, vertices, triangles):
        self.triangles = np.ascontiguousarray(triangles, dtype=np.int64)
        self.num_vertices = int(self.triangles.max(initial=-1)) + 1
        super().__init__(np.asarray(vertices, np.float64)[self.triangles].mean(axis=1))
        self.parent = np.full(len(self.left), -1, np.int64)
        inner = np.flatnonzero(self.left >= 0)
        self.parent[self.left[inner]] = inner
        self.parent[self.right[inner]] = inner
        self._fitted = None    # the leaves of the last fit_leaves (None: every box was set by refit)

    def refit(self, v0, v1, pad):
        """Boxes bound every triangle over the step (positions v0 at start, v1 at end), grown by pad (per triangle)."""
        _exact_leaves(self.leaves, self.triangles, v0, v1, pad, self.start, self.count, self.order,
                      self.lo, self.hi)
        _inner_boxes(self.left, self.right, self.lo, self.hi)
        self._fitted = None

    def fit_leaves(self, leaves, v0, v1, pad):
        """Exact boxes (as refit) for the leaf nodes `leaves` and their ancestors; every other box empty: the
        tree then finds only those leaves' triangles, and reads v0 and v1 only at their vertices."""
        if self._fitted is None:
            self.lo[:] = np.inf
            self.hi[:] = -np.inf
        else:
            _clear_leaves(self._fitted, self.parent, self.lo, self.hi)
        _fit_leaves(leaves, self.parent, self.triangles, v0, v1, pad, self.start, self.count, self.order,
                    self.lo, self.hi)
        self._fitted = leaves

    def leaf_vertices(self, leaves):
        """The distinct vertices of the triangles in the leaf nodes `leaves`."""
        return _leaf_vertices(leaves, self.triangles, self.start, self.count, self.order, self.num_vertices)


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
    _item_leaves(leaves, tlo, thi, start, count, order, lo, hi)


@njit(cache=True)
def _clear_leaves(leaves, parent, lo, hi):
    """Empty the boxes of the leaf nodes `leaves` and of their ancestors (up to where they are empty already)."""
    for i in range(leaves.shape[0]):
        node = leaves[i]
        while node >= 0 and lo[node, 0] != np.inf:
            for k in range(3):
                lo[node, k] = np.inf
                hi[node, k] = -np.inf
            node = parent[node]


@njit(cache=True)
def _fit_leaves(leaves, parent, triangles, v0, v1, pad, start, count, order, lo, hi):
    """Exact boxes of the leaf nodes `leaves`, grown into their ancestors (up to the first that holds them
    already: its ancestors hold it too); the other boxes must be empty."""
    for i in range(leaves.shape[0]):
        node = leaves[i]
        l0 = l1 = l2 = np.inf
        h0 = h1 = h2 = -np.inf
        for e in range(start[node], start[node] + count[node]):
            t = order[e]
            q = pad[t]
            for j in range(3):
                a = triangles[t, j]
                l0 = min(l0, v0[a, 0] - q, v1[a, 0] - q)
                l1 = min(l1, v0[a, 1] - q, v1[a, 1] - q)
                l2 = min(l2, v0[a, 2] - q, v1[a, 2] - q)
                h0 = max(h0, v0[a, 0] + q, v1[a, 0] + q)
                h1 = max(h1, v0[a, 1] + q, v1[a, 1] + q)
                h2 = max(h2, v0[a, 2] + q, v1[a, 2] + q)
        up = node
        while up >= 0:
            grown = False
            if l0 < lo[up, 0]:
                lo[up, 0], grown = l0, True
            if l1 < lo[up, 1]:
                lo[up, 1], grown = l1, True
            if l2 < lo[up, 2]:
                lo[up, 2], grown = l2, True
            if h0 > hi[up, 0]:
                hi[up, 0], grown = h0, True
            if h1 > hi[up, 1]:
                hi[up, 1], grown = h1, True
            if h2 > hi[up, 2]:
                hi[up, 2], grown = h2, True
            if not grown:
                break
            up = parent[up]


@njit(cache=True)
def _leaf_vertices(leaves, triangles, start, count, order, num_vertices):
    seen = np.zeros(num_vertices, np.bool_)
    n = 0
    for i in range(leaves.shape[0]):
        n += 3 * count[leaves[i]]
    out = np.empty(n, np.int64)
    n = 0
    for i in range(leaves.shape[0]):
        node = leaves[i]
        for e in range(start[node], start[node] + count[node]):
            for j in range(3):
                a = triangles[order[e], j]
                if not seen[a]:
                    seen[a] = True
                    out[n] = a
                    n += 1
    return out[:n]


@njit(cache=True)
def _item_leaves(leaves, item_lo, item_hi, start, count, order, lo, hi):
    """Each leaf's box: the union of its items' boxes (item_lo, item_hi)."""
    for i in range(leaves.shape[0]):
        node = leaves[i]
        for k in range(3):
            lo[node, k] = np.inf
            hi[node, k] = -np.inf
        for e in range(start[node], start[node] + count[node]):
            for k in range(3):
                lo[node, k] = min(lo[node, k], item_lo[order[e], k])
                hi[node, k] = max(hi[node, k], item_hi[order[e], k])


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
