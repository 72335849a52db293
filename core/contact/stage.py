"""The contact stage a World runs inside its Newton loop: detection, friction response, post-stabilisation."""
import numpy as np

from ..errors import InvalidInputError
from .broadphase import BodyTriangles, cell_paths, group_boxes, kept_points
from .bvh import BVH, boxes_touch, cell_boxes
from .colliders import Collider, ContactSettings
from .correction import correction_report, correction_targets, set_side_hints
from .detect import detect, triangle_normals, vertex_rows
from .edge_rows import EDGE_STENCIL, ColliderEdges, collider_edge_rows, contact_positions
from .friction_memory import FrictionMemory
from .penalty import ContactPenalty, predicted_rows
from .response import solve_contacts
from .surface import BodySurface, point_positions, swept_positions

STENCIL = 16  # 4 nodes of the point's tet + 3 triangle vertices x 4 nodes (body–body)


def combined_friction(mu_a, mu_b):
    """Friction coefficient of a contact: the geometric mean sqrt(μa μb) of the two surfaces' μ."""
    return np.sqrt(mu_a * mu_b)


class Contacts:
    """One step's contacts: points (n,3), normals (n,3, pushing the body out), depths (n,) penetration at
    the start of the step, forces (n,3) on the body (N), body (n,) body index, collider (n,) collider
    index or −1, other_body (n,) body index or −1."""

    def __init__(self, points, normals, depths, forces, body, collider, other_body):
        self.points, self.normals, self.depths, self.forces = points, normals, depths, forces
        self.body, self.collider, self.other_body = body, collider, other_body

    @classmethod
    def empty(cls):
        z3 = np.zeros((0, 3))
        zi = np.zeros(0, np.int64)
        return cls(z3, z3.copy(), np.zeros(0), z3.copy(), zi, zi.copy(), zi.copy())

    def __len__(self):
        return len(self.depths)

    def __repr__(self):
        return f"Contacts({len(self)})"


class _Candidates:
    """Detected contacts against one triangle set: point id, triangle id, normal, gap."""

    def __init__(self, point, tri, normal, gap):
        self.point, self.tri, self.normal, self.gap = point, tri, normal, gap


