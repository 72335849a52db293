"""Broad phase on the cage cells: which cells, then which of their points, come near a body's triangles; which leaves they reach."""
import numpy as np

from ..jit import njit, prange
from .bvh import BVH, STACK_SIZE, BoxTree
from .surface import embed_swept


class BodyTriangles:
    """One body's render triangles (ids of the stage's points) seen from the other bodies' cage cells.

    A point moves inside its cell's box, so a triangle's swept box lies inside the box around its vertices'
    cells. Triangles are grouped by those cells (most have all three in one cell); a tree over the groups'
    boxes finds the cells of other bodies near any triangle, and the BVH leaves whose triangles they reach.
    rest (points,3): rest positions (for the trees' layout); point_cell (points,): each point's cell.
    """

    def __init__(self, rest, triangles, point_cell, num_cells):
        self.bvh = bvh = BVH(rest, triangles)
        corner = np.sort(point_cell[bvh.triangles], axis=1)
        self.group_cells, group = np.unique(corner, axis=0, return_inverse=True)
        group = group.ravel()
        # each triangle's leaf, then the distinct (group, leaf) pairs as lists of leaves per group
        leaves = bvh.leaves[np.argsort(bvh.start[bvh.leaves])]
        tri_leaf = np.empty(len(group), np.int64)
        tri_leaf[bvh.order] = np.repeat(leaves, bvh.count[leaves])
        pairs = np.unique(group * len(bvh.left) + tri_leaf)
        first, self.group_leaves = np.divmod(pairs, len(bvh.left))
        self.group_ptr = np.searchsorted(first, np.arange(len(self.group_cells) + 1))
        counts = np.bincount(point_cell, minlength=num_cells)
        centres = np.stack([np.bincount(point_cell, rest[:, d], num_cells) for d in range(3)], 1) / counts[:, None]
        self.tree = BoxTree(centres[self.group_cells].mean(axis=1))

    def fit(self, cell_lo, cell_hi, reach):
        """Set the groups' boxes from the cells' boxes (cell_lo, cell_hi: bounding their points' paths), grown
        by reach: each bounds its triangles' swept boxes grown by reach."""
        self.lo = np.empty((len(self.group_cells), 3))
        self.hi = np.empty((len(self.group_cells), 3))
        _group_boxes(self.group_cells, cell_lo, cell_hi, reach, self.lo, self.hi)
        self.tree.fit(self.lo, self.hi)

    def near(self, qlo, qhi, groups=True):
        """Which query boxes (qlo, qhi: (q,3)) meet a group's box, and (groups=True; else None) which groups'
        boxes meet a query box."""
        asking = np.zeros(len(qlo), np.bool_)
        close = np.zeros(len(self.group_cells) if groups else 0, np.bool_)
        t = self.tree
        _touching(qlo, qhi, t.left, t.right, t.start, t.count, t.order, t.lo, t.hi, self.lo, self.hi, asking, close,
                  groups)
        return asking, close if groups else None

    def leaves(self, close):
        """The BVH leaf nodes holding the triangles of the groups `close` (bool per group)."""
        return _leaves_of(np.flatnonzero(close), self.group_ptr, self.group_leaves, len(self.bvh.left))


@njit(cache=True)
def _group_boxes(group_cells, cell_lo, cell_hi, reach, lo, hi):
    for g in range(group_cells.shape[0]):
        for k in range(3):
            lo[g, k] = np.inf
            hi[g, k] = -np.inf
        for e in range(group_cells.shape[1]):
            c = group_cells[g, e]
            for k in range(3):
                lo[g, k] = min(lo[g, k], cell_lo[c, k] - reach)
                hi[g, k] = max(hi[g, k], cell_hi[c, k] + reach)


@njit(cache=True)
def _touching(qlo, qhi, left, right, start, count, order, lo, hi, item_lo, item_hi, asking, close, every):
    """asking[q]: query box q meets an item box; close[m]: item m's box meets a query box (every=True; else
    a query stops at its first item)."""
    stack = np.empty(STACK_SIZE, np.int64)
    for q in range(qlo.shape[0]):
        stack[0] = 0
        top = 1 if left.shape[0] > 0 else 0
        while top > 0:
            top -= 1
            node = stack[top]
            if (lo[node, 0] > qhi[q, 0] or hi[node, 0] < qlo[q, 0] or lo[node, 1] > qhi[q, 1]
                    or hi[node, 1] < qlo[q, 1] or lo[node, 2] > qhi[q, 2] or hi[node, 2] < qlo[q, 2]):
                continue
            if left[node] < 0:
                for e in range(start[node], start[node] + count[node]):
                    m = order[e]
                    if not (item_lo[m, 0] > qhi[q, 0] or item_hi[m, 0] < qlo[q, 0] or item_lo[m, 1] > qhi[q, 1]
                            or item_hi[m, 1] < qlo[q, 1] or item_lo[m, 2] > qhi[q, 2] or item_hi[m, 2] < qlo[q, 2]):
                        asking[q] = True
                        if not every:
                            break
                        close[m] = True
                if asking[q] and not every:
                    break
            else:   # the tree is built by halving: its depth stays far below STACK_SIZE
                stack[top] = left[node]
                stack[top + 1] = right[node]
                top += 2


