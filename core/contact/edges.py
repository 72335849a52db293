"""Edge–edge contact detection: a body's render edges against another side's (sharp) edges, continuous over a step.

Vertex–triangle contacts alone let a collider's sharp edge (a step's edge, a paddle's bottom edge) cut
into a soft body between its render vertices, and two bodies' edges cross unnoticed. This module finds
those edge pairs; the contact stage turns each into one solver row over the 8 nodes of the body edge's
two points (and the other body's 8, negated, for a body–body pair), exactly like a vertex–triangle row.

Contract (the stage calls, per step, in this order):

    edges = unique_edges(render_triangles)                       # once per body: (E,2) point ids
    fe, faces = feature_edges(cv, ctris, min_angle_deg=30.0, closed=collider.closed)   # once per collider
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
from ..jit import njit, prange
from .bvh import BVH, STACK_SIZE, query_box
from .colliders import closed_and_oriented, enclosed_volume
from .detect import slot_for, triangle_normal

CANDIDATES = 1024   # other edges near a block of body edges (beyond: each edge queries the BVH itself)
BLOCK = 32          # consecutive body edges tested first as one box
BLOCKS_PER_CHUNK = 8   # blocks per parallel work item (buffers are allocated per chunk)
REACH_SLACK = 0.05  # a crossing is kept if the edges pass within this fraction of their relative motion
GOLDEN = 0.6180339887498949
SEARCH_STEPS = 16   # golden-section / bisection steps over the step's time (the interval shrinks below 5e-4)


def unique_edges(triangles):
    """The undirected edges (E,2) int64 (i < j, sorted) of a triangle set; degenerate triangles' repeated
    indices give no self-edge."""
    t = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    e = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
    e = np.sort(e, axis=1)
    e = e[e[:, 0] != e[:, 1]]
    return np.unique(e, axis=0).astype(np.int64).reshape(-1, 2)


def feature_edges(vertices, triangles, min_angle_deg=30.0, closed=None):
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
                  faces=None, triangles=None, max_per_edge=4):
    """Edge–edge contacts of a body's edges against `other` (an EdgeBVH) over one step.

    edges (E,2) point ids into p0/p1 (P,3), the body's points at the start and predicted end of the step;
    v0/v1 (V,3) the other side's vertices at start and end; thickness: scalar or per other edge (F,);
    margin: pairs whose predicted end gap is below it are kept; search_depth: how far a body edge found
    on the inner side of a closed collider's edge (faces given) is still pushed back out; side_hint
    (E,3): the body edge's previous contact normal (zeros: none), orients a pair whose edges touch or,
    within search_depth + thickness, tells the side without faces; faces (F,2) and triangles: from
    feature_edges for a closed collider (ids −1 or None: two-sided). Keeps the max_per_edge most
    violated pairs per body edge. Returns EdgeContacts.
    """
    edges = np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2)
    p0 = np.ascontiguousarray(p0, dtype=np.float64)
    p1 = np.ascontiguousarray(p1, dtype=np.float64)
    v0 = np.ascontiguousarray(v0, dtype=np.float64)
    v1 = np.ascontiguousarray(v1, dtype=np.float64)
    nf = len(other)
    thick = np.array(np.broadcast_to(np.asarray(thickness, np.float64), (nf,)))   # writable: one kernel signature
    side_hint = np.zeros((0, 3)) if side_hint is None else np.ascontiguousarray(side_hint, np.float64)
    if faces is None or triangles is None:
        faces = np.full((nf, 2), -1, np.int64)
        triangles = np.zeros((0, 3), np.int64)
    faces = np.ascontiguousarray(faces, dtype=np.int64)
    triangles = np.ascontiguousarray(triangles, dtype=np.int64).reshape(-1, 3)
    if (p0.ndim != 2 or p0.shape[1] != 3 or p1.shape != p0.shape or v0.ndim != 2 or v0.shape[1] != 3
            or v1.shape != v0.shape or len(v0) != other.num_vertices or side_hint.shape not in ((len(edges), 3), (0, 3))
            or faces.shape != (nf, 2) or int(max_per_edge) < 1):
        raise InvalidInputError("edge_contacts: inconsistent shapes (see the docstring)")
    if ((len(edges) and (edges.min() < 0 or edges.max() >= len(p0))) or (nf and faces.max() >= len(triangles))
            or (len(triangles) and (triangles.min() < 0 or triangles.max() >= len(v0)))):
        raise InvalidInputError("edge_contacts: edges, faces or triangles index out of range")
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
                 b.order, b.lo, b.hi, thick, float(margin), float(search_depth), side_hint, slot_count, slot_other,
                 slot_s, slot_t, slot_n, slot_gap)
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


@njit(cache=True, inline="always")
def segment_closest(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz):
    """Parameters (s, t) of the closest points a + s(b − a), c + t(d − c) of two non-degenerate segments
    (Ericson, RTCD 5.1.9); for parallel segments the middle of their overlap (or the nearest ends)."""
    e1x, e1y, e1z = bx - ax, by - ay, bz - az
    e2x, e2y, e2z = dx - cx, dy - cy, dz - cz
    rx, ry, rz = ax - cx, ay - cy, az - cz
    A = e1x * e1x + e1y * e1y + e1z * e1z
    E = e2x * e2x + e2y * e2y + e2z * e2z
    B = e1x * e2x + e1y * e2y + e1z * e2z
    C = e1x * rx + e1y * ry + e1z * rz
    F = e2x * rx + e2y * ry + e2z * rz
    den = A * E - B * B
    if den > 1e-10 * A * E:
        s = min(1.0, max(0.0, (B * F - C * E) / den))
    else:
        sc = -C / A               # c and d projected on ab, in units of s
        sd = (B - C) / A
        lo = max(0.0, min(sc, sd))
        hi = min(1.0, max(sc, sd))
        if lo <= hi:
            s = 0.5 * (lo + hi)
        else:
            s = 0.0 if max(sc, sd) < 0.0 else 1.0
    t = (B * s + F) / E
    if t < 0.0:
        t = 0.0
        s = min(1.0, max(0.0, -C / A))
    elif t > 1.0:
        t = 1.0
        s = min(1.0, max(0.0, (B - C) / A))
    return s, t


@njit(cache=True, inline="always")
def _pair_offsets(s, t, p0, p1, ia, ib, v0, v1, ic, id_):
    """The body edge's point at s minus the other edge's point at t at the start of the step (3 values), and
    the change of that offset over the step (3 values)."""
    r, q = 1.0 - s, 1.0 - t
    ux = r * p0[ia, 0] + s * p0[ib, 0] - q * v0[ic, 0] - t * v0[id_, 0]
    uy = r * p0[ia, 1] + s * p0[ib, 1] - q * v0[ic, 1] - t * v0[id_, 1]
    uz = r * p0[ia, 2] + s * p0[ib, 2] - q * v0[ic, 2] - t * v0[id_, 2]
    mx = r * p1[ia, 0] + s * p1[ib, 0] - q * v1[ic, 0] - t * v1[id_, 0] - ux
    my = r * p1[ia, 1] + s * p1[ib, 1] - q * v1[ic, 1] - t * v1[id_, 1] - uy
    mz = r * p1[ia, 2] + s * p1[ib, 2] - q * v1[ic, 2] - t * v1[id_, 2] - uz
    return ux, uy, uz, mx, my, mz


@njit(cache=True)
def _closest_at(time, p0, p1, ia, ib, v0, v1, ic, id_):
    """Closest-point parameters (s, t) and distance of the body edge (ia, ib) and the other edge (ic, id_),
    both interpolated linearly to `time` in [0, 1] of the step."""
    r = 1.0 - time
    ax, ay, az = r * p0[ia, 0] + time * p1[ia, 0], r * p0[ia, 1] + time * p1[ia, 1], r * p0[ia, 2] + time * p1[ia, 2]
    bx, by, bz = r * p0[ib, 0] + time * p1[ib, 0], r * p0[ib, 1] + time * p1[ib, 1], r * p0[ib, 2] + time * p1[ib, 2]
    cx, cy, cz = r * v0[ic, 0] + time * v1[ic, 0], r * v0[ic, 1] + time * v1[ic, 1], r * v0[ic, 2] + time * v1[ic, 2]
    dx, dy, dz = (r * v0[id_, 0] + time * v1[id_, 0], r * v0[id_, 1] + time * v1[id_, 1],
                  r * v0[id_, 2] + time * v1[id_, 2])
    s, t = segment_closest(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
    ux = ax + s * (bx - ax) - cx - t * (dx - cx)
    uy = ay + s * (by - ay) - cy - t * (dy - cy)
    uz = az + s * (bz - az) - cz - t * (dz - cz)
    return s, t, math.sqrt(ux * ux + uy * uy + uz * uz)


@njit(cache=True, inline="always")
def _block_box(edges, p0, p1, blk, bend):
    """Box of edges blk..bend−1 at the start and end of the step; comparisons, not min/max, so that a NaN
    coordinate (an edge the detection skips) is ignored."""
    qlo0 = qlo1 = qlo2 = np.inf
    qhi0 = qhi1 = qhi2 = -np.inf
    for i in range(blk, bend):
        for pts in (p0, p1):
            for end in range(2):
                j = edges[i, end]
                x, y, z = pts[j, 0], pts[j, 1], pts[j, 2]
                if x < qlo0:
                    qlo0 = x
                if x > qhi0:
                    qhi0 = x
                if y < qlo1:
                    qlo1 = y
                if y > qhi1:
                    qhi1 = y
                if z < qlo2:
                    qlo2 = z
                if z > qhi2:
                    qhi2 = z
    return qlo0, qlo1, qlo2, qhi0, qhi1, qhi2


@njit(cache=True, parallel=True)
def near_blocks(edges, p0, p1, left, right, start, count, order, lo, hi, near):
    """near[b] (B,) bool: whether block b (body edges b·BLOCK … b·BLOCK + BLOCK − 1, neighbours on most
    meshes) sweeps within the padded box of any other edge; the others are skipped whole."""
    ne = edges.shape[0]
    nb = near.shape[0]
    for ch in prange((nb + BLOCKS_PER_CHUNK - 1) // BLOCKS_PER_CHUNK):
        stack = np.empty(STACK_SIZE, np.int64)
        out = np.empty(1, np.int64)   # only the count matters
        for bk in range(ch * BLOCKS_PER_CHUNK, min(nb, (ch + 1) * BLOCKS_PER_CHUNK)):
            blk = bk * BLOCK
            qlo0, qlo1, qlo2, qhi0, qhi1, qhi2 = _block_box(edges, p0, p1, blk, min(ne, blk + BLOCK))
            near[bk] = query_box(qlo0, qlo1, qlo2, qhi0, qhi1, qhi2, left, right, start, count, order, lo, hi,
                                 stack, out) > 0


@njit(cache=True, parallel=True)
def detect_edges(edges, blocks, p0, p1, other_edges, faces, tris, v0, v1, left, right, start, count, order, lo,
                 hi, thickness, margin, search_depth, side_hint, slot_count, slot_other, slot_s, slot_t, slot_n,
                 slot_gap):
    """Fill up to K edge–edge contacts per body edge of the given blocks (near_blocks): body edge
    blocks[b]·BLOCK + k has row b·BLOCK + k of slot_count (R,) (zeros on entry: how many) and slot_* (R,K,...)
    (its first slot_count of them; the rest is left unwritten). side_hint (E,3), or (0,3) for none.

    For a body edge and a candidate other edge (from the BVH, whose boxes must be refit with pad
    thickness + margin + search_depth), the closest points (s, t) at the start of the step give the
    direction u from the other edge to the body edge. The side is then: for a closed collider's edge
    (faces given), inside when u is behind both adjacent triangles' planes and the closest point is not
    the edge's end (the normal flips, the gap is negative; kept only within search_depth), or, near
    contact, when side_hint and u point to opposite sides and u is behind the two planes' mean; else,
    near contact, the side of side_hint; else u. Touching
    or exactly crossing edges take the normal ±(e1 × e2), oriented by side_hint, else the adjacent
    triangles' average normal, else against the relative motion. The pair is kept when the gap predicted
    at the end of the step along that normal is below thickness + margin (a side that flips during the
    step predicts a negative gap) and, for edges approaching from beyond the thickness, when they really
    come within thickness + margin (+ REACH_SLACK × their relative motion) after the time the normal
    allows contact (their least distance over that interval: exact for translating edges, whose distance
    is convex in time), so a fast edge passing beside a feature edge's end is no crossing. The row then
    acts at the points (s, t) where the edges first come within thickness + margin (at their closest
    approach if only the slack admits them), its gaps measured along the start normal.
    Pairs whose point is a body edge's end (s = 0 or 1) are left to the vertex–triangle detection; degenerate
    or non-finite edges are skipped. slot_gap holds the row's start gap along the normal minus thickness.
    """
    ne = edges.shape[0]
    K = slot_other.shape[1]
    nact = blocks.shape[0]
    use_hint = side_hint.shape[0] > 0
    for ch in prange((nact + BLOCKS_PER_CHUNK - 1) // BLOCKS_PER_CHUNK):
        cand = np.empty(CANDIDATES, np.int64)
        cbox = np.empty((CANDIDATES, 6))
        ecand = np.empty(CANDIDATES, np.int64)
        stack = np.empty(STACK_SIZE, np.int64)
        score = np.empty(K)
        for bi in range(ch * BLOCKS_PER_CHUNK, min(nact, (ch + 1) * BLOCKS_PER_CHUNK)):
            blk = blocks[bi] * BLOCK
            bend = min(ne, blk + BLOCK)
            qlo0, qlo1, qlo2, qhi0, qhi1, qhi2 = _block_box(edges, p0, p1, blk, bend)
            nblock = query_box(qlo0, qlo1, qlo2, qhi0, qhi1, qhi2, left, right, start, count, order, lo, hi, stack,
                               cand)
            if nblock == 0:
                continue
            # the block's candidates' boxes (as the BVH pads them), for its edges to filter without a query each
            for j in range(min(nblock, CANDIDATES)):
                o = cand[j]
                pad = thickness[o] + margin + search_depth
                for d in range(3):
                    c0, c1, d0, d1 = v0[other_edges[o, 0], d], v1[other_edges[o, 0], d], v0[other_edges[o, 1], d], \
                        v1[other_edges[o, 1], d]
                    cbox[j, d] = min(c0, c1, d0, d1) - pad
                    cbox[j, 3 + d] = max(c0, c1, d0, d1) + pad
            for i in range(blk, bend):
                row = bi * BLOCK + i - blk
                ia, ib = edges[i, 0], edges[i, 1]
                ax0, ay0, az0 = p0[ia, 0], p0[ia, 1], p0[ia, 2]
                bx0, by0, bz0 = p0[ib, 0], p0[ib, 1], p0[ib, 2]
                ax1, ay1, az1 = p1[ia, 0], p1[ia, 1], p1[ia, 2]
                bx1, by1, bz1 = p1[ib, 0], p1[ib, 1], p1[ib, 2]
                e1x, e1y, e1z = bx0 - ax0, by0 - ay0, bz0 - az0
                len1 = e1x * e1x + e1y * e1y + e1z * e1z
                span = abs(ax0) + abs(ay0) + abs(az0) + abs(bx0) + abs(by0) + abs(bz0)
                moved = ax1 + ay1 + az1 + bx1 + by1 + bz1
                if not (len1 > 1e-24 * (span * span + 1e-300) and np.isfinite(span) and np.isfinite(moved)):
                    continue   # degenerate or non-finite body edge
                hx = hy = hz = 0.0
                if use_hint:
                    hx, hy, hz = side_hint[i, 0], side_hint[i, 1], side_hint[i, 2]
                has_hint = hx != 0.0 or hy != 0.0 or hz != 0.0
                elo0, elo1, elo2 = min(ax0, ax1, bx0, bx1), min(ay0, ay1, by0, by1), min(az0, az1, bz0, bz1)
                ehi0, ehi1, ehi2 = max(ax0, ax1, bx0, bx1), max(ay0, ay1, by0, by1), max(az0, az1, bz0, bz1)
                if nblock <= CANDIDATES:
                    nfound = 0
                    for j in range(nblock):
                        if not (cbox[j, 0] > ehi0 or cbox[j, 3] < elo0 or cbox[j, 1] > ehi1 or cbox[j, 4] < elo1
                                or cbox[j, 2] > ehi2 or cbox[j, 5] < elo2):
                            ecand[nfound] = cand[j]
                            nfound += 1
                else:
                    nfound = min(CANDIDATES, query_box(elo0, elo1, elo2, ehi0, ehi1, ehi2, left, right, start, count,
                                                       order, lo, hi, stack, ecand))
                used = 0
                for j in range(nfound):
                    o = ecand[j]
                    ic, id_ = other_edges[o, 0], other_edges[o, 1]
                    cx0, cy0, cz0 = v0[ic, 0], v0[ic, 1], v0[ic, 2]
                    dx0, dy0, dz0 = v0[id_, 0], v0[id_, 1], v0[id_, 2]
                    e2x, e2y, e2z = dx0 - cx0, dy0 - cy0, dz0 - cz0
                    len2 = e2x * e2x + e2y * e2y + e2z * e2z
                    ospan = abs(cx0) + abs(cy0) + abs(cz0) + abs(dx0) + abs(dy0) + abs(dz0)
                    if not (len2 > 1e-24 * (ospan * ospan + 1e-300) and np.isfinite(ospan)):
                        continue   # degenerate or non-finite other edge
                    s, t = segment_closest(ax0, ay0, az0, bx0, by0, bz0, cx0, cy0, cz0, dx0, dy0, dz0)
                    # offset of the two contact points at the start, and their relative displacement over the step
                    ux, uy, uz, mx, my, mz = _pair_offsets(s, t, p0, p1, ia, ib, v0, v1, ic, id_)
                    if not np.isfinite(mx + my + mz):
                        continue
                    tau = thickness[o]
                    n1x = n1y = n1z = n2x = n2y = n2z = 0.0
                    wedge = faces[o, 0] >= 0 and faces[o, 1] >= 0
                    if wedge:
                        n1x, n1y, n1z, _ = triangle_normal(v0, tris, faces[o, 0])
                        n2x, n2y, n2z, _ = triangle_normal(v0, tris, faces[o, 1])
                    dist = math.sqrt(ux * ux + uy * uy + uz * uz)
                    if dist > 1e-9 * math.sqrt(len1 + len2):
                        nx, ny, nz = ux / dist, uy / dist, uz / dist
                        sign = 1.0
                        if wedge and 0.0 < t < 1.0:
                            # strictly behind both planes: a body edge lying on a face is outside; past the
                            # edge's end (a corner) the two planes do not bound the solid
                            if nx * n1x + ny * n1y + nz * n1z < -1e-9 and nx * n2x + ny * n2y + nz * n2z < -1e-9:
                                sign = -1.0
                            # a body edge resting across the edge sags below its face plane level with the
                            # other face (u straight down from a bar's top edge): inside, as its last side says
                            elif (has_hint and dist < search_depth + tau and nx * hx + ny * hy + nz * hz < 0.0
                                  and nx * (n1x + n2x) + ny * (n1y + n2y) + nz * (n1z + n2z) < 0.0):
                                sign = -1.0
                        elif has_hint and dist < search_depth + tau:
                            if nx * hx + ny * hy + nz * hz < 0.0:
                                sign = -1.0
                    else:   # touching or crossing exactly: the common perpendicular
                        dist = 0.0
                        nx = e1y * e2z - e1z * e2y
                        ny = e1z * e2x - e1x * e2z
                        nz = e1x * e2y - e1y * e2x
                        nn = math.sqrt(nx * nx + ny * ny + nz * nz)
                        if nn > 1e-9 * math.sqrt(len1 * len2):
                            nx, ny, nz = nx / nn, ny / nn, nz / nn
                        elif has_hint:   # parallel and touching: any normal to the edge; the hint's part
                            nx, ny, nz = hx, hy, hz
                        elif wedge:
                            nx, ny, nz = n1x + n2x, n1y + n2y, n1z + n2z
                        else:
                            nx, ny, nz = -mx, -my, -mz
                        dot = (nx * e2x + ny * e2y + nz * e2z) / len2
                        nx, ny, nz = nx - dot * e2x, ny - dot * e2y, nz - dot * e2z
                        nn = math.sqrt(nx * nx + ny * ny + nz * nz)
                        if not nn > 0.0:
                            continue
                        nx, ny, nz = nx / nn, ny / nn, nz / nn
                        if has_hint:
                            ref = nx * hx + ny * hy + nz * hz
                        elif wedge:
                            ref = nx * (n1x + n2x) + ny * (n1y + n2y) + nz * (n1z + n2z)
                        else:
                            ref = -(nx * mx + ny * my + nz * mz)
                        sign = -1.0 if ref < 0.0 else 1.0
                    nx, ny, nz = sign * nx, sign * ny, sign * nz
                    g0 = sign * dist
                    if g0 < 0.0 and -g0 > search_depth:
                        continue
                    g1 = g0 + nx * mx + ny * my + nz * mz
                    if g1 >= tau + margin:
                        continue
                    if g0 > tau:
                        # Approaching from outside. The start normal separates the edges, so they cannot meet
                        # before tc. They meet at tc when closer than thickness + margin there; else their
                        # distance, convex in time for translating edges, is minimised over [tc, 1] (golden
                        # section) and, if it gets that close, the first such time is found by bisection.
                        tc = (g0 - tau) / (g0 - g1) if g1 < tau else 1.0
                        near = tau + margin
                        slack = REACH_SLACK * math.sqrt(mx * mx + my * my + mz * mz)
                        s, t, dm = _closest_at(tc, p0, p1, ia, ib, v0, v1, ic, id_)
                        if dm > near and (tc >= 1.0 or _closest_at(tc + 1e-3 * (1.0 - tc), p0, p1, ia, ib, v0, v1,
                                                                   ic, id_)[2] >= dm):
                            if dm > near + slack:   # receding from tc on: by convexity, tc was the closest
                                continue
                        elif dm > near:
                            ta, tb = tc, 1.0
                            tl = tb - GOLDEN * (tb - ta)
                            tr = ta + GOLDEN * (tb - ta)
                            fl = _closest_at(tl, p0, p1, ia, ib, v0, v1, ic, id_)[2]
                            fr = _closest_at(tr, p0, p1, ia, ib, v0, v1, ic, id_)[2]
                            for _ in range(SEARCH_STEPS):
                                if fl <= fr:
                                    tb, tr, fr = tr, tl, fl
                                    tl = tb - GOLDEN * (tb - ta)
                                    fl = _closest_at(tl, p0, p1, ia, ib, v0, v1, ic, id_)[2]
                                else:
                                    ta, tl, fl = tl, tr, fr
                                    tr = ta + GOLDEN * (tb - ta)
                                    fr = _closest_at(tr, p0, p1, ia, ib, v0, v1, ic, id_)[2]
                            tmin = 0.5 * (ta + tb)
                            s, t, dm = _closest_at(tmin, p0, p1, ia, ib, v0, v1, ic, id_)
                            if dm > near + slack:
                                continue
                            if dm <= near:
                                ta, tb = tc, tmin
                                for _ in range(SEARCH_STEPS):
                                    mid = 0.5 * (ta + tb)
                                    if _closest_at(mid, p0, p1, ia, ib, v0, v1, ic, id_)[2] > near:
                                        ta = mid
                                    else:
                                        tb = mid
                                s, t, dm = _closest_at(tb, p0, p1, ia, ib, v0, v1, ic, id_)
                        # the row acts at the points that meet; its gaps are measured along the start normal
                        ux, uy, uz, mx, my, mz = _pair_offsets(s, t, p0, p1, ia, ib, v0, v1, ic, id_)
                        g0 = nx * ux + ny * uy + nz * uz
                        g1 = g0 + nx * mx + ny * my + nz * mz
                    if s <= 0.0 or s >= 1.0:
                        continue
                    sc = g1 - tau
                    # one contact seen through two collinear pieces of a subdivided edge: keep one row
                    same = False
                    for m in range(used):
                        if (slot_n[row, m, 0] * nx + slot_n[row, m, 1] * ny + slot_n[row, m, 2] * nz > 0.9999
                                and abs(slot_s[row, m] - s) <= 1e-6 and abs(score[m] - sc) <= 1e-9 + 1e-6 * abs(sc)):
                            same = True
                    if same:
                        continue
                    k = slot_for(score, used, sc)
                    if k < 0:
                        continue
                    if k == used:
                        used += 1
                    score[k] = sc
                    slot_other[row, k] = o
                    slot_s[row, k] = s
                    slot_t[row, k] = t
                    slot_n[row, k, 0], slot_n[row, k, 1], slot_n[row, k, 2] = nx, ny, nz
                    slot_gap[row, k] = g0 - tau
                slot_count[row] = used
