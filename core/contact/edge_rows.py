"""Edge–edge solver rows of the contact stage: the bodies' render edges against the colliders' feature edges.

The stage keeps per-point bookkeeping (side hint, normal force, friction state); a render edge is a
bookkeeping point of its own, numbered after the render points (edge e is point P + e). An edge row is a
row like a vertex–triangle row: its stencil is the 8 nodes of the body edge's two points ((1−s) w_a, s w_b),
its `move` the collider edge's motion at the contact.

Edge contacts are frictionless and keep no friction state between steps: the contact point slides along both edges as they move, so there is no material
point to anchor, and a body's friction at a sharp edge comes from its vertex rows on the faces beside it.
Measured with Coulomb friction on the edge rows (μ as the collider's): the subdivided Suzanne of
test_shape_recovery, landing across a step edge of 2 cm thickness, stayed perched on the edge's rounded
shell (her centre of mass 1.7 cm past the edge itself) instead of sliding off it.
"""
import numpy as np

from ..jit import njit
from .bvh import boxes_touch, cell_boxes
from .edges import SAME_SURFACE_COSINE, EdgeBVH, edge_contacts, edge_stencil, feature_edges
from .surface import point_positions

EDGE_STENCIL = 8     # the two points' 4 nodes each
RESHAPE = 0.05       # a collider deformed (non-rigidly) by this many triangle heights has its feature edges found
                     # again: a dihedral angle turns by ~2 × 0.05 rad (6°) at most before the sharp edges are updated


class ColliderEdges:
    """The live colliders' feature edges, numbered over the stage's concatenated collider vertices and
    triangles (found on the colliders' start positions when built): edges (F,2), faces (F,2) adjacent triangle
    ids (−1: two-sided), thickness and collider index per edge, and their EdgeBVH."""

    def __init__(self, live):
        edges, faces, thick, index = [], [], [], []
        voff = toff = 0
        for c in live:
            # a closed collider holding a body has convex edges on its inside too: all its sharp edges, two-sided
            fe, fa = feature_edges(c.start, c.triangles, closed=c.one_sided and not c.holds)
            edges.append(fe + voff)
            faces.append(np.where(fa >= 0, fa + toff, -1))
            thick.append(np.full(len(fe), c.thickness))
            index.append(np.full(len(fe), c.index, np.int64))
            voff += len(c.start)
            toff += len(c.triangles)
        self.edges = np.ascontiguousarray(np.concatenate(edges), dtype=np.int64).reshape(-1, 2)
        self.faces = np.ascontiguousarray(np.concatenate(faces), dtype=np.int64).reshape(-1, 2)
        self.thickness = np.concatenate(thick)
        self.collider = np.concatenate(index)
        self.bvh = EdgeBVH(np.concatenate([c.start for c in live]), self.edges) if len(self.edges) else None
        self._shapes = [c.start for c in live]   # collider positions are replaced, never edited in place
        self._checked = list(self._shapes)       # the positions last found not reshaped (checked once per step)
        self._bend = [RESHAPE * _median_height(c.start, c.triangles) for c in live]

    def reshaped(self, live):
        """Whether a collider's shape changed since the features were found (not by a rigid motion: by more than
        RESHAPE times its triangles' median height after the best rigid fit), so its sharp edges may have changed."""
        for i, (c, shape, bend) in enumerate(zip(live, self._shapes, self._bend)):
            if c.start is self._checked[i]:
                continue
            if not np.array_equal(c.start, shape) and rigid_misfit(shape, c.start) > bend:
                return True
            self._checked[i] = c.start
        return False


def _median_height(v, triangles):
    """The median over triangles of their smallest height (twice the area over the longest side)."""
    p = v[triangles]
    double_area = np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
    longest = np.linalg.norm(p - np.roll(p, 1, axis=1), axis=2).max(axis=1)
    return float(np.median(double_area / np.maximum(longest, 1e-300)))


def rigid_misfit(a, b):
    """The largest distance between points b (n,3) and points a (n,3) moved by their best rigid fit onto b (Kabsch)."""
    ca, cb = a - a.mean(axis=0), b - b.mean(axis=0)
    u, _, vt = np.linalg.svd(ca.T @ cb)
    flip = np.sign(np.linalg.det(u @ vt))
    rotation = u @ np.diag([1.0, 1.0, flip]) @ vt
    return float(np.abs(ca @ rotation - cb).max())


