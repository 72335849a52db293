"""The vertex–triangle contact rows of one motion: the points near colliders' and other bodies' triangles (broad
phase on cells), their candidate contacts (core.contact.detect) as row sets, and row sets joined into one."""
import numpy as np

from ..jit import njit
from .broadphase import body_boxes, cell_paths, group_boxes, kept_points
from .bvh import boxes_touch, cell_boxes
from .detect import detect, vertex_rows
from .surface import swept_positions

STENCIL = 16  # 4 nodes of the point's tet + 3 triangle vertices x 4 nodes (body–body)


class Candidates:
    """Detected contacts against one triangle set: point id, triangle id, normal, gap."""

    def __init__(self, point, tri, normal, gap):
        self.point, self.tri, self.normal, self.gap = point, tri, normal, gap


def triangle_reach(cache, tri_thick, margin, tri_onesided, settings, below_open):
    """How far a triangle's box reaches: its thickness and the margin, and below the surface as far as
    points are still found there: search_depth under a closed surface, below_open under an open one (see
    SideHints.below_open). Kept in `cache` (a dict)."""
    key = (margin, settings.search_depth, below_open)
    if key not in cache:
        cache[key] = tri_thick + margin + np.where(tri_onesided, settings.search_depth, below_open)
    return cache[key]


def points_near(lay, cells, x0, v, dt, touching):
    """The points of `cells` (ascending) whose cell's box around its points' paths passes touching(lo, hi)
    (which returns a bool per box and something more) as (ids, start and end positions), and that more."""
    live, q0, q1, lo, hi, slot = cell_paths(cells, lay["cell_ptr"], lay["cell_points"], lay["point_cell"],
                                            lay["nodes"], lay["weights"], x0, v, dt)
    keep, more = touching(lo, hi)
    return kept_points(keep, slot, live, q0, q1), more


def detect_candidates(lay, settings, sides, near, v0, v1, tris, normals, tri_group, tri_source, tri_thick,
                      tri_onesided, held, bvh, margin, dv, width):
    """Contacts of the points `near` (points_near's ids, q0, q1) with the triangles tris (vertices v0 -> v1,
    moving by dv; (0,3): a body's, no motion counted; normals: see detect; tri_source: their surface, see
    SideHints; held: (bodies, colliders), body b held inside closed collider c) as row fields: Candidates, node,
    coef (width wide), move."""
    points, q0, q1 = near
    npts = len(points)
    K = settings.max_contacts_per_point
    slot_tri = np.empty((npts, K), np.int64)
    slot_b = np.empty((npts, K, 3))
    slot_n = np.empty((npts, K, 3))
    slot_gap = np.empty((npts, K))
    detect(q0, q1, points, lay["group"], v0, v1, tris, normals, tri_group, tri_thick, tri_onesided, held,
           bvh.left, bvh.right, bvh.start, bvh.count, bvh.order, bvh.lo, bvh.hi,
           margin, settings.search_depth, max(settings.search_depth, sides.below_open(settings)), sides.hint,
           sides.source, tri_source, slot_tri, slot_b, slot_n, slot_gap)
    point, tri, normal, gap, node, coef, move = vertex_rows(points, slot_tri, slot_b, slot_n, slot_gap,
                                                            lay["nodes"], lay["weights"], tris, dv, width)
    return Candidates(point, tri, normal, gap), node, coef, move


