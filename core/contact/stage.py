"""The contact stage of a World: its colliders and body surfaces, the step's contact rows (detection) as one problem,
the contacts it solved, rolling resistance."""
import numpy as np

from ..carry import take
from ..errors import InvalidInputError
from ..geometry.winding import WindingNumber
from .body_edges import BodyEdges, body_edge_rows
from .colliders import Collider, ContactSettings
from .contacts import Contacts
from .edge_rows import EDGE_STENCIL, collider_edge_rows
from .layout import build_layout
from .live_colliders import LiveColliders
from .problem import ContactProblem, RowMemory, distinct_rows, row_keys
from .rolling import resist_rolling, rigid_spin
from .row_sets import concat_rows, gather_rows
from .self_contact import self_exclusions, self_surfaces
from .sides import OPEN_DEPTH, SideHints, row_sources
from .surface import BodySurface, point_positions


def combined_friction(mu_a, mu_b):
    """Friction coefficient of a contact: the geometric mean sqrt(μa μb) of the two surfaces' μ."""
    return np.sqrt(mu_a * mu_b)


class ContactStage:
    """Colliders and body surfaces of a World, and the contact solve run on all bodies at once."""

    def __init__(self, settings=None):
        self.settings = settings if settings is not None else ContactSettings()
        self.colliders = []
        self.surfaces = []
        self.contacts = Contacts.empty()
        self._layout = None        # the bodies' surfaces as one set (core.contact.layout), with its per-point state:
        self._sides = None         # side hints (SideHints)
        self._live = None          # the colliders with triangles (LiveColliders), built when first needed
        self._sides_checked = False   # see _choose_sides_of_initial_overlap
        self._row_memory = RowMemory()   # the last step's rows (core.contact.problem)

    # -- scene --------------------------------------------------------------------------------------
    def add_collider(self, vertices, triangles, friction=0.5, thickness=0.0, name=None):
        """Add a triangle mesh collider (world space); returns its handle for move_collider."""
        c = Collider(len(self.colliders), vertices, triangles, friction, thickness, name)
        self.colliders.append(c)
        self._live = None
        self._sides_checked = False
        return c

    def move_collider(self, collider, vertices):
        """Collider vertex positions at the end of the next step (linear motion within the step)."""
        self._collider(collider).move(vertices)

    def set_collider_friction(self, collider, friction):
        """Change a collider's friction coefficient from the next step on (its contacts' memory is kept)."""
        c = self._collider(collider)
        c.set_friction(friction)
        if self._live is not None and self._live.bvh is not None:
            self._live.mu[self._live.index == c.index] = c.friction

    def set_collider_active(self, collider, active):
        """Switch a collider on or off from the next step on (off, no body touches it; its contacts' memory is
        kept); returns whether it changed. A body found across an open collider switched on takes its bulk's side,
        as at the start."""
        c = self._collider(collider)
        if c.active == bool(active):
            return False
        c.active = bool(active)
        self._live = None
        self._sides_checked = False
        return True

    def _collider(self, collider):
        """The Collider of a handle or index; InvalidInputError if it is not one of this stage's."""
        if isinstance(collider, (int, np.integer)) and 0 <= collider < len(self.colliders):
            collider = self.colliders[collider]
        if not isinstance(collider, Collider) or collider.index >= len(self.colliders) \
                or self.colliders[collider.index] is not collider:
            raise InvalidInputError(f"unknown collider {collider!r}")
        return collider

    def add_body(self, mesh, friction, name, self_collision=False):
        """Register a body's contact surface (bodies are indexed in the order they are added); self_collision: its
        surface also collides with itself (core.contact.self_contact; its excluded neighbour pairs are found now, from
        the rest shape)."""
        surface = BodySurface(mesh, friction, name)
        if self_collision:
            surface.self_collision = True
            surface.self_excluded = self_exclusions(surface.rest, surface.triangles, self.settings.body_thickness)
        self.surfaces.append(surface)
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
            c.start = c.end    # never written in place (move gives a new array)

    # -- carried from step to step (World.carried) ----------------------------------------------------
    def carried(self):
        """What the next step reads of this stage's past (names "contact.*"): the last rows' λ̃ and anchors, the
        colliders' positions (where the next step starts), which bodies each holds inside and whether that was
        decided, whether the sides of an initial overlap were chosen, and the points' side hints
        (once laid out)."""
        out = self._row_memory.carried("contact.row_")
        out["contact.collider_x"] = np.concatenate([c.start for c in self.colliders] + [np.zeros((0, 3))])
        out["contact.collider_holds"] = self._held_inside().T.copy()
        out["contact.collider_sides_known"] = np.array([c.sides_known for c in self.colliders], np.bool_)
        out["contact.sides_checked"] = np.array(self._sides_checked)
        if self._sides is not None:
            out.update(self._sides.carried("contact.side_"))
        return out

    def restorer(self, carried, node_counts):
        """A function that takes back what carried() of a stage with the same bodies and colliders gave (checked now:
        InvalidInputError if it does not fit)."""
        sizes = [len(c.start) for c in self.colliders]
        where = np.cumsum([0] + sizes)
        x = take(carried, "contact.collider_x", (where[-1], 3), np.float64)
        holds = take(carried, "contact.collider_holds", (len(self.colliders), len(self.surfaces)), np.bool_)
        known = take(carried, "contact.collider_sides_known", (len(self.colliders),), np.bool_)
        checked = bool(take(carried, "contact.sides_checked", (), np.bool_))
        restore_rows = self._row_memory.restorer(carried, "contact.row_")
        restore_sides = None
        if "contact.side_hint" in carried and len(self.surfaces):
            self._prepare(np.zeros((sum(node_counts), 3)), node_counts)   # (the layout the hints are of)
            restore_sides = self._sides.restorer(carried, "contact.side_")

        def restore():
            for c, a, b, held, k in zip(self.colliders, where[:-1], where[1:], holds, known):
                c.start = c.end = x[a:b]
                c.holds = frozenset(int(i) for i in np.flatnonzero(held))
                c.sides_known = bool(k)
            self._live = None
            if restore_sides is None:
                self._layout = None    # (laid out again at the next step, as the carrying stage would be)
            else:
                restore_sides()
            self._sides_checked = checked
            restore_rows()
        return restore

    # -- layout and colliders -----------------------------------------------------------------------
    def _prepare(self, x, node_counts):
        node_counts = tuple(int(n) for n in node_counts)
        if len(node_counts) != len(self.surfaces) or sum(node_counts) != len(x):
            raise InvalidInputError(f"{len(node_counts)} bodies given, {len(self.surfaces)} registered")
        if self._layout is None or self._layout["num_nodes"] != node_counts:
            self._layout = build_layout(self.surfaces, node_counts, self.settings.body_thickness)
            self._layout["self"] = self_surfaces(self._layout, self.surfaces, self.settings.body_thickness)
            n = self._layout["num_points"]
            self._sides = SideHints(n, len(self._layout["nodes"]))
            self._sides_checked = False

    def _idle(self):
        return not self.surfaces or (not any(len(c.triangles) and c.active for c in self.colliders)
                                     and len(self.surfaces) < 2 and not any(s.self_collision for s in self.surfaces))

    def _live_colliders(self):
        if self._live is None:
            self._live = LiveColliders(self.colliders)
        return self._live

    # -- detection ----------------------------------------------------------------------------------
    def _gather(self, x0, v, dt, frac0, frac1, margin):
        """The vertex rows of the motion x0 + dt v against colliders and other bodies, and whether any body came
        near a collider (see gather_rows)."""
        return gather_rows(self._layout, self.settings, self._sides, self._live_colliders(), x0, v, dt, frac0,
                           frac1, margin, self._held_inside())

    def _edge_rows(self, x0, v, dt, frac0, frac1, margin, rows):
        """Rows of the bodies' render edges against the colliders' feature edges (core.contact.edge_rows), given
        the vertex rows `rows` of the same motion."""
        live = self._live_colliders()
        if not self.settings.edge_contacts or live.bvh is None:
            return []
        lay = self._layout
        return collider_edge_rows(lay, x0, v, dt, live.positions(frac0), live.positions(frac1), live.tris,
                                  live.feature_edges(), margin, self.settings.search_depth,
                                  self._sides.hint[len(lay["nodes"]):], self._sides.source[len(lay["nodes"]):], rows,
                                  self.settings.max_contacts_per_point, EDGE_STENCIL)

    def _rows(self, x0, v, dt, frac0, frac1, margin=None, recheck=None):
        """The contact rows of the motion x0 + dt v (see _gather) within `margin` (default settings.margin), stencils
        as wide as the widest row needs. recheck, for a second detection of a step: (whether the check of the rows
        against colliders and other bodies fired, the bodies whose own check fired); only those detections run (the
        others' rows already hold every contact of the solved motion)."""
        margin = self.settings.margin if margin is None else margin
        lay, st = self._layout, self.settings
        world = recheck is None or recheck[0]
        rows, near_colliders = self._gather(x0, v, dt, frac0, frac1, margin) if world else ([], False)
        if near_colliders:
            rows += self._edge_rows(x0, v, dt, frac0, frac1, margin, rows)
        if world and st.edge_contacts and len(self.surfaces) > 1:
            if "body_edges" not in lay:
                lay["body_edges"] = BodyEdges(lay, self.surfaces)
            rows += body_edge_rows(lay, self.surfaces, lay["body_edges"], x0, v, dt, st.body_thickness, margin,
                                   st.search_depth, st.max_contacts_per_point)
        for own in lay["self"]:   # self contacts: rows against the point's own body, its vertices' then its edges'
            if recheck is not None and own.body not in recheck[1]:
                continue
            found = [own.rows(lay, self._sides, x0, v, dt, st.body_thickness, margin, st.margin,
                              st.max_contacts_per_point, self.surfaces[own.body].friction)]
            if st.edge_contacts:
                found.append(own.edge_rows(lay, x0, v, dt, st.body_thickness, st.max_contacts_per_point))
            rows += [f for f in found if f is not None]
        # each set's stencil is as wide as its rows need: 4 against a collider, an edge row's 8, 16 body–body
        return concat_rows(rows, max([r[1].shape[1] for r in rows if len(r[0].point)], default=4))

    # -- one problem (core.contact.problem) ----------------------------------------------------------
    def problem(self, x0, v, dt, node_counts, margin, frac0=0.0, frac1=1.0, exclude=None, recheck=None):
        """The contact rows of the motion x0 + dt v (all bodies' nodes) within `margin` (m) as a ContactProblem, one
        per point, surface and direction (core.contact.problem.distinct_rows), but those whose key is in `exclude` (a
        ContactProblem's keys); None if there are none. recheck: see _rows."""
        if self._idle():
            return None
        x0, v = self._start(x0, v, node_counts, frac0)
        point, normal, gap, node, coef, move, mu_other, collider, other = self._rows(x0, v, dt, frac0, frac1, margin,
                                                                                     recheck)
        if len(point):
            key = row_keys(point, collider, other, self._num_sources())
            keep = distinct_rows(key, gap, normal, node, coef)
            if exclude is not None:
                keep &= ~np.isin(key, exclude)
            point, normal, gap, node, coef, move, mu_other, collider, other = (
                a[keep] for a in (point, normal, gap, node, coef, move, mu_other, collider, other))
        if not len(point):
            return None
        mu = combined_friction(self._layout["mu"][point], mu_other)
        return ContactProblem(point, normal, gap, node, coef, move, mu, collider, other, self._num_sources(),
                              self._row_memory, self.settings.max_correction_speed * dt, dt)

    def finish_problem(self, problem, x0, x1, dt):
        """Record the solved problem's contacts (and its rows for the next step's warm start); None: no contact."""
        if problem is None:
            self._row_memory.forget()
            self.contacts = Contacts.empty()
            return
        self.contacts = problem.finish(x0, x1, dt, self._layout["group"], len(self._layout["nodes"]))
        # the side hints: each detected row's point stays on the side its row holds it on
        two_sided = (np.array([not c.one_sided for c in self.colliders], np.bool_),
                     np.array([not sf.closed for sf in self.surfaces], np.bool_))
        self._sides.after_solve(np.unique(problem.point), problem.point, problem.rows.frame[:, 0].copy(),
                                row_sources(problem.collider, problem.other), problem.gap, two_sided)

    def self_strayed(self, v, guess, dt):
        """The self-colliding bodies on which the solved velocities v may have closed a gap the last detection (along
        the velocities `guess`) saw as beyond its margin (SelfSurface.strayed)."""
        if self._layout is None:
            return set()
        return {own.body for own in self._layout.get("self", ()) if own.strayed(v, guess, dt)}

    def _start(self, x0, v, node_counts, frac0):
        """Before a step's first detection: the layout for these bodies, the sides of an initial overlap; x0 and v as
        contiguous float arrays."""
        self._prepare(x0, node_counts)
        x0 = np.ascontiguousarray(x0, dtype=np.float64)
        v = np.ascontiguousarray(v, dtype=np.float64)
        if not self._sides_checked:
            self._choose_sides_of_initial_overlap(x0, frac0)
        return x0, v

    def _num_sources(self):
        return len(self.colliders) + len(self.surfaces)

    def resist_rolling(self, x, v, inv_mass, dt):
        """Brake the rolling of each patch of the step's contacts (core.contact.rolling) at the end of the step:
        the node velocities v (N,3) change in place, the positions x (N,3) do not (applied inside the step, the turn
        about a patch's centre pushed the patch's rim into the floor: a landing ball sank 18 mm)."""
        if self._idle() or not len(self.contacts):
            return
        resist_rolling(v, x, inv_mass, self.contacts, self._layout["offsets"],
                       np.array([sf.friction for sf in self.surfaces]), np.array([c.friction for c in self.colliders]),
                       np.array([rigid_spin(c.start, c.end, dt) for c in self.colliders]).reshape(-1, 3),
                       self.settings.rolling_resistance, dt)

    def _choose_sides_of_initial_overlap(self, x0, frac):
        """Before the first step: a render point that starts on an open collider's side away from its body's bulk
        (the centroid of its body's nodes), no farther from it than the body is wide, lies where an open surface
        cuts through the body (a ball placed into a floor plane): it takes the bulk's side, so the body is pushed
        out to one side instead of being held across the surface. Detection then reaches below open surfaces as
        deep as the deepest such point until every one has been found on its side. (Only points within
        search_depth took a side before: a ball placed 10 cm into a plane stayed across it, its deeper points
        held below as they rose to it.)"""
        self._sides_checked = True
        self._free_insides(x0)
        live = self._live_colliders()
        if live.bvh is None or all(c.one_sided for c in live.live):
            return
        lay = self._layout
        offs = lay["offsets"]
        width = max(float(np.ptp(x0[a:b], axis=0).max()) for a, b in zip(offs[:-1], offs[1:]) if b > a)
        depth = max(self.settings.search_depth, width)
        rows, _ = self._gather(x0, np.zeros_like(x0), 0.0, frac, frac, depth)
        point, normal, gap, _, _, _, _, collider, _ = concat_rows(rows)
        closed = np.array([c.one_sided for c in self.colliders] + [True])
        bulk = np.array([x0[a:b].mean(axis=0) for a, b in zip(offs[:-1], offs[1:])])
        p = point_positions(x0, lay["nodes"][point], lay["weights"][point], 0.0, x0)
        # the bulk's height over the surface (the point's gap plus how far the bulk is above the point) is negative
        away = np.einsum("cd,cd->c", bulk[lay["group"][point]] - p, normal) + gap < 0.0
        wrong = away & ~closed[collider] & (gap < depth)
        self._sides.take_initial(point[wrong], -normal[wrong], collider[wrong],
                                 gap[wrong].max(initial=0.0) + OPEN_DEPTH)

    def _free_insides(self, x0):
        """Before a closed collider's first step: the bodies whose bulk (the centroid of their nodes) starts inside
        it are held inside it (Collider.holds): for them its outside is solid, its inside free (a ball started
        inside a closed box stays in it; one-sided, it fell out through the floor; two-sided, with sides told per
        point by side hints, a ball in a tumbling box was pushed through a wall moving into it). Its normals are not
        asked: an imported mesh's may face inward by mistake, and Blender users flip a container's for its
        inside."""
        offs = self._layout["offsets"]
        bulk = np.array([x0[a:b].mean(axis=0) if b > a else np.full(3, np.nan)
                         for a, b in zip(offs[:-1], offs[1:])]).reshape(-1, 3)
        for c in self.colliders:
            if c.sides_known or not len(c.triangles):
                continue
            c.sides_known = True
            if len(bulk):
                inside = np.abs(WindingNumber(c.start, c.triangles)(bulk)) > 0.5
                c.holds = frozenset(int(b) for b in np.flatnonzero(inside))
                if c.holds:
                    self._live = None

    def _held_inside(self):
        """(bodies, colliders) bool: body b is held inside collider c (Collider.holds)."""
        held = np.zeros((len(self.surfaces), len(self.colliders)), np.bool_)
        for c in self.colliders:
            held[list(c.holds), c.index] = True
        return held