class EdgeRowSet:
    """One call's edge rows, with the fields the stage reads from a candidate set (point, normal, gap)."""

    def __init__(self, point, normal, gap):
        self.point, self.normal, self.gap = point, normal, gap


def collider_edge_rows(lay, x0, v, dt, c0, c1, ctris, cedges, margin, search_depth, side_hint, hint_source,
                       vertex_rows, max_per_edge, width):
    """Rows (a list of 0 or 1 row tuples, as the stage's _gather makes them) of the edges lay["collider_edges"]
    of lay["edges"] (bookkeeping points P + e) against the collider feature edges `cedges` (ColliderEdges) over the
    motion x0 + dt v of the nodes, the colliders moving from c0 to c1 (triangles ctris over them).

    lay: the stage's layout (render points' stencils "nodes", "weights" (P,4), their "point_cell" among the
    "cells" with "cell_grow"; it keeps the edges' cell pairs); side_hint (E,3): the edges' last normals,
    hint_source (E,): their surfaces (SideHints);
    vertex_rows: the same motion's vertex rows (row tuples): an edge contact against a collider is dropped
    when both its points have a vertex row against that collider with one normal (they hold the edge against
    one plane, the edge between them too); width: the stencil width of the stage's rows.
    """
    ids, edges = lay["collider_edges"], lay["collider_edge_points"]
    nodes, weights = lay["nodes"], lay["weights"]
    if cedges.bvh is None or not len(edges):
        return []
    # Broad phase: all the nodes' box against each feature edge's own box (the BVH's leaves span several edges: a
    # large plane's four rim edges share one box covering it all); then, a render edge lying in the box of its two
    # points' cells (their tets' swept boxes), the edges' distinct cell pairs (found once per layout) against the
    # feature edges' BVH.
    pad = cedges.thickness + margin + search_depth
    if not _any_edge_near_nodes(x0, v, dt, lay["cell_grow"], cedges.edges, c0, c1, pad):
        return []
    if "edge_cell_pairs" not in lay:
        pairs, index = np.unique(lay["point_cell"][edges], axis=0, return_inverse=True)
        lay["edge_cell_pairs"], lay["edge_pair"] = pairs.reshape(-1, 2), index.ravel()
    pairs = lay["edge_cell_pairs"]
    cells = lay["cells"]
    cedges.bvh.refit(c0, c1, pad)
    b = cedges.bvh.bvh
    x1 = x0 + dt * v
    clo, chi = np.empty((len(cells), 3)), np.empty((len(cells), 3))
    cell_boxes(cells, lay["cell_grow"], x0, x1, 0.0, clo, chi)
    near = np.zeros(len(pairs), np.bool_)
    boxes_touch(np.minimum(clo[pairs[:, 0]], clo[pairs[:, 1]]), np.maximum(chi[pairs[:, 0]], chi[pairs[:, 1]]),
                b.left, b.right, b.count, b.lo, b.hi, near)
    live = np.flatnonzero(near[lay["edge_pair"]])
    if not len(live):
        return []
    used = np.zeros(len(nodes), np.bool_)
    used[edges[live]] = True
    pts = np.flatnonzero(used)
    p0 = np.full((len(nodes), 3), np.nan)   # only the live edges' points are read
    p1 = p0.copy()
    p0[pts] = point_positions(x0, nodes[pts], weights[pts], 0.0, v)
    p1[pts] = point_positions(x0, nodes[pts], weights[pts], dt, v) if dt > 0.0 else p0[pts]
    ec = edge_contacts(edges[live], p0, p1, cedges.bvh, c0, c1, cedges.thickness, margin, search_depth,
                       side_hint=side_hint[ids[live]], faces=cedges.faces, triangles=ctris, max_per_edge=max_per_edge,
                       hint_source=hint_source[ids[live]], other_source=cedges.collider)
    if not len(ec):
        return []
    ec.edge = ids[live[ec.edge]]
    collider = cedges.collider[ec.other]
    keep = ~_held_on_one_plane(ec.points, collider, vertex_rows)
    if not keep.any():
        return []
    n = int(keep.sum())
    pts, s, t, oth = ec.points[keep], ec.s[keep], ec.t[keep], ec.other[keep]
    node = np.full((n, width), -1, np.int64)
    coef = np.zeros((n, width))
    node[:, :EDGE_STENCIL], coef[:, :EDGE_STENCIL] = edge_stencil(pts, s, nodes, weights)
    ab = cedges.edges[oth]
    move = (1.0 - t)[:, None] * (c1 - c0)[ab[:, 0]] + t[:, None] * (c1 - c0)[ab[:, 1]]
    rows = EdgeRowSet(len(nodes) + ec.edge[keep], np.ascontiguousarray(ec.normal[keep]), ec.gap[keep])
    return [(rows, node, coef, move, np.zeros(n), collider[keep], np.full(n, -1, np.int64))]


