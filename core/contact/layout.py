"""The bodies' contact surfaces as one set (the stage's layout): points, triangles, cells and render edges."""
import numpy as np

from .broadphase import BodyTriangles
from .sides import body_source


def build_layout(surfaces, num_nodes, body_thickness):
    """The layout of the BodySurfaces `surfaces` (bodies with num_nodes nodes each, numbered one after another),
    a dict: the render points' stencils (nodes, weights) and body (group) and μ; the triangles over those points
    with their body, μ, one-sidedness and thickness (body_thickness); the cells (the points' distinct stencils)
    and their points; per body with triangles its BodyTriangles; the bookkeeping points (render points, then
    render edges and their pieces: num_points, group, mu), which edges meet colliders' (collider_edges, and their
    points: collider_edge_points); scratch p0, p1 for the points' start and end positions."""
    offs = np.concatenate([[0], np.cumsum(num_nodes)])
    poffs = np.concatenate([[0], np.cumsum([len(s) for s in surfaces])])
    nodes = np.concatenate([np.where(s.nodes >= 0, s.nodes + offs[i], -1) for i, s in enumerate(surfaces)])
    lay = {
        "num_nodes": tuple(num_nodes), "offsets": offs,
        "nodes": np.ascontiguousarray(nodes),
        "weights": np.ascontiguousarray(np.concatenate([s.weights for s in surfaces])),
        "group": np.repeat(np.arange(len(surfaces)), [len(s) for s in surfaces]),
        "mu": np.repeat([s.friction for s in surfaces], [len(s) for s in surfaces]),
    }
    tris = [s.triangles + poffs[i] for i, s in enumerate(surfaces)]
    lay["tris"] = np.ascontiguousarray(np.concatenate(tris)).astype(np.int64)
    counts = [len(s.triangles) for s in surfaces]
    lay["tri_group"] = np.repeat(np.arange(len(surfaces)), counts)
    lay["tri_source"] = body_source(lay["tri_group"])
    lay["tri_mu"] = np.repeat([s.friction for s in surfaces], counts).astype(np.float64)
    lay["tri_onesided"] = np.repeat([s.closed for s in surfaces], counts).astype(np.bool_)
    lay["tri_thick"] = np.full(len(lay["tris"]), body_thickness)
    # Cells: the points' distinct node stencils (a render point's tet; a lone node without embedding). A point
    # with negative weights lies outside its nodes' box by up to their sum times the box's size.
    cells, point_cell = np.unique(lay["nodes"], axis=0, return_inverse=True)
    point_cell = point_cell.ravel()
    lay["cells"] = np.ascontiguousarray(cells)
    lay["point_cell"] = point_cell
    lay["cell_group"] = np.zeros(len(cells), np.int64)
    lay["cell_group"][point_cell] = lay["group"]
    lay["cell_grow"] = np.zeros(len(cells))
    np.maximum.at(lay["cell_grow"], point_cell, -np.minimum(lay["weights"], 0.0).sum(axis=1))
    lay["body_grow"] = np.zeros(len(surfaces))   # per body, its cells' largest grow (broadphase.body_boxes)
    np.maximum.at(lay["body_grow"], lay["cell_group"], lay["cell_grow"])
    lay["cell_ptr"] = np.concatenate([[0], np.cumsum(np.bincount(point_cell, minlength=len(cells)))])
    lay["cell_points"] = np.argsort(point_cell, kind="stable")
    # Per body with triangles: the other bodies' points are tested against them; the points its BVH
    # reads are positioned in p0, p1 (start and end of the motion) as needed.
    lay["bodies"] = []
    lay["reach"] = {}
    if len(surfaces) > 1:
        toffs = np.concatenate([[0], np.cumsum(counts)])
        rest = np.concatenate([sf.rest for sf in surfaces])
        for i in range(len(surfaces)):
            if counts[i]:
                sl = slice(toffs[i], toffs[i + 1])
                lay["bodies"].append((BodyTriangles(rest, lay["tris"][sl], point_cell, len(cells)), sl, i))
    # Bookkeeping points: the render points, then the render edges (edge e is point P + e, core.contact.edge_rows).
    lay["edges"] = np.concatenate([s.edges + poffs[i] for i, s in enumerate(surfaces)]).astype(np.int64)
    lay["collider_edges"] = np.flatnonzero(np.concatenate([s.collider_edges for s in surfaces]))
    lay["collider_edge_points"] = np.ascontiguousarray(lay["edges"][lay["collider_edges"]])   # gathered once
    lay["group"] = np.concatenate([lay["group"], lay["group"][lay["edges"][:, 0]]])
    lay["mu"] = np.concatenate([lay["mu"], lay["mu"][lay["edges"][:, 0]]])
    lay["num_points"] = len(lay["group"])
    lay["p0"] = np.empty((len(lay["nodes"]), 3))
    lay["p1"] = np.empty((len(lay["nodes"]), 3))
    return lay
