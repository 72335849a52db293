"""Self contact's edge–edge rows: a self-colliding body's sharp render edges held off each other.

As between bodies (core.contact.body_edges), a body's sharp render edges (core.contact.edges.feature_edges of its rest
render surface) are tested against each other, continuously over the step, each pair once; a row is over the 8 nodes of
one edge's two points and, negated, the other's 8 (the same body: a stencil may name a node twice), frictionless. The
exclusion rule is the vertex rows' (core.contact.self_contact): two edges that share a point, or whose rest distance is
below the larger exclusion radius of their four points, are neighbours on the surface and never collide. The detection
runs in the body's moving frame within its self margin (SelfSurface.rows), and a body holding a reference pair list
skips it while no two edges can have closed to the margin since: their least distance at the reference, less
2 W × drift (the vertex rows' bound), stays beyond it.
"""
import numpy as np

from ..csr import csr_find
from ..jit import njit, prange
from .body_edges import edge_points, edge_points_used, edge_row_tuple, sharp_edges
from .bvh import STACK_SIZE, BVH, query_box
from .detect import CANDIDATES, CHUNK
from .edges import EdgeBVH, edge_contacts, edge_keys
from .segments import closest_at


class SelfEdges:
    """One self-colliding body's sharp render edges (in the order of their BVH's leaves, so that a block of
    consecutive edges is compact), their triangles, their ids in the layout's "edges", their exclusions (CSR), the
    render points the detection reads, and their least distance at the body's reference (clearance)."""

    def __init__(self, lay, surface, body, first, radius):
        self.body, self.first, self.count = body, int(first), surface.num_render_points
        rest = surface.rest[:self.count]
        fe, fa = sharp_edges(surface)
        order = EdgeBVH(rest, fe).bvh.order
        self.edges, self.faces = np.ascontiguousarray(fe[order]), np.ascontiguousarray(fa[order])
        self.bvh = EdgeBVH(rest, self.edges)
        self.triangles = surface.render_triangles
        self.used = edge_points_used(surface, self.edges, self.faces)
        render = np.flatnonzero(lay["group"][len(lay["nodes"]):] == body)
        keys = edge_keys(lay["edges"][render] - self.first)
        by_key = np.argsort(keys)
        self.layout_edge = render[by_key[np.searchsorted(keys[by_key], edge_keys(self.edges))]]
        self.excluded = self_edge_exclusions(rest, self.edges, radius)
        self.clearance = 0.0

    def rows(self, lay, x0, v, dt, tau, margin, max_per_edge):
        """The row tuple of the edges' contacts over the motion x0 + dt v within margin, or None: none. As a point
        meets its own body's triangles only from outside or within the thickness tau behind them, an edge found
        behind another's two faces (inside the body) by more than tau is left alone: search depth tau."""
        p0, p1 = edge_points(lay, self.first, self.count, self.used, x0, v, dt)
        ec = edge_contacts(self.edges, p0, p1, self.bvh, p0, p1, tau, margin, tau, faces=self.faces,
                           triangles=self.triangles, max_per_edge=max_per_edge, exclude=self.excluded)
        return edge_row_tuple(lay, ec, self.first, self.first, self.layout_edge[ec.edge], self.body) if len(ec) else None

    def take_reference(self, p, reach):
        """The edges' least distance (at most reach) between pairs not excluded, at the body's points p (render points
        first)."""
        p = np.ascontiguousarray(p[:self.count])
        b = self.bvh.bvh
        b.refit(p, p, np.full(len(self.edges), reach))
        least = np.full(len(self.edges), reach)
        _least_distances(p, self.edges, *self.excluded, b.left, b.right, b.start, b.count, b.order, b.lo, b.hi, least)
        self.clearance = float(least.min(initial=reach))


