"""Edge–edge solver rows between bodies: one body's sharp edges against another's.

Two tilted cubes meeting edge across edge have no vertex near the other's faces: their vertex–triangle rows
see nothing while the edges cut into each other (8–22 mm in a pile of ten default cubes, 27 mm for two cubes
closing at 1 m/s). Each pair of near bodies has the first's sharp render edges (bookkeeping points P + e, as against
colliders) tested against the second's (core.contact.edges.feature_edges of the rest render surface: a closed
body's convex edges, with their two triangles, which tell an edge that has already crossed into it), and each
pair of edges is a row over the 8 nodes of the first edge's two points and, negated, the 8 of the other's: it
pushes the two edges apart. Sharp edges only: with every render edge of the first body, a block's bottom edges
crossing a soft slab's face diagonals held it on the slab at μ = 0.2 (it should slide at the Coulomb
acceleration), and an edge pressing into a flat face is met by that face's contact points. Like the collider edge
rows they are frictionless (the body's friction comes from its vertex rows beside them). A self-colliding body's sharp
edges meet each other the same way (core.contact.self_edges).
"""
import numpy as np

from .broadphase import body_boxes
from .edges import EdgeBVH, edge_contacts, edge_keys, edge_stencil, feature_edges
from .edge_rows import EDGE_STENCIL, EdgeRowSet
from .surface import point_positions


class BodyEdges:
    """Per body: the index of its first point in the layout (first) and its render points' count, its sharp render
    edges (mine: indices into the layout's "edges"), the same as pairs of its render points with their adjacent
    render triangles (−1: two-sided) in an EdgeBVH (None: none), and the render points the detection reads (used:
    the sharp edges' and their triangles'). (Not the contact surface's split edges: two edges crossing where one is
    split met at its split point, where neither edge's side is defined, and the pair was lost.)"""

    def __init__(self, lay, surfaces):
        poffs = np.concatenate([[0], np.cumsum([len(s) for s in surfaces])])
        edge_body = lay["group"][len(lay["nodes"]):]
        self.first, self.count, self.mine, self.faces, self.bvh, self.used = [], [], [], [], [], []
        for b, s in enumerate(surfaces):
            rest = s.rest[:s.num_render_points]
            fe, fa = sharp_edges(s)
            render = np.flatnonzero(edge_body == b)
            sharp = np.isin(edge_keys(lay["edges"][render] - poffs[b]), edge_keys(fe))
            self.first.append(int(poffs[b]))
            self.count.append(s.num_render_points)
            self.mine.append(render[sharp])
            self.faces.append(fa)
            self.bvh.append(EdgeBVH(rest, fe) if len(fe) else None)
            self.used.append(edge_points_used(s, fe, fa))


def sharp_edges(surface):
    """A BodySurface's sharp render edges (F,2) and their two render triangles (F,2; −1: two-sided), from its rest
    shape (core.contact.edges.feature_edges)."""
    if not len(surface.render_triangles):
        return np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64)
    return feature_edges(surface.rest[:surface.num_render_points], surface.render_triangles, closed=surface.closed)


def edge_points_used(surface, edges, faces):
    """The render points an edge detection reads: the edges' and their triangles'."""
    return np.unique(np.concatenate([edges.ravel(), surface.render_triangles[faces[faces >= 0]].ravel()]))


def edge_points(lay, first, count, used, x0, v, dt):
    """A body's `count` render points (its first in the layout: first) at the start and end of the motion x0 + dt v,
    those in `used` only (zeros elsewhere)."""
    pts = first + used
    p0, p1 = np.zeros((count, 3)), np.zeros((count, 3))
    p0[used] = point_positions(x0, lay["nodes"][pts], lay["weights"][pts], 0.0, v)
    p1[used] = point_positions(x0, lay["nodes"][pts], lay["weights"][pts], dt, v)
    return p0, p1


def body_edge_rows(lay, surfaces, edges, x0, v, dt, thickness, margin, search_depth, max_per_edge):
    """Rows (a list of row tuples, as the stage's _gather makes them) of each body's sharp render edges against
    every later body's (BodyEdges `edges`) over the motion x0 + dt v of the nodes, for the pairs of bodies whose
    boxes meet (grown by thickness, margin and search_depth)."""
    pad = thickness + margin + search_depth
    boxes = body_boxes(lay["offsets"], x0, x0 + dt * v, lay["body_grow"], pad)
    rows = []
    positions = {}

    def at(b):
        if b not in positions:
            positions[b] = edge_points(lay, edges.first[b], edges.count[b], edges.used[b], x0, v, dt)
        return positions[b]

    for a in range(len(surfaces)):
        for b in range(a + 1, len(surfaces)):
            mine = edges.mine[a]
            if edges.bvh[b] is None or not len(mine):
                continue
            if np.any(boxes[a, 0] > boxes[b, 1]) or np.any(boxes[a, 1] < boxes[b, 0]):
                continue
            a0, a1 = at(a)
            b0, b1 = at(b)
            ec = edge_contacts(lay["edges"][mine] - edges.first[a], a0, a1, edges.bvh[b], b0, b1, thickness, margin,
                               search_depth, faces=edges.faces[b], triangles=surfaces[b].render_triangles,
                               max_per_edge=max_per_edge)
            if len(ec):
                rows.append(edge_row_tuple(lay, ec, edges.first[a], edges.first[b], mine[ec.edge], b))
    return rows


def edge_row_tuple(lay, ec, first, their_first, layout_edge, other):
    """The row tuple (as the stage's _gather makes them) of the edge contacts ec, whose edges' points are numbered from
    first and their other edges' from their_first in the layout (layout_edge: the body edges' layout ids), against
    body `other`: each row over the 8 nodes of the edge's two points and, negated, the other edge's 8."""
    nodes, weights = lay["nodes"], lay["weights"]
    n = len(ec)
    node = np.full((n, 2 * EDGE_STENCIL), -1, np.int64)
    coef = np.zeros((n, 2 * EDGE_STENCIL))
    node[:, :EDGE_STENCIL], coef[:, :EDGE_STENCIL] = edge_stencil(ec.points + first, ec.s, nodes, weights)
    theirs, their_coef = edge_stencil(ec.other_points + their_first, ec.t, nodes, weights)
    node[:, EDGE_STENCIL:], coef[:, EDGE_STENCIL:] = theirs, -their_coef
    return (EdgeRowSet(len(nodes) + layout_edge, np.ascontiguousarray(ec.normal), ec.gap), node, coef,
            np.zeros((n, 3)), np.zeros(n), np.full(n, -1, np.int64), np.full(n, other, np.int64))