@njit(cache=True)
def _leaves_of(groups, ptr, group_leaves, num_nodes):
    """The distinct leaves listed for the groups `groups` (CSR ptr, group_leaves)."""
    seen = np.zeros(num_nodes, np.bool_)
    out = np.empty(num_nodes, np.int64)
    n = 0
    for i in range(groups.shape[0]):
        for e in range(ptr[groups[i]], ptr[groups[i] + 1]):
            leaf = group_leaves[e]
            if not seen[leaf]:
                seen[leaf] = True
                out[n] = leaf
                n += 1
    return out[:n].copy()


@njit(cache=True, parallel=True)
def cell_paths(cells, ptr, points, point_cell, nodes, weights, x0, v, dt):
    """The points of the cells `cells` (CSR ptr, points: each cell's points), ascending; their positions at the
    start and the end of the motion x0 + dt v (q0, q1); the box of their paths per cell (lo, hi: rows as
    `cells`, empty for a cell without points); and each point's row there (slot)."""
    row = np.empty(ptr.shape[0] - 1, np.int64)
    mark = np.zeros((point_cell.shape[0] + 7) // 8 * 8, np.bool_)
    n = 0
    for i in range(cells.shape[0]):
        row[cells[i]] = i
        for e in range(ptr[cells[i]], ptr[cells[i] + 1]):
            mark[points[e]] = True
            n += 1
    live = np.empty(n, np.int64)
    n = 0
    words = mark.view(np.uint64)   # 8 points at a time: most are not marked
    for w in range(words.shape[0]):
        if words[w] != 0:
            for i in range(8 * w, 8 * w + 8):
                if mark[i]:
                    live[n] = i
                    n += 1
    q0 = np.empty((n, 3))
    q1 = np.empty((n, 3))
    for k in prange(n):
        embed_swept(x0, nodes, weights, dt, v, live[k], q0, q1, k)
    slot = np.empty(n, np.int64)
    lo = np.full((cells.shape[0], 3), np.inf)
    hi = np.full((cells.shape[0], 3), -np.inf)
    for k in range(n):
        r = row[point_cell[live[k]]]
        slot[k] = r
        for d in range(3):
            lo[r, d] = min(lo[r, d], q0[k, d], q1[k, d])
            hi[r, d] = max(hi[r, d], q0[k, d], q1[k, d])
    return live, q0, q1, lo, hi, slot


@njit(cache=True)
def kept_points(keep, slot, live, q0, q1):
    """The points (live, with positions q0, q1) whose row slot[k] is kept (keep: bool per row), compacted in place."""
    n = 0
    for k in range(live.shape[0]):
        if keep[slot[k]]:
            live[n] = live[k]
            for d in range(3):
                q0[n, d] = q0[k, d]
                q1[n, d] = q1[k, d]
            n += 1
    return live[:n], q0[:n], q1[:n]


@njit(cache=True)
def body_boxes(offsets, x0, x1, grow, pad):
    """Per body (nodes offsets[b] ≤ n < offsets[b + 1]), the box of its nodes over x0 -> x1 grown by grow[b] times its
    extent and by pad, (B, 2, 3): it holds each of its cells' boxes (cell_boxes, a cell's grow at most its body's)
    grown by pad."""
    nb = offsets.shape[0] - 1
    out = np.empty((nb, 2, 3))
    for b in range(nb):
        for d in range(3):
            lo, hi = np.inf, -np.inf
            for n in range(offsets[b], offsets[b + 1]):
                lo = min(lo, x0[n, d], x1[n, d])
                hi = max(hi, x0[n, d], x1[n, d])
            e = grow[b] * (hi - lo) + pad
            out[b, 0, d] = lo - e
            out[b, 1, d] = hi + e
    return out


@njit(cache=True)
def group_boxes(group, lo, hi, num_groups, pad):
    """Per group, the box around the boxes (lo, hi) of its members (group: each box's group), grown by pad;
    (num_groups, 2, 3), empty for a group without members."""
    out = np.empty((num_groups, 2, 3))
    out[:, 0] = np.inf
    out[:, 1] = -np.inf
    for i in range(group.shape[0]):
        g = group[i]
        for d in range(3):
            out[g, 0, d] = min(out[g, 0, d], lo[i, d] - pad)
            out[g, 1, d] = max(out[g, 1, d], hi[i, d] + pad)
    return out
