"""Edge–edge contact detection: a body's render edges against another side's (sharp) edges, continuous over a step.

Vertex–triangle contacts alone let a collider's sharp edge (a step's edge, a paddle's bottom edge) cut
into a soft body between its render vertices, and two bodies' edges cross unnoticed. This module finds
those edge pairs; the contact stage turns each into one solver row over the 8 nodes of the body edge's
two points (and the other body's 8, negated, for a body–body pair), exactly like a vertex–triangle row.

Contract (the stage calls, per step, in this order):

    edges = unique_edges(render_triangles)                       # once per body: (E,2) point ids
    fe, faces = feature_edges(cv, ctris, closed=collider.closed)   # once per collider
    other = EdgeBVH(cv, fe)                                      # once; refit inside edge_contacts
    ec = edge_contacts(edges, p0, p1, other, v0, v1, thickness, margin, search_depth,
                       side_hint=None, faces=faces, triangles=ctris, max_per_edge=4)
    node, coef = edge_stencil(ec.points, ec.s, point_nodes, point_weights)       # (n,8) row stencil
    # body–body: node2, coef2 = edge_stencil(ec.other_points, ec.t, ...); row = [coef, -coef2]

`ec` (EdgeContacts) holds, per contact: edge (n,) body edge id, points (n,2) its point ids, s (n,) with
contact point (1−s) p_i + s p_j, other (n,) other edge id, other_points (n,2), t (n,) with point
(1−t) v_a + t v_b, normal (n,3) pushing the body edge away from the other edge, gap (n,) the start-of-step
separation n·(p(s) − q(t)) minus thickness (the signed distance for edges near each other at the start;
negative when crossing or within the thickness). For a pair approaching within the step, (s, t) are the
points where the edges first come within thickness + margin and n the separating direction at the start.
"""
import math

import numpy as np

from ..errors import InvalidInputError
from ..geometry.meshinput import welded_triangles
from .bvh import BVH
from .colliders import closed_and_oriented, enclosed_volume
from .edge_detect import BLOCK, detect_edges, near_blocks

# Faces, or a point's contact normals, that turn by less than this are one surface: the edge between two such faces is
# no feature (it gets no edge rows), two rows of a point whose normals are this close press the same way (the deeper
# is kept), and a render edge whose two points are held by rows this close lies on one plane (it needs no edge row)
SAME_SURFACE_DEGREES = 30.0
SAME_SURFACE_COSINE = math.cos(math.radians(SAME_SURFACE_DEGREES))


def unique_edges(triangles):
    """The undirected edges (E,2) int64 (i < j, sorted) of a triangle set; degenerate triangles' repeated
    indices give no self-edge."""
    t = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    e = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
    e = np.sort(e, axis=1)
    e = e[e[:, 0] != e[:, 1]]
    return np.unique(e, axis=0).astype(np.int64).reshape(-1, 2)


def edge_keys(edges):
    """One int64 per undirected edge (E,2) of point indices below 2³¹, the same whichever way it is given."""
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    return (e.min(axis=1) << 32) | e.max(axis=1)