class ContactStage:
    """Colliders and body surfaces of a World, and the contact solve run on all bodies at once."""

    def __init__(self, settings=None):
        self.settings = settings if settings is not None else ContactSettings()
        self.colliders = []
        self.surfaces = []
        self.contacts = Contacts.empty()
        self.penetrating = False   # set by solve(): a point no penalty row held ends it inside a surface
        self._layout = None
        self._collider_bvh = None
        self._collider_edges = None
        self._sides_checked = False   # see _choose_sides_of_initial_overlap

    # -- scene --------------------------------------------------------------------------------------
    def add_collider(self, vertices, triangles, friction=0.5, thickness=0.0, name=None):
        """Add a triangle mesh collider (world space); returns its handle for move_collider."""
        c = Collider(len(self.colliders), vertices, triangles, friction, thickness, name)
        self.colliders.append(c)
        self._collider_bvh = None
        self._collider_edges = None
        self._sides_checked = False
        return c

    def move_collider(self, collider, vertices):
        """Collider vertex positions at the end of the next step (linear motion within the step)."""
        if isinstance(collider, (int, np.integer)) and 0 <= collider < len(self.colliders):
            collider = self.colliders[collider]
        if not isinstance(collider, Collider) or collider.index >= len(self.colliders) \
                or self.colliders[collider.index] is not collider:
            raise InvalidInputError(f"unknown collider {collider!r}")
        collider.move(vertices)

    def add_body(self, mesh, friction, name):
        """Register a body's contact surface (bodies are indexed in the order they are added)."""
        self.surfaces.append(BodySurface(mesh, friction, name))
        self._layout = None

    def set_body_friction(self, index, friction):
        """Change body `index`'s friction coefficient from the next step on (its contacts' memory is kept)."""
        surface = self.surfaces[index]
        surface.friction = float(friction)
        lay = self._layout
        if lay is not None:
            lay["mu"][lay["group"] == index] = surface.friction
            lay["tri_mu"][lay["tri_group"] == index] = surface.friction

    def finish_step(self):
        """Colliders arrive at their end positions; the next step starts there."""
        for c in self.colliders:
            c.start = c.end.copy()

    # -- layout -------------------------------------------------------------------------------------
    def _build_layout(self, num_nodes):
        offs = np.concatenate([[0], np.cumsum(num_nodes)])
        poffs = np.concatenate([[0], np.cumsum([len(s) for s in self.surfaces])])
        nodes = np.concatenate([np.where(s.nodes >= 0, s.nodes + offs[i], -1)
                                for i, s in enumerate(self.surfaces)])
        lay = {
            "num_nodes": tuple(num_nodes), "offsets": offs,
            "nodes": np.ascontiguousarray(nodes),
            "weights": np.ascontiguousarray(np.concatenate([s.weights for s in self.surfaces])),
            "group": np.repeat(np.arange(len(self.surfaces)), [len(s) for s in self.surfaces]),
            "mu": np.repeat([s.friction for s in self.surfaces], [len(s) for s in self.surfaces]),
        }
        tris = [s.triangles + poffs[i] for i, s in enumerate(self.surfaces)]
        lay["tris"] = np.ascontiguousarray(np.concatenate(tris)).astype(np.int64)
        counts = [len(s.triangles) for s in self.surfaces]
        lay["tri_group"] = np.repeat(np.arange(len(self.surfaces)), counts)
        lay["tri_mu"] = np.repeat([s.friction for s in self.surfaces], counts).astype(np.float64)
        lay["tri_onesided"] = np.repeat([s.closed for s in self.surfaces], counts).astype(np.bool_)
        lay["tri_thick"] = np.full(len(lay["tris"]), self.settings.body_thickness)
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
        lay["cell_ptr"] = np.concatenate([[0], np.cumsum(np.bincount(point_cell, minlength=len(cells)))])
        lay["cell_points"] = np.argsort(point_cell, kind="stable")
        # Per body with triangles: the other bodies' points are tested against them; the points its BVH
        # reads are positioned in p0, p1 (start and end of the motion) as needed.
        lay["bodies"] = []
        lay["reach"] = {}
        if len(self.surfaces) > 1:
            toffs = np.concatenate([[0], np.cumsum(counts)])
            rest = np.concatenate([sf.rest for sf in self.surfaces])
            for i in range(len(self.surfaces)):
                if counts[i]:
                    sl = slice(toffs[i], toffs[i + 1])
                    lay["bodies"].append((BodyTriangles(rest, lay["tris"][sl], point_cell, len(cells)), sl, i))
        # Bookkeeping points: the render points, then the render edges (edge e is point P + e, core.contact.edge_rows).
        lay["edges"] = np.concatenate([s.edges + poffs[i] for i, s in enumerate(self.surfaces)]).astype(np.int64)
        lay["group"] = np.concatenate([lay["group"], lay["group"][lay["edges"][:, 0]]])
        lay["mu"] = np.concatenate([lay["mu"], lay["mu"][lay["edges"][:, 0]]])
        n = lay["num_points"] = len(lay["group"])
        lay["p0"] = np.empty((len(lay["nodes"]), 3))
        lay["p1"] = np.empty((len(lay["nodes"]), 3))
        self._layout = lay
        self._side_hint = np.zeros((n, 3))
        self._hinted = np.zeros(0, np.int64)     # the points whose side hint is set
        self._initial_side = np.zeros((len(lay["nodes"]), 3))   # see _choose_sides_of_initial_overlap
        self._sides_pending = False              # any point still waiting to be found on its initial side
        self._sides_checked = False
        self._memory = FrictionMemory(n)

    def _collider_arrays(self):
        if self._collider_bvh is None:
            live = [c for c in self.colliders if len(c.triangles)]
            self._live = live
            if not live:
                self._collider_bvh = False
                return
            voffs = np.concatenate([[0], np.cumsum([len(c.start) for c in live])])
            counts = [len(c.triangles) for c in live]
            self._ctris = np.concatenate([c.triangles + voffs[i] for i, c in enumerate(live)]).astype(np.int64)
            self._cindex = np.repeat([c.index for c in live], counts)
            self._cmu = np.repeat([c.friction for c in live], counts).astype(np.float64)
            self._cthick = np.repeat([c.thickness for c in live], counts).astype(np.float64)
            self._conesided = np.repeat([c.closed for c in live], counts).astype(np.bool_)
            self._cgroup = np.full(len(self._ctris), -1, np.int64)
            self._collider_reach = {}
            self._collider_fit = None     # the positions and pads the collider BVH was last refit for
            self._cnormal = np.empty((len(self._ctris), 3))
            self._cpos, self._cpos_ends = {}, []
            self._collider_bvh = BVH(np.concatenate([c.start for c in live]), self._ctris)

    def _collider_positions(self, frac):
        """The live colliders' vertices at `frac` of their motion (not to be written to: kept while the colliders'
        start and end arrays are the same objects; move_collider and finish_step replace them)."""
        ends = [(c.start, c.end) for c in self._live]
        if any(a is not b for pair, known in zip(ends, self._cpos_ends) for a, b in zip(pair, known)):
            self._cpos.clear()
        self._cpos_ends = ends
        if frac not in self._cpos:
            self._cpos[frac] = np.ascontiguousarray(np.concatenate([(1.0 - frac) * a + frac * b for a, b in ends]))
        return self._cpos[frac]

    def _refit_colliders(self, c0, c1, margin, below_open):
        """Refit the colliders' BVH and their triangles' normals for their motion c0 -> c1, unless it was last
        refit for the same."""
        pad = self._reach(self._collider_reach, self._cthick, margin, self._conesided, below_open)
        last = self._collider_fit
        moved0 = last is None or not (last[0] is c0 or np.array_equal(last[0], c0))
        moved1 = last is None or not (last[1] is c1 or np.array_equal(last[1], c1))
        if moved0 or moved1 or last[2] is not pad:
            self._collider_bvh.refit(c0, c1, pad)
            if moved0:
                triangle_normals(c0, self._ctris, self._cnormal)
            self._collider_fit = (c0, c1, pad)

    # -- detection ----------------------------------------------------------------------------------
    def _below_open(self):
        """How deep below an open surface points are found: twice the slop (as deep as the correction leaves
        points the penalty rows hold); search_depth while points of an initial overlap wait for their side (see
        _choose_sides_of_initial_overlap)."""
        s = self.settings
        return s.search_depth if self._sides_pending else 2.0 * s.slop

    def _reach(self, cache, tri_thick, margin, tri_onesided, below_open):
        """How far a triangle's box reaches: its thickness and the margin, and below the surface as far as
        points are still found there: search_depth under a closed surface, below_open under an open one (see
        _below_open). Kept in `cache` (a dict)."""
        s = self.settings
        key = (margin, s.search_depth, below_open)
        if key not in cache:
            cache[key] = tri_thick + margin + np.where(tri_onesided, s.search_depth, below_open)
        return cache[key]

    def _detect(self, near, v0, v1, tris, normals, tri_group, tri_thick, tri_onesided, bvh, margin, dv, width):
        """Contacts of the points `near` (_points_near's ids, q0, q1) with the triangles tris (vertices v0 -> v1,
        moving by dv; (0,3): a body's, no motion counted; normals: see detect) as row fields: _Candidates, node,
        coef (width wide), move."""
        points, q0, q1 = near
        s = self.settings
        lay = self._layout
        npts = len(points)
        K = s.max_contacts_per_point
        slot_tri = np.empty((npts, K), np.int64)
        slot_b = np.empty((npts, K, 3))
        slot_n = np.empty((npts, K, 3))
        slot_gap = np.empty((npts, K))
        detect(q0, q1, points, lay["group"], v0, v1, tris, normals, tri_group, tri_thick, tri_onesided,
               bvh.left, bvh.right, bvh.start, bvh.count, bvh.order, bvh.lo, bvh.hi,
               margin, s.search_depth, self._side_hint, slot_tri, slot_b, slot_n, slot_gap)
        point, tri, normal, gap, node, coef, move = vertex_rows(points, slot_tri, slot_b, slot_n, slot_gap,
                                                                lay["nodes"], lay["weights"], tris, dv, width)
        return _Candidates(point, tri, normal, gap), node, coef, move

    def _points_near(self, cells, x0, v, dt, touching):
        """The points of `cells` (ascending) whose cell's box around its points' paths passes touching(lo, hi)
        (which returns a bool per box and something more) as (ids, start and end positions), and that more."""
        lay = self._layout
        live, q0, q1, lo, hi, slot = cell_paths(cells, lay["cell_ptr"], lay["cell_points"], lay["point_cell"],
                                                lay["nodes"], lay["weights"], x0, v, dt)
        keep, more = touching(lo, hi)
        return kept_points(keep, slot, live, q0, q1), more

    def _gather(self, x0, v, dt, frac0, frac1, margin):
        """Candidates against colliders and against other bodies, as solver rows."""
        lay = self._layout
        s = self.settings
        rows = []
        self._collider_arrays()
        # Cells: a render point stays inside its tet (or as far outside as its negative weights allow), so the
        # swept box of a cell's nodes, grown for those, bounds its points' paths. Early outs on the bodies'
        # boxes around their cells' boxes; pad covers every triangle's reach (see _reach).
        x1 = x0 + dt * v
        cells = lay["cells"]
        clo = np.empty((len(cells), 3))
        chi = np.empty((len(cells), 3))
        cell_boxes(cells, lay["cell_grow"], x0, x1, 0.0, clo, chi)
        pad = s.body_thickness + margin + max(s.search_depth, 2.0 * s.slop)
        below_open = self._below_open()
        boxes = group_boxes(lay["cell_group"], clo, chi, len(self.surfaces), pad)
        hit_collider = False
        if self._collider_bvh:
            c0 = self._collider_positions(frac0)
            c1 = self._collider_positions(frac1)
            cb = self._collider_bvh
            self._refit_colliders(c0, c1, margin, below_open)
            hit_collider = bool(np.any(np.all(boxes[:, 0] <= cb.hi[0], axis=1)
                                       & np.all(boxes[:, 1] >= cb.lo[0], axis=1)))    # the root bounds them all
        near = np.all(boxes[:, None, 0] <= boxes[None, :, 1], axis=2) & np.all(
            boxes[:, None, 1] >= boxes[None, :, 0], axis=2)
        np.fill_diagonal(near, False)
        if not hit_collider and not near.any():
            return None, rows
        # Broad phase on the cells: only the points of cells near a collider's or another body's triangles are
        # positioned and tested, and of the other bodies' triangles only those near such cells are read.
        if hit_collider:
            def touching(lo, hi):
                out = np.zeros(len(lo), np.bool_)
                boxes_touch(lo, hi, cb.left, cb.right, cb.count, cb.lo, cb.hi, out)
                return out, None

            # cells first, then the boxes of their points' paths
            near_points, _ = self._points_near(np.flatnonzero(touching(clo, chi)[0]), x0, v, dt, touching)
            cand, node, coef, move = self._detect(near_points, c0, c1, self._ctris, self._cnormal, self._cgroup,
                                                  self._cthick, self._conesided, cb, margin, c1 - c0, 4)
            rows.append((cand, node, coef, move, self._cmu[cand.tri], self._cindex[cand.tri],
                         np.full(len(cand.point), -1)))
        for part, sl, j in lay["bodies"]:
            if not near[j].any():
                continue
            candidates = np.flatnonzero(near[j, lay["cell_group"]])   # the cells of the bodies near body j
            reach = self._reach(lay["reach"].setdefault(j, {}), lay["tri_thick"][sl], margin,
                                lay["tri_onesided"][sl], below_open)
            part.fit(clo, chi, reach.max())
            # cells first, then the boxes of their points' paths: fewer points, and fewer triangles they reach
            asking, _ = part.near(clo[candidates], chi[candidates], groups=False)
            if not asking.any():
                continue
            near_points, close = self._points_near(candidates[asking], x0, v, dt, part.near)
            if not len(near_points[0]):
                continue
            leaves = part.leaves(close)
            p0, p1 = lay["p0"], lay["p1"]
            swept_positions(part.bvh.leaf_vertices(leaves), x0, lay["nodes"], lay["weights"], dt, v, p0, p1)
            part.bvh.fit_leaves(leaves, p0, p1, reach)
            cand, node, coef, move = self._detect(near_points, p0, p1, lay["tris"][sl], np.zeros((0, 3)),
                                                  lay["tri_group"][sl], lay["tri_thick"][sl], lay["tri_onesided"][sl],
                                                  part.bvh, margin, np.zeros((0, 3)), STENCIL)
            cand.tri += sl.start
            rows.append((cand, node, coef, move, lay["tri_mu"][cand.tri], np.full(len(cand.point), -1),
                         lay["tri_group"][cand.tri]))
        return None, rows

    def _edge_rows(self, x0, v, dt, frac0, frac1, margin, rows):
        """Rows of the bodies' render edges against the colliders' feature edges (core.contact.edge_rows), given
        the vertex rows `rows` of the same motion."""
        self._collider_arrays()
        if not self.settings.edge_contacts or not self._collider_bvh:
            return []
        if self._collider_edges is None or self._collider_edges.reshaped(self._live):
            self._collider_edges = ColliderEdges(self._live)   # a deforming collider's sharp edges change
        lay = self._layout
        return collider_edge_rows(lay, x0, v, dt, self._collider_positions(frac0), self._collider_positions(frac1),
                                  self._ctris, self._collider_edges, margin, self.settings.search_depth,
                                  self._side_hint[len(lay["nodes"]):], rows, self.settings.max_contacts_per_point,
                                  EDGE_STENCIL)

    @staticmethod
    def _concat(rows, width=STENCIL):
        """The row sets `rows` as one: point, normal, gap, node, coef (width wide: the sets' stencils padded with
        −1 and 0), move, mu_other, collider, other."""
        rows = [r for r in rows if len(r[0].point)]
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

    def _prepare(self, x, node_counts):
        node_counts = tuple(int(n) for n in node_counts)
        if len(node_counts) != len(self.surfaces) or sum(node_counts) != len(x):
            raise InvalidInputError(f"{len(node_counts)} bodies given, {len(self.surfaces)} registered")
        if self._layout is None or self._layout["num_nodes"] != node_counts:
            self._build_layout(node_counts)

    def _idle(self):
        return not self.surfaces or (not any(len(c.triangles) for c in self.colliders) and len(self.surfaces) < 2)

    # -- solves -------------------------------------------------------------------------------------
    def _rows(self, x0, v, dt, frac0, frac1):
        """The contact rows of the motion x0 + dt v (see _gather), stencils as wide as the widest row needs."""
        p0, rows = self._gather(x0, v, dt, frac0, frac1, self.settings.margin)
        rows += self._edge_rows(x0, v, dt, frac0, frac1, self.settings.margin, rows)
        # each set's stencil is as wide as its rows need: 4 against a collider, an edge row's 8, 16 body–body
        return self._concat(rows, max([r[1].shape[1] for r in rows if len(r[0].point)], default=4))

    def predict(self, x0, v, inv_mass, dt, node_counts, frac0=0.0, frac1=1.0, v_last=None):
        """The contacts the motion x0 + dt v (all bodies' nodes; v a velocity guess) would violate, as a
        ContactPenalty for the implicit solve (None if there are none). v_last: the nodes' velocities at the end
        of the last step (default v), from which the friction springs' start is predicted (see friction_rows).
        A row's stiffness is STIFFNESS times its effective mass, scaled down where many rows share nodes so no node's diagonal block grows by
        more than NODE_STIFFNESS times its mass (CG would slow down)."""
        if self._idle():
            return None
        self._prepare(x0, node_counts)
        x0 = np.ascontiguousarray(x0, dtype=np.float64)
        v = np.ascontiguousarray(v, dtype=np.float64)
        if not self._sides_checked:
            self._choose_sides_of_initial_overlap(x0, frac0)
        point, normal, gap, node, coef, move, mu_other, collider, other = self._rows(x0, v, dt, frac0, frac1)
        if len(point) == 0:
            return None
        lay = self._layout
        # A point (or render edge) pushed last step keeps its row while its predicted gap is within the slop: a row
        # that came and went every other step (a point resting against a wall, predicted just clear of it one step
        # and held on it the next) made a silicone Suzanne leaning on a box shake at 0.1 m/s for seconds.
        # A row targets the surface, and pushes a point already inside back by at most `slop` per step: a faster
        # push puts energy in (a Suzanne resting on a floor kept bouncing when pushed at max_correction_speed). Its
        # multiplier carries the load (warm-started from the last step), so a resting point sits on the surface,
        # not sagged into it.
        v_last = v if v_last is None else np.ascontiguousarray(v_last, dtype=np.float64)
        keep, kappa, r0, pressing = predicted_rows(point, gap, normal, node, coef, move, v, v_last, inv_mass,
                                                   self._memory.normal_force, dt, self.settings.slop,
                                                   self.settings.margin)
        if not keep.any():
            return None
        mu = combined_friction(lay["mu"][point[keep]], mu_other[keep])
        rows = self._memory.friction_rows(x0, v_last, dt, node[keep], coef[keep], normal[keep], r0[keep],
                                          kappa[keep], pressing[keep], point[keep], collider[keep], other[keep],
                                          move[keep], mu)
        node, coef, normal, r0, stiffness, point, collider, other, tangent, const, kappa, mu = rows
        # a point found on one side of a two-sided surface stays on it for this step's correction: one resting
        # exactly on a plane that lifts off in the solve was otherwise taken to cross it from below, and held
        # under it (the box of a tipping block sank through the plane)
        pressed = point[~tangent]
        fresh = ~np.any(self._side_hint[pressed] != 0.0, axis=1)
        self._side_hint[pressed[fresh]] = normal[~tangent][fresh]
        self._hinted = np.union1d(self._hinted, pressed[fresh])
        return ContactPenalty(np.ascontiguousarray(node), np.ascontiguousarray(coef), np.ascontiguousarray(normal),
                              r0, stiffness, kappa, point, collider, other, tangent, const, mu, len(x0),
                              tolerance=self.settings.margin)

    def solve(self, x0, v, inv_mass, dt, node_counts, frac0=0.0, frac1=1.0, penalty=None, penalty_impulse=None):
        """Correct the node velocities v (N,3, in place) so that no render point ends the step
        (positions x0 + dt v) through a collider or another body, with Coulomb friction.

        x0, v, inv_mass: all bodies' nodes (in body order, node_counts per body): positions at the
        start of the step, current velocities (the Newton iterate) and inverse lumped masses (0 for
        pinned nodes). frac0, frac1: the part of the colliders' motion (start -> end) this step
        covers. penalty, penalty_impulse: the ContactPenalty the implicit solve ran with and its rows'
        normal impulses (N·s): they count in the friction bounds and in the reported forces. Records
        self.contacts; returns the solver iterations used (0: no contact work).
        """
        self.penetrating = False
        if self._idle():
            self.contacts = Contacts.empty()
            return 0
        self._prepare(x0, node_counts)
        x0 = np.ascontiguousarray(x0, dtype=np.float64)
        work = np.ascontiguousarray(v, dtype=np.float64)
        invm = np.ascontiguousarray(inv_mass, dtype=np.float64)
        point, normal, gap, node, coef, move, mu_other, collider, other = self._rows(x0, work, dt, frac0, frac1)
        lay = self._layout
        mu = combined_friction(lay["mu"][point], mu_other)
        if penalty is not None:
            live = penalty.holding()
            pen = penalty.point[live], penalty_impulse[live], penalty.tangent[live], penalty.normal[live]
        else:
            pen = np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.bool_), np.zeros((0, 3))
        # a point its penalty rows held may end up to `slop` deep: at rest they hold it a little below the
        # surface, where they carry its weight; pushing it out in velocity kicks the light cage nodes around
        # it through their tets (measured: 3 tets inverted in most steps of a Suzanne resting on a floor).
        # Each point's penalty impulses are shared by its correction rows; points the correction no longer
        # sees (pushed clear by the penalty) are reported on their own (`alone`).
        ids, vmin, floor, mu_solve, share, held, alone = correction_targets(
            point, gap, mu, *pen, self.settings.slop, dt, self._memory.slot)
        lam_n = np.zeros(len(point))
        lam_t = np.zeros((len(point), 3))
        iters = solve_contacts(work, invm, node, coef, normal, vmin, mu_solve, floor, np.ascontiguousarray(move / dt),
                               self.settings.iterations, self.settings.tolerance, lam_n, lam_t)
        # does any point its penalty rows did not hold end the step inside (what post-stabilisation is for)?
        impulse, ends, self.penetrating = correction_report(
            point, node, coef, normal, gap, move, x0, work, dt, lam_n, lam_t, floor, share, held,
            -self.settings.tolerance * dt, len(lay["nodes"]))
        if penalty is not None:
            self._memory.drag_anchors(penalty, work * dt)
        self._memory.update(point, impulse, normal, node, coef, other, x0, work, dt, lay["nodes"], lay["weights"])
        if work is not v:
            v[...] = work
        set_side_hints(self._side_hint, self._hinted, pen[0], pen[3], pen[2], point, normal)
        self._hinted = ids
        if self._sides_pending:   # a point found near the surface on its chosen side goes on by its contacts
            npts = len(lay["nodes"])   # (render points; edges take no initial side)
            self._initial_side[point[(gap >= -2.0 * self.settings.slop) & (point < npts)]] = 0.0
            waiting = np.any(self._initial_side != 0.0, axis=1) & ~np.any(self._side_hint[:npts] != 0.0, axis=1)
            self._side_hint[:npts][waiting] = self._initial_side[waiting]
            self._hinted = np.union1d(self._hinted, np.flatnonzero(waiting))
            self._sides_pending = bool(self._initial_side.any())
        contacts = Contacts(ends, normal, np.maximum(0.0, -gap), impulse / dt, lay["group"][point], collider, other)
        if alone.any():
            rows = np.zeros(len(penalty), np.bool_)
            rows[np.flatnonzero(live)[alone]] = True
            contacts = _append_penalty_contacts(contacts, lay, x0, work, dt, penalty, rows, penalty_impulse)
        self.contacts = contacts
        return iters

    def _choose_sides_of_initial_overlap(self, x0, frac):
        """Before the first step: a render point that starts within search_depth of an open collider on the side
        away from its body's bulk (the centroid of its body's nodes) lies where an open surface cuts through the
        body (a ball placed into a floor plane): it takes the bulk's side, so the body is pushed out to one side
        instead of being held across the surface. Detection then reaches search_depth below open surfaces until
        every such point has been found on its side."""
        self._sides_checked = True
        self._collider_arrays()
        if not self._collider_bvh or all(c.closed for c in self._live):
            return
        lay = self._layout
        depth = self.settings.search_depth
        _, rows = self._gather(x0, np.zeros_like(x0), 0.0, frac, frac, depth)
        point, normal, gap, _, _, _, _, collider, _ = self._concat(rows)
        closed = np.array([c.closed for c in self.colliders] + [True])
        offs = lay["offsets"]
        bulk = np.array([x0[a:b].mean(axis=0) for a, b in zip(offs[:-1], offs[1:])])
        p = point_positions(x0, lay["nodes"][point], lay["weights"][point], 0.0, x0)
        away = np.einsum("cd,cd->c", bulk[lay["group"][point]] - p, normal) < 0.0
        wrong = away & ~closed[collider] & (gap < depth)
        self._initial_side[point[wrong]] = -normal[wrong]
        self._side_hint[point[wrong]] = -normal[wrong]
        self._hinted = np.union1d(self._hinted, point[wrong])
        self._sides_pending = bool(wrong.any())

    def stabilize(self, x, inv_mass, dt, node_counts, frac=1.0, penalty=None):
        """Post-stabilisation: move nodes (x, in place; velocities untouched) so that leftover penetration
        shrinks by `stabilization` per step, at most max_correction_speed · dt. Points that had rows in the
        step's `penalty` are left to them (they push back what lies deeper than the slop): a resting body sits
        slightly inside, where its rows carry its weight, and pushing it out by position every step turns into
        jitter (measured: 16 mm/s on a resting ball)."""
        if self._idle():
            return
        self._prepare(x, node_counts)
        xc = np.ascontiguousarray(x, dtype=np.float64)
        invm = np.ascontiguousarray(inv_mass, dtype=np.float64)
        zero = np.zeros_like(xc)
        _, rows = self._gather(xc, zero, 0.0, frac, frac, 0.0)
        rows += self._edge_rows(xc, zero, 0.0, frac, frac, 0.0, rows)
        point, normal, gap, node, coef, _, _, _, _ = self._concat(rows)
        deep = gap < 0.0
        if penalty is not None:
            deep[np.isin(point, penalty.point[penalty.holding()])] = False
        if not deep.any():
            return
        s = self.settings
        push = np.minimum(s.stabilization * -gap[deep], s.max_correction_speed * dt)
        n = int(deep.sum())
        solve_contacts(zero, invm, np.ascontiguousarray(node[deep]), np.ascontiguousarray(coef[deep]),
                       np.ascontiguousarray(normal[deep]), push, np.zeros(n), np.zeros(n), np.zeros((n, 3)),
                       s.iterations, s.tolerance * dt, np.zeros(n), np.zeros((n, 3)))
        x += zero