@njit(cache=True, parallel=True)
def _least_distances(p, edges, skip_ptr, skip, left, right, start, count, order, lo, hi, least):
    """least[e] (in: the reach; the boxes grown by it): the distance from edge e to the nearest later edge that is not
    excluded, if nearer."""
    ne = edges.shape[0]
    for ch in prange((ne + CHUNK - 1) // CHUNK):
        cand = np.empty(CANDIDATES, np.int64)
        stack = np.empty(STACK_SIZE, np.int64)
        for e in range(ch * CHUNK, min(ne, (ch + 1) * CHUNK)):
            a, b = edges[e, 0], edges[e, 1]
            x0, y0, z0 = min(p[a, 0], p[b, 0]), min(p[a, 1], p[b, 1]), min(p[a, 2], p[b, 2])
            x1, y1, z1 = max(p[a, 0], p[b, 0]), max(p[a, 1], p[b, 1]), max(p[a, 2], p[b, 2])
            found = query_box(x0, y0, z0, x1, y1, z1, left, right, start, count, order, lo, hi, stack, cand)
            if found > cand.shape[0]:   # a dense neighbourhood: look again with room for all of it
                cand = np.empty(found, np.int64)
                found = query_box(x0, y0, z0, x1, y1, z1, left, right, start, count, order, lo, hi, stack, cand)
            for j in range(found):
                o = cand[j]
                if o <= e or csr_find(skip_ptr, skip, e, o) >= 0:
                    continue
                d = closest_at(0.0, p, p, a, b, p, p, edges[o, 0], edges[o, 1])[2]
                if d < least[e]:
                    least[e] = d


def self_edge_exclusions(rest, edges, radius):
    """The excluded pairs of a surface's edges (E,2) over its rest points (P,3), with the points' exclusion radii (P,),
    as CSR: ptr (E+1,), other edges (sorted within each edge's range). See the module docstring for the rule."""
    rest = np.ascontiguousarray(rest, dtype=np.float64)
    edges = np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2)
    if not len(edges):
        return np.zeros(1, np.int64), np.zeros(0, np.int64)
    reach = np.maximum(radius[edges[:, 0]], radius[edges[:, 1]])
    bvh = BVH(rest, edges[:, [0, 1, 1]])
    bvh.refit(rest, rest, np.zeros(len(edges)))
    tree = (bvh.left, bvh.right, bvh.start, bvh.count, bvh.order, bvh.lo, bvh.hi)
    count = np.zeros(len(edges), np.int64)
    _edge_neighbours(rest, edges, reach, *tree, count, np.zeros(0, np.int64), np.zeros(1, np.int64))
    ptr = np.concatenate([[0], np.cumsum(count)]).astype(np.int64)
    found = np.empty(ptr[-1], np.int64)
    _edge_neighbours(rest, edges, reach, *tree, count, found, ptr)
    first = np.repeat(np.arange(len(edges)), count)
    a, b = np.concatenate([first, found]), np.concatenate([found, first])   # either edge's radius excludes the pair
    key = np.unique(a * len(edges) + b)
    return (np.searchsorted(key // len(edges), np.arange(len(edges) + 1)).astype(np.int64),
            np.ascontiguousarray(key % len(edges)))


@njit(cache=True, parallel=True)
def _edge_neighbours(rest, edges, reach, left, right, start, count, order, lo, hi, n, out, ptr):
    """Per edge e, the other edges that share a point with it or pass within reach[e] of it (rest shape): their
    number in n[e] when out is empty, else written to out[ptr[e]:ptr[e + 1]]."""
    write = out.shape[0] > 0
    ne = edges.shape[0]
    for ch in prange((ne + CHUNK - 1) // CHUNK):
        cand = np.empty(CANDIDATES, np.int64)
        stack = np.empty(STACK_SIZE, np.int64)
        for e in range(ch * CHUNK, min(ne, (ch + 1) * CHUNK)):
            a, b, r = edges[e, 0], edges[e, 1], reach[e]
            x0, y0, z0 = min(rest[a, 0], rest[b, 0]) - r, min(rest[a, 1], rest[b, 1]) - r, min(rest[a, 2], rest[b, 2]) - r
            x1, y1, z1 = max(rest[a, 0], rest[b, 0]) + r, max(rest[a, 1], rest[b, 1]) + r, max(rest[a, 2], rest[b, 2]) + r
            found = query_box(x0, y0, z0, x1, y1, z1, left, right, start, count, order, lo, hi, stack, cand)
            if found > cand.shape[0]:   # a dense neighbourhood: look again with room for all of it
                cand = np.empty(found, np.int64)
                found = query_box(x0, y0, z0, x1, y1, z1, left, right, start, count, order, lo, hi, stack, cand)
            k = 0
            for j in range(found):
                o = cand[j]
                if o == e:
                    continue
                c, d = edges[o, 0], edges[o, 1]
                near = a == c or a == d or b == c or b == d
                if not near:
                    near = closest_at(0.0, rest, rest, a, b, rest, rest, c, d)[2] < r
                if near:
                    if write:
                        out[ptr[e] + k] = o
                    k += 1
            if not write:
                n[e] = k