def feature_edges(vertices, triangles, min_angle_deg=SAME_SURFACE_DEGREES, closed=None):
    """Sharp edges of a collider mesh, found once: (F,2) vertex-index pairs and (F,2) adjacent triangle ids.

    An edge is sharp when the normals of its two triangles turn by at least min_angle_deg (a cube's edge
    turns 90°, a flat plane's diagonals 0°). Coincident vertices are welded first, so a mesh split along
    its sharp edges (flat shading) still has them. closed: the mesh is closed with outward-facing
    triangles (`Collider.closed`); None tests it here. A closed mesh is one-sided: only its convex edges
    are kept, with their two triangles (the detection uses those triangles' planes to tell a body edge
    that has already crossed into the solid). An open mesh is two-sided: every sharp edge, either way it
    turns, plus its boundary edges (a plate's rim) and edges with more than two triangles, all with
    triangle ids −1. Edges next to a zero-area triangle are not judged and not kept.
    """
    v = np.asarray(vertices, dtype=np.float64)
    t = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    if v.ndim != 2 or v.shape[1] != 3 or not np.all(np.isfinite(v)):
        raise InvalidInputError("feature_edges: vertices must be finite with shape (n, 3)")
    if len(t) and (t.min() < 0 or t.max() >= len(v)):
        raise InvalidInputError("feature_edges: triangles index vertices out of range")
    if not 0.0 <= min_angle_deg <= 180.0:
        raise InvalidInputError(f"feature_edges: min_angle_deg must be in [0, 180], got {min_angle_deg!r}")
    none = np.zeros((0, 2), np.int64)
    if len(t) == 0:
        return none, none.copy()
    if closed is None:
        closed = closed_and_oriented(v, t) and enclosed_volume(v, t) > 0.0
    w = welded_triangles(v, t)
    rep = np.empty(w.max() + 1, np.int64)
    rep[w.ravel()] = t.ravel()             # one original vertex per welded position
    cross = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
    area2 = np.linalg.norm(cross, axis=1)
    unit = cross / np.where(area2 > 0.0, area2, 1.0)[:, None]
    scale = np.einsum("ij,ij->i", v[t[:, 1]] - v[t[:, 0]], v[t[:, 1]] - v[t[:, 0]]) + \
        np.einsum("ij,ij->i", v[t[:, 2]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
    flat = ~(area2 > 1e-12 * scale)
    live = (w[:, 0] != w[:, 1]) & (w[:, 1] != w[:, 2]) & (w[:, 2] != w[:, 0])
    face = np.tile(np.arange(len(t)), 3)
    a = np.concatenate([w[:, 0], w[:, 1], w[:, 2]])
    b = np.concatenate([w[:, 1], w[:, 2], w[:, 0]])
    opp = np.concatenate([w[:, 2], w[:, 0], w[:, 1]])
    keep = np.tile(live, 3)
    face, a, b, opp = face[keep], a[keep], b[keep], opp[keep]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    order = np.lexsort((hi, lo))
    lo, hi, face, a, opp = lo[order], hi[order], face[order], a[order], opp[order]
    first = np.concatenate([[True], (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])])
    starts = np.flatnonzero(first)
    counts = np.diff(np.concatenate([starts, [len(lo)]]))
    pair = starts[counts == 2]
    f1, f2 = face[pair], face[pair + 1]
    n1, n2 = unit[f1], unit[f2]
    consistent = a[pair] != a[pair + 1]     # the two triangles run along the edge in opposite directions
    cosang = np.einsum("ij,ij->i", n1, n2) * np.where(consistent, 1.0, -1.0)
    judged = ~(flat[f1] | flat[f2])
    sharp = judged & (cosang <= math.cos(math.radians(min_angle_deg)) + 1e-12)
    edge_pts = np.stack([rep[lo[pair]], rep[hi[pair]]], axis=1)
    if closed:
        behind = np.einsum("ij,ij->i", n1, v[rep[opp[pair + 1]]] - v[rep[lo[pair]]]) < 0.0
        sel = sharp & consistent & behind
        return (np.ascontiguousarray(edge_pts[sel]),
                np.ascontiguousarray(np.stack([f1[sel], f2[sel]], axis=1)))
    odd = starts[counts != 2]              # boundary and non-manifold edges
    out = np.concatenate([edge_pts[sharp], np.stack([rep[lo[odd]], rep[hi[odd]]], axis=1)])
    return np.ascontiguousarray(out, dtype=np.int64), np.full((len(out), 2), -1, np.int64)


class EdgeBVH:
    """The other side's edges (F,2) in a BVH (core.contact.bvh over degenerate triangles (a, b, b))."""

    def __init__(self, vertices, edges):
        v = np.asarray(vertices, np.float64)
        e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        if v.ndim != 2 or v.shape[1] != 3 or (len(e) and (e.min() < 0 or e.max() >= len(v))):
            raise InvalidInputError(f"EdgeBVH: edges must index the {len(v)} vertices (shape (n, 3))")
        self.edges = np.ascontiguousarray(e)
        self.num_vertices = len(v)
        self.bvh = BVH(v, np.ascontiguousarray(e[:, [0, 1, 1]]))

    def __len__(self):
        return len(self.edges)

    def refit(self, v0, v1, pad):
        """Boxes bound every edge over the step (v0 at start, v1 at end), grown by pad (per edge)."""
        self.bvh.refit(v0, v1, pad)


class EdgeContacts:
    """Compacted edge–edge contacts (see the module docstring for the fields)."""

    def __init__(self, edges, other_edges, edge_of_row, slot_count, slot_other, slot_s, slot_t, slot_n, slot_gap):
        live = np.flatnonzero(slot_count)
        num = slot_count[live]
        ei = np.repeat(live, num)     # slot rows
        k = np.arange(len(ei)) - np.repeat(np.cumsum(num) - num, num)
        self.edge = edge_of_row[ei]
        self.points = edges[self.edge].reshape(-1, 2)
        self.other = slot_other[ei, k]
        self.other_points = other_edges[self.other].reshape(-1, 2)
        self.s = slot_s[ei, k]
        self.t = slot_t[ei, k]
        self.normal = slot_n[ei, k].reshape(-1, 3)
        self.gap = slot_gap[ei, k]

    def __len__(self):
        return len(self.edge)

    def __repr__(self):
        return f"EdgeContacts({len(self)})"


def edge_contacts(edges, p0, p1, other, v0, v1, thickness, margin, search_depth=0.0, side_hint=None,
                  faces=None, triangles=None, max_per_edge=4, hint_source=None, other_source=None, exclude=None):
    """Edge–edge contacts of a body's edges against `other` (an EdgeBVH) over one step.

    edges (E,2) point ids into p0/p1 (P,3), the body's points at the start and predicted end of the step;
    v0/v1 (V,3) the other side's vertices at start and end; thickness: scalar or per other edge (F,);
    margin: pairs whose predicted end gap is below it are kept; search_depth: how far a body edge found
    on the inner side of a closed collider's edge (faces given) is still pushed back out; side_hint
    (E,3): the body edge's previous contact normal (zeros: none), orients a pair whose edges touch or,
    within search_depth + thickness, tells the side without faces; faces (F,2) and triangles: from
    feature_edges for a closed collider (ids −1 or None: two-sided). hint_source (E,) and other_source (F,): the
    surfaces the hints came from and the other edges are on (a hint tells only of its own surface; None: every
    hint counts). exclude (ptr, excl), for a body against itself: `edges` are other's edges and p0/p1 are v0/v1; each
    pair is tested once (the body edge first), and not when in the body edge's exclusion list (CSR, sorted). Keeps the
    max_per_edge most violated pairs per body edge. Returns EdgeContacts.
    """
    edges = np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2)
    p0 = np.ascontiguousarray(p0, dtype=np.float64)
    p1 = np.ascontiguousarray(p1, dtype=np.float64)
    v0 = np.ascontiguousarray(v0, dtype=np.float64)
    v1 = np.ascontiguousarray(v1, dtype=np.float64)
    nf = len(other)
    thick = np.array(np.broadcast_to(np.asarray(thickness, np.float64), (nf,)))   # writable: one kernel signature
    side_hint = np.zeros((0, 3)) if side_hint is None else np.ascontiguousarray(side_hint, np.float64)
    hint_source = np.zeros(len(side_hint), np.int64) if hint_source is None else np.ascontiguousarray(hint_source,
                                                                                                     np.int64)
    other_source = np.zeros(nf, np.int64) if other_source is None else np.ascontiguousarray(other_source, np.int64)
    if faces is None or triangles is None:
        faces = np.full((nf, 2), -1, np.int64)
        triangles = np.zeros((0, 3), np.int64)
    faces = np.ascontiguousarray(faces, dtype=np.int64)
    triangles = np.ascontiguousarray(triangles, dtype=np.int64).reshape(-1, 3)
    if (p0.ndim != 2 or p0.shape[1] != 3 or p1.shape != p0.shape or v0.ndim != 2 or v0.shape[1] != 3
            or v1.shape != v0.shape or len(v0) != other.num_vertices or side_hint.shape not in ((len(edges), 3), (0, 3))
            or hint_source.shape != (len(side_hint),) or other_source.shape != (nf,)
            or faces.shape != (nf, 2) or int(max_per_edge) < 1):
        raise InvalidInputError("edge_contacts: inconsistent shapes (see the docstring)")
    if ((len(edges) and (edges.min() < 0 or edges.max() >= len(p0))) or (nf and faces.max() >= len(triangles))
            or (len(triangles) and (triangles.min() < 0 or triangles.max() >= len(v0)))):
        raise InvalidInputError("edge_contacts: edges, faces or triangles index out of range")
    skip = (np.zeros(len(edges) + 1, np.int64), np.zeros(0, np.int64)) if exclude is None else exclude
    if exclude is not None and (len(edges) != nf or len(skip[0]) != nf + 1):
        raise InvalidInputError("edge_contacts: a body against itself needs its own edges and one exclusion list each")
    other.refit(v0, v1, thick + margin + search_depth)
    b = other.bvh
    near = np.empty((len(edges) + BLOCK - 1) // BLOCK, np.bool_)
    near_blocks(edges, p0, p1, b.left, b.right, b.start, b.count, b.order, b.lo, b.hi, near)
    blocks = np.flatnonzero(near)
    # slots for the near blocks' edges only: a body far from the other side costs no memory
    K = int(max_per_edge)
    rows = len(blocks) * BLOCK
    slot_count = np.zeros(rows, np.int64)
    slot_other = np.empty((rows, K), np.int64)
    slot_s = np.empty((rows, K))
    slot_t = np.empty((rows, K))
    slot_n = np.empty((rows, K, 3))
    slot_gap = np.empty((rows, K))
    detect_edges(edges, blocks, p0, p1, other.edges, faces, triangles, v0, v1, b.left, b.right, b.start, b.count,
                 b.order, b.lo, b.hi, thick, float(margin), float(search_depth), side_hint, hint_source, other_source,
                 exclude is not None, *skip, slot_count, slot_other, slot_s, slot_t, slot_n, slot_gap)
    edge_of_row = (blocks[:, None] * BLOCK + np.arange(BLOCK)).ravel()
    return EdgeContacts(edges, other.edges, edge_of_row, slot_count, slot_other, slot_s, slot_t, slot_n, slot_gap)


def edge_stencil(points, s, point_nodes, point_weights):
    """Solver-row stencil of edge points (1−s) p_i + s p_j: node ids (n,8) (−1 unused) and coefficients
    (n,8) = [(1−s) w_i, s w_j] over the points' 4 cage nodes each (point_nodes/point_weights (P,4))."""
    points = np.asarray(points, dtype=np.int64).reshape(-1, 2)
    s = np.asarray(s, np.float64)
    node = np.concatenate([point_nodes[points[:, 0]], point_nodes[points[:, 1]]], axis=1)
    coef = np.concatenate([(1.0 - s)[:, None] * point_weights[points[:, 0]], s[:, None] * point_weights[points[:, 1]]],
                          axis=1)
    return np.ascontiguousarray(node), np.ascontiguousarray(np.where(node >= 0, coef, 0.0))