def gather_rows(lay, settings, sides, colliders, x0, v, dt, frac0, frac1, margin, held):
    """Candidates of the motion x0 + dt v against the LiveColliders `colliders` (their motion from frac0 to frac1)
    and against other bodies, as row sets: (Candidates, node, coef, move, mu_other, collider, other); and whether a
    body's box met the colliders' (no: no body comes near a collider's edges either). held: see detect."""
    s = settings
    rows = []
    # Cells: a render point stays inside its tet (or as far outside as its negative weights allow), so the
    # swept box of a cell's nodes, grown for those, bounds its points' paths. Early outs on the bodies' boxes, first
    # around their nodes, then around their cells' boxes; pad covers every triangle's reach (see triangle_reach).
    x1 = x0 + dt * v
    below_open = sides.below_open(s)
    pad = s.body_thickness + margin + max(s.search_depth, below_open)
    if colliders.bvh is not None:
        c0 = colliders.positions(frac0)
        c1 = colliders.positions(frac1)
        cb = colliders.bvh
        colliders.refit(c0, c1, triangle_reach(colliders.reach, colliders.thick, margin, colliders.onesided, s,
                                               below_open))
    hit_collider, near = _boxes_near(body_boxes(lay["offsets"], x0, x1, lay["body_grow"], pad), colliders)
    near_colliders = hit_collider
    if not hit_collider and not near.any():
        return rows, near_colliders
    cells = lay["cells"]
    clo = np.empty((len(cells), 3))
    chi = np.empty((len(cells), 3))
    cell_boxes(cells, lay["cell_grow"], x0, x1, 0.0, clo, chi)
    hit_collider, near = _boxes_near(group_boxes(lay["cell_group"], clo, chi, len(lay["num_nodes"]), pad),
                                     colliders)
    if not hit_collider and not near.any():
        return rows, near_colliders
    # Broad phase on the cells: only the points of cells near a collider's or another body's triangles are
    # positioned and tested, and of the other bodies' triangles only those near such cells are read.
    if hit_collider:
        def touching(lo, hi):
            out = np.zeros(len(lo), np.bool_)
            boxes_touch(lo, hi, cb.left, cb.right, cb.count, cb.lo, cb.hi, out)
            return out, None

        # cells first, then the boxes of their points' paths
        near_points, _ = points_near(lay, np.flatnonzero(touching(clo, chi)[0]), x0, v, dt, touching)
        cand, node, coef, move = detect_candidates(lay, s, sides, near_points, c0, c1, colliders.tris,
                                                   colliders.normal, colliders.group, colliders.index, colliders.thick,
                                                   colliders.onesided, held, cb, margin, c1 - c0, 4)
        rows.append((cand, node, coef, move, colliders.mu[cand.tri], colliders.index[cand.tri],
                     np.full(len(cand.point), -1)))
    for part, sl, j in lay["bodies"]:
        if not near[j].any():
            continue
        candidates = np.flatnonzero(near[j, lay["cell_group"]])   # the cells of the bodies near body j
        reach = triangle_reach(lay["reach"].setdefault(j, {}), lay["tri_thick"][sl], margin, lay["tri_onesided"][sl],
                               s, below_open)
        part.fit(clo, chi, reach.max())
        # cells first, then the boxes of their points' paths: fewer points, and fewer triangles they reach
        asking, _ = part.near(clo[candidates], chi[candidates], groups=False)
        if not asking.any():
            continue
        near_points, close = points_near(lay, candidates[asking], x0, v, dt, part.near)
        if not len(near_points[0]):
            continue
        leaves = part.leaves(close)
        p0, p1 = lay["p0"], lay["p1"]
        swept_positions(part.bvh.leaf_vertices(leaves), x0, lay["nodes"], lay["weights"], dt, v, p0, p1)
        part.bvh.fit_leaves(leaves, p0, p1, reach)
        cand, node, coef, move = detect_candidates(lay, s, sides, near_points, p0, p1, lay["tris"][sl],
                                                   np.zeros((0, 3)), lay["tri_group"][sl], lay["tri_source"][sl],
                                                   lay["tri_thick"][sl], lay["tri_onesided"][sl], held, part.bvh,
                                                   margin, np.zeros((0, 3)), STENCIL)
        cand.tri += sl.start
        rows.append((cand, node, coef, move, lay["tri_mu"][cand.tri], np.full(len(cand.point), -1),
                     lay["tri_group"][cand.tri]))
    return rows, near_colliders


def _boxes_near(boxes, colliders):
    """Whether any of the bodies' boxes (B,2,3) meets the colliders' BVH root box (which bounds them all), and which
    pairs of them meet (B,B; none on the diagonal)."""
    near = np.zeros((len(boxes), len(boxes)), np.bool_)
    if colliders.bvh is None:   # an empty root box: no body meets it
        root_lo, root_hi = np.full(3, np.inf), np.full(3, -np.inf)
    else:
        root_lo, root_hi = colliders.bvh.lo[0], colliders.bvh.hi[0]
    return _boxes_meet(boxes, root_lo, root_hi, near), near


@njit(cache=True)
def _boxes_meet(boxes, root_lo, root_hi, near):
    """near[a, b] = whether the boxes a ≠ b meet; returns whether any box meets the box root_lo–root_hi."""
    hit = False
    for a in range(boxes.shape[0]):
        inside = True
        for d in range(3):
            inside = inside and boxes[a, 0, d] <= root_hi[d] and boxes[a, 1, d] >= root_lo[d]
        hit = hit or inside
        for b in range(boxes.shape[0]):
            meet = a != b
            for d in range(3):
                meet = meet and boxes[a, 0, d] <= boxes[b, 1, d] and boxes[a, 1, d] >= boxes[b, 0, d]
            near[a, b] = meet
    return hit


def concat_rows(rows, width=STENCIL):
    """The row sets `rows` as one: point, normal, gap, node, coef (width wide: the sets' stencils padded with
    −1 and 0), move, mu_other, collider, other."""
    rows = [r for r in rows if len(r[0].point)]
    if not rows:
        return (np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros(0), np.full((0, width), -1, np.int64),
                np.zeros((0, width)), np.zeros((0, 3)), np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64))
    if len(rows) == 1 and rows[0][1].shape[1] == width:   # one set, built in these types: as it is
        cand, node, coef, move, mu_other, collider, other = rows[0]
        return cand.point, cand.normal, cand.gap, node, coef, move, mu_other, collider, other
    n = sum(len(r[0].point) for r in rows)
    node = np.full((n, width), -1, np.int64)
    coef = np.zeros((n, width))
    at = 0
    for r in rows:
        end = at + len(r[0].point)
        node[at:end, :r[1].shape[1]] = r[1]
        coef[at:end, :r[2].shape[1]] = r[2]
        at = end
    fields = [np.concatenate([np.zeros(0, np.int64)] + [r[0].point for r in rows]),
              np.concatenate([np.zeros((0, 3))] + [r[0].normal for r in rows]),
              np.concatenate([np.zeros(0)] + [r[0].gap for r in rows])]
    fields += [node, coef, np.concatenate([np.zeros((0, 3))] + [r[3] for r in rows])]
    fields += [np.concatenate([np.zeros(0)] + [r[4] for r in rows])]
    fields += [np.concatenate([np.zeros(0, np.int64)] + [r[k] for r in rows]).astype(np.int64) for k in (5, 6)]
    return tuple(fields)