@njit(cache=True)
def _any_edge_near_nodes(x0, v, dt, cell_grow, edges, c0, c1, pad):
    """Whether the box of an edge (vertices c0 -> c1, grown by pad per edge) meets the box of every node's motion
    x0 -> x0 + dt v grown by the largest cell_grow times its size (NaN coordinates: no)."""
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for j in range(x0.shape[0]):
        for d in range(3):
            a = x0[j, d]
            b = a + dt * v[j, d]
            if a != a or b != b:
                return False
            lo[d] = min(lo[d], a, b)
            hi[d] = max(hi[d], a, b)
    grow = cell_grow.max() * (hi - lo)
    for f in range(edges.shape[0]):
        near = True
        for d in range(3):
            elo = min(c0[edges[f, 0], d], c0[edges[f, 1], d], c1[edges[f, 0], d], c1[edges[f, 1], d])
            ehi = max(c0[edges[f, 0], d], c0[edges[f, 1], d], c1[edges[f, 0], d], c1[edges[f, 1], d])
            near = near and elo - pad[f] <= hi[d] + grow[d] and ehi + pad[f] >= lo[d] - grow[d]
        if near:
            return True
    return False


def _held_on_one_plane(points, collider, vertex_rows):
    """(n,) bool: both points (n,2) of an edge contact against `collider` (n,) have a vertex row (among the row
    tuples vertex_rows) against that collider, the two rows' normals within SAME_SURFACE_DEGREES."""
    n = len(points)
    held = [r for r in vertex_rows if np.any(r[5] >= 0)]   # the row sets against colliders
    if n == 0 or not held:
        return np.zeros(n, bool)
    row_point = np.concatenate([r[0].point for r in held]).astype(np.int64)
    row_normal = np.concatenate([r[0].normal for r in held]).reshape(-1, 3)
    row_collider = np.concatenate([r[5] for r in held]).astype(np.int64)
    if len(row_point) == 0:
        return np.zeros(n, bool)
    order = np.lexsort((row_collider, row_point))
    rp, rc, rn = row_point[order], row_collider[order], row_normal[order]
    per = np.bincount(rp).max()   # rows per point at most
    found = []
    for end in range(2):
        p = points[:, end]
        start = np.searchsorted(rp, p)
        k = start[:, None] + np.arange(per)
        k_ok = k < len(rp)
        k = np.minimum(k, len(rp) - 1)
        ok = k_ok & (rp[k] == p[:, None]) & (rc[k] == collider[:, None])
        found.append((np.where(ok[:, :, None], rn[k], 0.0), ok))
    (na, oka), (nb, okb) = found
    cos = np.einsum("iad,ibd->iab", na, nb)
    return np.any(oka[:, :, None] & okb[:, None, :] & (cos > SAME_SURFACE_COSINE), axis=(1, 2))


@njit(cache=True)
def contact_positions(point, node, coef, x0, v, dt, num_render_points):
    """Where the rows' body points (a render point, or an edge's contact point) are at the end of the motion
    x0 + dt v: their stencil's body side (4 nodes; an edge row's 8), as the stage reports contacts."""
    nc = node.shape[0]
    out = np.zeros((nc, 3))
    for c in range(nc):
        width = min(EDGE_STENCIL if point[c] >= num_render_points else 4, node.shape[1])
        for s in range(width):
            j = node[c, s]
            if j >= 0:
                for d in range(3):
                    out[c, d] += coef[c, s] * (x0[j, d] + dt * v[j, d])
    return out
