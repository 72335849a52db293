"""The contact stage a World runs inside its Newton loop: detection, friction response, post-stabilisation."""
import numpy as np

from ..carry import take
from ..errors import InvalidInputError
from ..geometry.winding import WindingNumber
from .body_edges import BodyEdges, body_edge_rows
from .colliders import Collider, ContactSettings
from .contacts import Contacts, append_penalty_contacts
from .correction import correction_report, correction_targets
from .edge_rows import EDGE_STENCIL, collider_edge_rows
from .friction_memory import FrictionMemory
from .layout import build_layout
from .live_colliders import LiveColliders
from .penalty import ContactPenalty, predicted_rows
from .problem import ContactProblem, RowMemory, distinct_rows, row_keys
from .response import solve_contacts
from .rolling import resist_rolling, rigid_spin
from .row_sets import concat_rows, gather_rows
from .sides import SideHints, row_sources
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
        self.penetrating = False   # set by solve(): a point no penalty row held ends it inside a surface
        self._layout = None        # the bodies' surfaces as one set (core.contact.layout), with its per-point state:
        self._sides = None         # side hints (SideHints)
        self._memory = None        # friction memory (FrictionMemory)
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
            c.start = c.end    # never written in place (move gives a new array)

    # -- carried from step to step (World.carried) ----------------------------------------------------
    def carried(self):
        """What the next step reads of this stage's past (names "contact.*"): the last rows' λ̃ and anchors, the
        colliders' positions (where the next step starts), which bodies each holds inside and whether that was
        decided, whether the sides of an initial overlap were chosen, and the points' side hints and friction memory
        (once laid out)."""
        out = self._row_memory.carried("contact.row_")
        out["contact.collider_x"] = np.concatenate([c.start for c in self.colliders] + [np.zeros((0, 3))])
        out["contact.collider_holds"] = self._held_inside().T.copy()
        out["contact.collider_sides_known"] = np.array([c.sides_known for c in self.colliders], np.bool_)
        out["contact.sides_checked"] = np.array(self._sides_checked)
        if self._sides is not None:
            out.update(self._sides.carried("contact.side_"))
            out.update(self._memory.carried("contact.friction_"))
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
            restore_friction = self._memory.restorer(carried, "contact.friction_")

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
                restore_friction()
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
            n = self._layout["num_points"]
            self._sides = SideHints(n, len(self._layout["nodes"]))
            self._sides_checked = False
            self._memory = FrictionMemory(n)

    def _idle(self):
        return not self.surfaces or (not any(len(c.triangles) and c.active for c in self.colliders)
                                     and len(self.surfaces) < 2)

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

    def _rows(self, x0, v, dt, frac0, frac1, margin=None):
        """The contact rows of the motion x0 + dt v (see _gather) within `margin` (default settings.margin), stencils
        as wide as the widest row needs."""
        margin = self.settings.margin if margin is None else margin
        rows, near_colliders = self._gather(x0, v, dt, frac0, frac1, margin)
        if near_colliders:
            rows += self._edge_rows(x0, v, dt, frac0, frac1, margin, rows)
        if self.settings.edge_contacts and len(self.surfaces) > 1:
            lay = self._layout
            if "body_edges" not in lay:
                lay["body_edges"] = BodyEdges(lay, self.surfaces)
            rows += body_edge_rows(lay, self.surfaces, lay["body_edges"], x0, v, dt, self.settings.body_thickness,
                                   margin, self.settings.search_depth, self.settings.max_contacts_per_point)
        # each set's stencil is as wide as its rows need: 4 against a collider, an edge row's 8, 16 body–body
        return concat_rows(rows, max([r[1].shape[1] for r in rows if len(r[0].point)], default=4))

    # -- one problem (core.contact.problem) ----------------------------------------------------------
    def problem(self, x0, v, dt, node_counts, margin, frac0=0.0, frac1=1.0, exclude=None):
        """The contact rows of the motion x0 + dt v (all bodies' nodes) within `margin` (m) as a ContactProblem, one
        per point, surface and direction (core.contact.problem.distinct_rows), but those whose key is in `exclude` (a
        ContactProblem's keys); None if there are none."""
        if self._idle():
            return None
        x0, v = self._start(x0, v, node_counts, frac0)
        point, normal, gap, node, coef, move, mu_other, collider, other = self._rows(x0, v, dt, frac0, frac1, margin)
        if len(point):
            key = row_keys(point, collider, other, self._num_sources())
            keep = distinct_rows(key, gap, normal)
            if exclude is not None:
                keep &= ~np.isin(key, exclude)
            point, normal, gap, node, coef, move, mu_other, collider, other = (
                a[keep] for a in (point, normal, gap, node, coef, move, mu_other, collider, other))
        if not len(point):
            return None
        mu = combined_friction(self._layout["mu"][point], mu_other)
        return ContactProblem(point, normal, gap, node, coef, move, mu, collider, other, self._num_sources(),
                              self._row_memory, self.settings.max_correction_speed * dt)

    def finish_problem(self, problem, x0, x1, dt):
        """Record the solved problem's contacts (and its rows for the next step's warm start); None: no contact."""
        if problem is None:
            self._row_memory.forget()
            self.contacts = Contacts.empty()
            return
        self.contacts = problem.finish(x0, x1, dt, self._layout["group"], len(self._layout["nodes"]))
        # the side hints: each detected row's point stays on the side its row holds it on
        none = np.zeros(0, np.int64)
        two_sided = (np.array([not c.one_sided for c in self.colliders], np.bool_),
                     np.array([not sf.closed for sf in self.surfaces], np.bool_))
        self._sides.after_correction(np.unique(problem.point), none, np.zeros((0, 3)), np.zeros(0, np.bool_), none,
                                     problem.point, problem.rows.frame[:, 0].copy(),
                                     row_sources(problem.collider, problem.other), problem.gap, self.settings.slop,
                                     two_sided)

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

    # -- solves -------------------------------------------------------------------------------------
    def predict(self, x0, v, inv_mass, dt, node_counts, frac0=0.0, frac1=1.0, v_last=None):
        """The contacts the motion x0 + dt v (all bodies' nodes; v a velocity guess) would violate, as a
        ContactPenalty for the implicit solve (None if there are none). v_last: the nodes' velocities at the end
        of the last step (default v), from which the friction springs' start is predicted (see friction_rows).
        A row's stiffness is STIFFNESS times its effective mass, scaled down where many rows share nodes so no node's
        diagonal block grows by more than NODE_STIFFNESS times its mass (CG would slow down)."""
        if self._idle():
            return None
        x0, v = self._start(x0, v, node_counts, frac0)
        v_last = v if v_last is None else np.ascontiguousarray(v_last, dtype=np.float64)
        rows = self._predicted_rows(x0, v, v_last, v_last, inv_mass, dt, frac0, frac1)
        if rows is None:
            return None
        node, coef, normal, r0, stiffness, point, collider, other, tangent, const, kappa, mu = rows
        return ContactPenalty(np.ascontiguousarray(node), np.ascontiguousarray(coef), np.ascontiguousarray(normal),
                              r0, stiffness, kappa, point, collider, other, tangent, const, mu, len(x0),
                              tolerance=self.settings.margin)

    def grow(self, penalty, x0, x, v_last, inv_mass, dt, frac0=0.0, frac1=1.0):
        """Add to `penalty` (in place) the rows of the points that a solve's motion x0 -> x brings into contact and
        that have none, pressing where it ends them inside; returns whether it added any. Predicted from the velocity
        under gravity, a point the body's own motion brings in is missed; the correction after the solve then stops it
        with velocity impulses on its nodes alone, which on a coarse cage's light outer nodes lift its neighbours (a
        2 m Suzanne resting on a floor: three render points jumped 8 mm every other step, and it never slept)."""
        x0 = np.ascontiguousarray(x0, dtype=np.float64)
        v = (np.ascontiguousarray(x, dtype=np.float64) - x0) / dt
        rows = self._predicted_rows(x0, v, v, np.ascontiguousarray(v_last, dtype=np.float64), inv_mass, dt, frac0,
                                    frac1, skip=penalty.point)
        if rows is None:
            return False
        penalty.add_rows(*rows)
        return True

    def _predicted_rows(self, x0, v, v_press, v_last, inv_mass, dt, frac0, frac1, skip=None):
        """The penalty rows of the contacts the motion x0 + dt v would violate (but those of the points `skip`):
        the arrays of a ContactPenalty; None if there are none. A row starts pressing if its point pushed last step
        or the velocities v_press carry it inside; v_last predicts the friction springs' start."""
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
        keep, kappa, r0, pressing = predicted_rows(point, gap, normal, node, coef, move, v, v_press, inv_mass,
                                                   self._memory.normal_force, dt, self.settings.slop,
                                                   self.settings.margin)
        if skip is not None:
            keep &= ~np.isin(point, skip)
        if not keep.any():
            return None
        mu = combined_friction(lay["mu"][point[keep]], mu_other[keep])
        rows = self._memory.friction_rows(x0, v_last, dt, node[keep], coef[keep], normal[keep], r0[keep],
                                          kappa[keep], pressing[keep], point[keep], collider[keep], other[keep],
                                          move[keep], mu, more=skip is not None)
        node, coef, normal, r0, stiffness, point, collider, other, tangent, const, kappa, mu = rows
        # a point found on one side of a two-sided surface stays on it for this step's correction: one resting
        # exactly on a plane that lifts off in the solve was otherwise taken to cross it from below, and held
        # under it (the box of a tipping block sank through the plane)
        pressed = ~tangent
        self._sides.keep_pressed(point[pressed], normal[pressed], row_sources(collider[pressed], other[pressed]))
        return rows

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
            pen_source = row_sources(penalty.collider[live], penalty.other[live])
        else:
            pen = np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.bool_), np.zeros((0, 3))
            pen_source = np.zeros(0, np.int64)
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
        two_sided = (np.array([not c.one_sided for c in self.colliders], np.bool_),
                     np.array([not sf.closed for sf in self.surfaces], np.bool_))
        self._sides.after_correction(ids, pen[0], pen[3], pen[2], pen_source, point, normal,
                                     row_sources(collider, other), gap, self.settings.slop, two_sided)
        contacts = Contacts(ends, normal, np.maximum(0.0, -gap), impulse / dt, lay["group"][point], collider, other)
        if alone.any():
            rows = np.zeros(len(penalty), np.bool_)
            rows[np.flatnonzero(live)[alone]] = True
            contacts = append_penalty_contacts(contacts, lay, x0, work, dt, penalty, rows, penalty_impulse)
        self.contacts = contacts
        return iters

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
                                 gap[wrong].max(initial=0.0) + 2.0 * self.settings.slop)

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

    def stabilize(self, x, inv_mass, dt, node_counts, frac=1.0, penalty=None):
        """Post-stabilisation: move nodes (x, in place; velocities untouched) so that leftover penetration
        shrinks by `stabilization` per step, no node by more than max_correction_speed · dt. Points that had rows in
        the step's `penalty` are left to them (they push back what lies deeper than the slop): a resting body sits
        slightly inside, where its rows carry its weight, and pushing it out by position every step turns into
        jitter (measured: 16 mm/s on a resting ball)."""
        if self._idle():
            return
        self._prepare(x, node_counts)
        xc = np.ascontiguousarray(x, dtype=np.float64)
        invm = np.ascontiguousarray(inv_mass, dtype=np.float64)
        zero = np.zeros_like(xc)
        rows, near_colliders = self._gather(xc, zero, 0.0, frac, frac, 0.0)
        if near_colliders:
            rows += self._edge_rows(xc, zero, 0.0, frac, frac, 0.0, rows)
        point, normal, gap, node, coef, _, _, _, _ = concat_rows(rows)
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
        # No node moves further than a row may push: a point inside two shells from opposite sides (a body in a gap
        # narrower than the two thicknesses) makes the rows contradict each other, and the least motion meeting them
        # both through different weights of one tet was 1e12 m
        length = np.linalg.norm(zero, axis=1)
        over = length > s.max_correction_speed * dt
        zero[over] *= (s.max_correction_speed * dt / length[over])[:, None]
        x += zero
