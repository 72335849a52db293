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
rows they are frictionless (the body's friction comes from its vertex rows beside them).
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
            fe, fa = feature_edges(rest, s.render_triangles, closed=s.closed) if len(s.render_triangles) else (
                np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64))
            render = np.flatnonzero(edge_body == b)
            sharp = np.isin(edge_keys(lay["edges"][render] - poffs[b]), edge_keys(fe))
            self.first.append(int(poffs[b]))
            self.count.append(s.num_render_points)
            self.mine.append(render[sharp])
            self.faces.append(fa)
            self.bvh.append(EdgeBVH(rest, fe) if len(fe) else None)
            self.used.append(np.unique(np.concatenate([fe.ravel(), s.render_triangles[fa[fa >= 0]].ravel()])))


def body_edge_rows(lay, surfaces, edges, x0, v, dt, thickness, margin, search_depth, max_per_edge):
    """Rows (a list of row tuples, as the stage's _gather makes them) of each body's sharp render edges against
    every later body's (BodyEdges `edges`) over the motion x0 + dt v of the nodes, for the pairs of bodies whose
    boxes meet (grown by thickness, margin and search_depth)."""
    pad = thickness + margin + search_depth
    boxes = body_boxes(lay["offsets"], x0, x0 + dt * v, lay["body_grow"], pad)
    nodes, weights = lay["nodes"], lay["weights"]
    rows = []
    positions = {}

    def at(b):
        """Body b's render points at the start and end of the motion (those the detection reads; zeros elsewhere)."""
        if b not in positions:
            used = edges.used[b]
            pts = edges.first[b] + used
            p0, p1 = np.zeros((edges.count[b], 3)), np.zeros((edges.count[b], 3))
            p0[used] = point_positions(x0, nodes[pts], weights[pts], 0.0, v)
            p1[used] = point_positions(x0, nodes[pts], weights[pts], dt, v)
            positions[b] = p0, p1
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
            if not len(ec):
                continue
            n = len(ec)
            node = np.full((n, 2 * EDGE_STENCIL), -1, np.int64)
            coef = np.zeros((n, 2 * EDGE_STENCIL))
            node[:, :EDGE_STENCIL], coef[:, :EDGE_STENCIL] = edge_stencil(ec.points + edges.first[a], ec.s, nodes,
                                                                          weights)
            theirs, their_coef = edge_stencil(ec.other_points + edges.first[b], ec.t, nodes, weights)
            node[:, EDGE_STENCIL:], coef[:, EDGE_STENCIL:] = theirs, -their_coef
            point = len(nodes) + mine[ec.edge]
            rows.append((EdgeRowSet(point, np.ascontiguousarray(ec.normal), ec.gap), node, coef, np.zeros((n, 3)),
                         np.zeros(n), np.full(n, -1, np.int64), np.full(n, b, np.int64)))
    return rows
