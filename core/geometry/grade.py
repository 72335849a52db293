"""Graded cage: the cage's tets bisected where the surface is thinner than them, the mesh kept conforming.

A part thinner than a cage cell (an ear, a tail, a plate) sits in tets it fills in part: it bends with their
stiffness, not its own (docs/method.md, "Thin parts"). Here every tet near such a part is bisected at its longest edge
until its cell is at most the part's thickness / CELLS_THROUGH (and no finer than `floor`); a tet left with a split
edge (a hanging node) is bisected at its longest edge too, until none is (Rivara's longest-edge bisection: it ends,
and the tets' shapes stay within a bounded set). Children wholly outside the surface are then dropped, so the part's
cage follows it."""
import numpy as np

from ..jit import njit
from .embedding import barycentric
from .grid import tri_tet_overlap

# the six edges of a tet (local corners)
EDGES = np.array([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)], dtype=np.int64)
# an edge's key is a * _KEY + b (a < b): node ids stay below it
_KEY = np.int64(1) << 31
# a cube cell of edge h has tets whose longest edge is h √2
_DIAGONAL = np.sqrt(2.0)


def _edges(nodes, tets):
    """Squared lengths (m,6) and keys (m,6) of every tet's edges."""
    a, b = tets[:, EDGES[:, 0]], tets[:, EDGES[:, 1]]
    length2 = ((nodes[a] - nodes[b]) ** 2).sum(axis=2)
    return length2, np.minimum(a, b) * _KEY + np.maximum(a, b)


def _longest(length2, keys):
    """Local index of each tet's longest edge; equal lengths go to the larger key, so every tet sharing an edge ranks
    it alike (the bisection's conformity closure relies on one global order of edges)."""
    top = length2.max(axis=1)
    tied = length2 >= top[:, None] * (1.0 - 1e-12)
    return np.argmax(np.where(tied, keys, -1), axis=1)


@njit(cache=True)
def _crossed(nodes, tets, parent, pair_start, pair_tri, verts, tris, eps, longest, limit, out):
    """out[i]: tet i is crossed by a triangle k of its parent's (pair_start/pair_tri) with limit[k] < longest[i]."""
    tet = np.empty((4, 3))
    tri = np.empty((3, 3))
    for i in range(len(tets)):
        out[i] = False
        for c in range(4):
            for d in range(3):
                tet[c, d] = nodes[tets[i, c], d]
        pa = parent[i]
        for k in range(pair_start[pa], pair_start[pa + 1]):
            if longest[i] <= limit[k]:
                continue
            for c in range(3):
                for d in range(3):
                    tri[c, d] = verts[tris[pair_tri[k], c], d]
            if tri_tet_overlap(tri, tet, eps):
                out[i] = True
                break


def bisect_thin(nodes, tets, pair_tet, pair_tri, pair_size, verts, tris, eps, max_rounds=400):
    """Bisect `tets` (m,4) over `nodes` (n,3) until no tet crossed by a thin triangle is coarser than that triangle's
    part asks: (pair_tet, pair_tri, pair_size) list, sorted by tet, the thin triangles crossing each input tet and the
    cell size each asks for (a child is tested against its parent's). The mesh stays conforming. Returns (nodes,
    tets, parent): parent (m',) is the input tet each output tet lies in. A child keeps its parent's orientation."""
    nodes = np.asarray(nodes, np.float64)
    tets = np.asarray(tets, np.int64)
    parent = np.arange(len(tets), dtype=np.int64)
    if len(pair_tet) == 0:
        return nodes, tets, parent
    pair_start = np.searchsorted(pair_tet, np.arange(len(tets) + 1))
    limit = _DIAGONAL * np.asarray(pair_size, np.float64) * (1.0 + 1e-9)
    split_keys = np.empty(0, np.int64)      # sorted keys of the edges split so far
    split_mid = np.empty(0, np.int64)       # their midpoint nodes
    pieces = [nodes]
    count = len(nodes)
    for _ in range(max_rounds):
        all_nodes = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]
        pieces = [all_nodes]
        length2, keys = _edges(all_nodes, tets)
        hanging = np.isin(keys, split_keys).any(axis=1)
        # too coarse: crossed by a thin triangle whose part asks for cells smaller than the tet's (its longest edge
        # over a cell's diagonal)
        coarse = np.empty(len(tets), np.bool_)
        _crossed(all_nodes, tets, parent, pair_start, pair_tri, verts, tris, eps, np.sqrt(length2.max(axis=1)),
                 limit, coarse)
        todo = hanging | coarse
        if not todo.any():
            return all_nodes, tets, parent
        rows = np.flatnonzero(todo)
        local = _longest(length2[rows], keys[rows])
        key = keys[rows, local]
        new = np.setdiff1d(key, split_keys)
        a, b = new // _KEY, new % _KEY
        pieces.append(0.5 * (all_nodes[a] + all_nodes[b]))
        ids = count + np.arange(len(new), dtype=np.int64)
        count += len(new)
        order = np.argsort(np.concatenate([split_keys, new]), kind="stable")
        split_keys = np.concatenate([split_keys, new])[order]
        split_mid = np.concatenate([split_mid, ids])[order]
        mid = split_mid[np.searchsorted(split_keys, key)]
        p, q = EDGES[local, 0], EDGES[local, 1]
        at = np.arange(len(rows))
        first, second = tets[rows].copy(), tets[rows].copy()
        first[at, q] = mid
        second[at, p] = mid
        keep = ~todo
        tets = np.concatenate([tets[keep], first, second])
        parent = np.concatenate([parent[keep], parent[rows], parent[rows]])
    raise RuntimeError("bisect_thin: the conformity closure did not end")


def touched_tets(nodes, tets, parent, pair_parent, pair_tri, verts, tris, eps):
    """Whether each tet overlaps one of the triangles its parent overlaps ((pair_parent, pair_tri) sorted by parent)."""
    start = np.searchsorted(pair_parent, np.arange(int(parent.max(initial=-1)) + 2))
    out = np.empty(len(tets), np.bool_)
    _crossed(nodes, tets, parent, start, pair_tri, verts, tris, eps, np.zeros(len(tets)), np.full(len(pair_tri), -1.0),
             out)
    return out


@njit(cache=True)
def _relocate(points, nodes, tets, start, children, old_tet, out):
    """For each point, the child (of its old tet) that holds it best: the largest least barycentric coordinate."""
    w = np.empty(4)
    for p in range(len(points)):
        best, best_t = -1e300, -1
        o = old_tet[p]
        for k in range(start[o], start[o + 1]):
            t = children[k]
            barycentric(points[p], nodes[tets[t, 0]], nodes[tets[t, 1]], nodes[tets[t, 2]], nodes[tets[t, 3]], w)
            m = min(min(w[0], w[1]), min(w[2], w[3]))
            if m > best:
                best, best_t = m, t
        out[p] = best_t


def relocate(points, nodes, tets, parent, old_tet):
    """The tet among the children of `old_tet` (per point) that holds each point (a tet not bisected is its own
    child)."""
    children = np.argsort(parent, kind="stable")
    start = np.searchsorted(parent[children], np.arange(int(max(parent.max(initial=-1), old_tet.max(initial=-1))) + 2))
    out = np.empty(len(points), np.int64)
    _relocate(np.ascontiguousarray(points, np.float64), nodes, tets, start, children, old_tet, out)
    return out