def _append_penalty_contacts(contacts, lay, x0, v, dt, penalty, rows, impulse):
    """contacts plus the points of the penalty rows `rows` (mask) as contacts of their own, one per point: at its
    first normal row's end position and normal, with the force (impulse / dt) of all its rows, normal and friction
    (a friction row reported as a contact of its own showed as a contact with no normal force)."""
    normal_row = np.flatnonzero(~penalty.tangent)
    points, first = np.unique(penalty.point[normal_row], return_index=True)
    first = normal_row[first]
    chosen = np.flatnonzero(rows)
    at = np.searchsorted(points, penalty.point[chosen])
    ok = (at < len(points)) & (points[np.minimum(at, len(points) - 1)] == penalty.point[chosen])
    chosen, at = chosen[ok], at[ok]     # a friction row whose point has no normal row is not a contact
    slot, where = np.unique(at, return_inverse=True)
    head = first[slot]
    force = np.zeros((len(slot), 3))
    np.add.at(force, where, penalty.normal[chosen] * (impulse[chosen] / dt)[:, None])
    pt = penalty.point[head]
    ends = contact_positions(pt, penalty.node[head], penalty.coef[head], x0, v, dt, len(lay["nodes"]))
    join = [np.concatenate(pair) for pair in (
        (contacts.points, ends), (contacts.normals, penalty.normal[head]), (contacts.depths, np.zeros(len(pt))),
        (contacts.forces, force), (contacts.body, lay["group"][pt]),
        (contacts.collider, penalty.collider[head]), (contacts.other_body, penalty.other[head]))]
    return Contacts(*join)
