"""The contact stage a World runs inside its Newton loop: detection, friction response, post-stabilisation."""
import numpy as np

from ..errors import InvalidInputError
from .bvh import BVH
from .colliders import Collider, ContactSettings
from .detect import detect
from .response import solve_contacts
from .surface import BodySurface, point_positions

HOLD_WEIGHT = 0.5   # a node is held by a contact whose impulse reaches it with at least this weight
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

    def set_held_reactions(self, reactions):
        """Forces from the reactions (N,3) of the nodes held in the World's contact pass: each node's reaction
        is shared among the contacts that held it, in proportion to their weights."""
        c_of, j_of, share = self._held
        self.forces = np.zeros_like(self.forces)
        for k in range(3):
            self.forces[:, k] = np.bincount(c_of, weights=share * reactions[j_of, k], minlength=len(self))

    def __repr__(self):
        return f"Contacts({len(self)})"


class _Candidates:
    """Compacted detector output for one triangle set: point id, triangle id, barycentric, normal, gap."""

    def __init__(self, slot_tri, slot_b, slot_n, slot_gap):
        pi, k = np.nonzero(slot_tri >= 0)
        self.point = pi
        self.tri = slot_tri[pi, k]
        self.bary = slot_b[pi, k]
        self.normal = slot_n[pi, k]
        self.gap = slot_gap[pi, k]


class ContactStage:
    """Colliders and body surfaces of a World, and the contact solve run on all bodies at once."""

    def __init__(self, settings=None):
        self.settings = settings if settings is not None else ContactSettings()
        self.colliders = []
        self.surfaces = []
        self.contacts = Contacts.empty()
        self.held = None
        self._layout = None
        self._collider_bvh = None

    # -- scene --------------------------------------------------------------------------------------
    def add_collider(self, vertices, triangles, friction=0.5, thickness=0.0, name=None):
        """Add a triangle mesh collider (world space); returns its handle for move_collider."""
        c = Collider(len(self.colliders), vertices, triangles, friction, thickness, name)
        self.colliders.append(c)
        self._collider_bvh = None
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
        # One BVH per body: a body's points are tested against the other bodies' triangles only.
        lay["bvhs"] = []
        if len(self.surfaces) > 1:
            toffs = np.concatenate([[0], np.cumsum(counts)])
            for i in range(len(self.surfaces)):
                if counts[i]:
                    sl = slice(toffs[i], toffs[i + 1])
                    others = np.flatnonzero(lay["group"] != i)
                    rest = np.concatenate([sf.rest for sf in self.surfaces])
                    lay["bvhs"].append((BVH(rest, lay["tris"][sl]), sl, others))
        self._layout = lay
        self._side_hint = np.zeros((len(lay["nodes"]), 3))

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
            self._collider_bvh = BVH(np.concatenate([c.start for c in live]), self._ctris)

    def _collider_positions(self, frac):
        return np.ascontiguousarray(np.concatenate([(1.0 - frac) * c.start + frac * c.end for c in self._live]))

    # -- detection ----------------------------------------------------------------------------------
    def _detect(self, p0, p1, group, v0, v1, tris, tri_group, tri_thick, tri_onesided, bvh, margin):
        s = self.settings
        bvh.refit(v0, v1, tri_thick + margin.max() + np.where(tri_onesided, s.search_depth, 0.0))
        npts = len(p0)
        K = s.max_contacts_per_point
        slot_tri = np.empty((npts, K), np.int64)
        slot_b = np.empty((npts, K, 3))
        slot_n = np.empty((npts, K, 3))
        slot_gap = np.empty((npts, K))
        detect(p0, p1, group, v0, v1, tris, tri_group, tri_thick, tri_onesided,
               bvh.left, bvh.right, bvh.start, bvh.count, bvh.order, bvh.lo, bvh.hi,
               margin, s.search_depth, self._side_hint, slot_tri, slot_b, slot_n, slot_gap)
        return _Candidates(slot_tri, slot_b, slot_n, slot_gap)

    def _gather(self, x0, v, dt, frac0, frac1, margin):
        """Candidates against colliders and against other bodies, as solver rows."""
        lay = self._layout
        rows = []
        self._collider_arrays()
        # Early outs on boxes: render points are convex combinations of their tet's nodes, so each body's
        # swept node box bounds its points' paths.
        x1 = x0 + dt * v
        offs = lay["offsets"]
        pad = self.settings.search_depth + self.settings.body_thickness + np.max(margin)
        boxes = np.array([[np.minimum(x0[a:b].min(axis=0), x1[a:b].min(axis=0)) - pad,
                           np.maximum(x0[a:b].max(axis=0), x1[a:b].max(axis=0)) + pad]
                          for a, b in zip(offs[:-1], offs[1:])])
        hit_collider = False
        if self._collider_bvh:
            c0 = self._collider_positions(frac0)
            c1 = self._collider_positions(frac1)
            reach = self._cthick.max()
            clo = np.minimum(c0.min(axis=0), c1.min(axis=0)) - reach
            chi = np.maximum(c0.max(axis=0), c1.max(axis=0)) + reach
            hit_collider = bool(np.any(np.all(boxes[:, 0] <= chi, axis=1) & np.all(boxes[:, 1] >= clo, axis=1)))
        near = np.all(boxes[:, None, 0] <= boxes[None, :, 1], axis=2) & np.all(
            boxes[:, None, 1] >= boxes[None, :, 0], axis=2)
        np.fill_diagonal(near, False)
        if not hit_collider and not near.any():
            return None, rows
        p0 = point_positions(x0, lay["nodes"], lay["weights"], 0.0, v)
        p1 = point_positions(x0, lay["nodes"], lay["weights"], dt, v) if dt > 0.0 else p0
        margin = np.full(len(p0), margin)
        if hit_collider:
            cand = self._detect(p0, p1, lay["group"], c0, c1, self._ctris, self._cgroup, self._cthick, self._conesided,
                                self._collider_bvh, margin)
            nc = len(cand.point)
            node = np.full((nc, STENCIL), -1, np.int64)
            coef = np.zeros((nc, STENCIL))
            node[:, :4] = lay["nodes"][cand.point]
            coef[:, :4] = lay["weights"][cand.point]
            tv = self._ctris[cand.tri]
            move = np.einsum("ck,ckd->cd", cand.bary, (c1 - c0)[tv])
            rows.append((cand, node, coef, move, self._cmu[cand.tri],
                         self._cindex[cand.tri], np.full(nc, -1)))
        for bvh, sl, others in lay["bvhs"]:
            if not near[lay["tri_group"][sl.start]].any():
                continue
            others = others[near[lay["tri_group"][sl.start], lay["group"][others]]]
            cand = self._detect(p0[others], p1[others], lay["group"][others], p0, p1, lay["tris"][sl],
                                lay["tri_group"][sl], lay["tri_thick"][sl], lay["tri_onesided"][sl], bvh,
                                margin[others])
            cand.point = others[cand.point]
            cand.tri = cand.tri + sl.start
            nc = len(cand.point)
            node = np.full((nc, STENCIL), -1, np.int64)
            coef = np.zeros((nc, STENCIL))
            node[:, :4] = lay["nodes"][cand.point]
            coef[:, :4] = lay["weights"][cand.point]
            tp = lay["tris"][cand.tri]
            node[:, 4:] = lay["nodes"][tp].reshape(nc, 12)
            coef[:, 4:] = -(cand.bary[:, :, None] * lay["weights"][tp]).reshape(nc, 12)
            rows.append((cand, node, coef, np.zeros((nc, 3)), lay["tri_mu"][cand.tri],
                         np.full(nc, -1), lay["tri_group"][cand.tri]))
        return p0, rows

    @staticmethod
    def _concat(rows):
        if not rows:
            e3, ei = np.zeros((0, 3)), np.zeros(0, np.int64)
            return ei, e3, np.zeros(0), np.zeros((0, STENCIL), np.int64), np.zeros((0, STENCIL)), e3, \
                np.zeros(0), ei, ei
        cand = [r[0] for r in rows]
        point = np.concatenate([c.point for c in cand])
        normal = np.concatenate([c.normal for c in cand]).reshape(-1, 3)
        gap = np.concatenate([c.gap for c in cand])
        node = np.ascontiguousarray(np.concatenate([r[1] for r in rows]))
        coef = np.ascontiguousarray(np.concatenate([r[2] for r in rows]))
        move = np.concatenate([r[3] for r in rows]).reshape(-1, 3)
        mu_other = np.concatenate([r[4] for r in rows])
        collider = np.concatenate([r[5] for r in rows]).astype(np.int64)
        other = np.concatenate([r[6] for r in rows]).astype(np.int64)
        return point, np.ascontiguousarray(normal), gap, node, coef, move, mu_other, collider, other

    def _prepare(self, x, node_counts):
        node_counts = tuple(int(n) for n in node_counts)
        if len(node_counts) != len(self.surfaces) or sum(node_counts) != len(x):
            raise InvalidInputError(f"{len(node_counts)} bodies given, {len(self.surfaces)} registered")
        if self._layout is None or self._layout["num_nodes"] != node_counts:
            self._build_layout(node_counts)

    def _idle(self):
        return not self.surfaces or (not any(len(c.triangles) for c in self.colliders) and len(self.surfaces) < 2)

    # -- solves -------------------------------------------------------------------------------------
    def solve(self, x0, v, inv_mass, dt, node_counts, frac0=0.0, frac1=1.0):
        """Correct the node velocities v (N,3, in place) so that no render point ends the step
        (positions x0 + dt v) through a collider or another body, with Coulomb friction.

        x0, v, inv_mass: all bodies' nodes (in body order, node_counts per body): positions at the
        start of the step, current velocities (the Newton iterate) and inverse lumped masses (0 for
        pinned nodes). frac0, frac1: the part of the colliders' motion (start -> end) this step
        covers. Records self.contacts; returns the solver iterations used (0: no contact work).
        """
        self.held = None
        if self._idle():
            self.contacts = Contacts.empty()
            return 0
        self._prepare(x0, node_counts)
        x0 = np.ascontiguousarray(x0, dtype=np.float64)
        work = np.ascontiguousarray(v, dtype=np.float64)
        invm = np.ascontiguousarray(inv_mass, dtype=np.float64)
        p0, rows = self._gather(x0, work, dt, frac0, frac1, self.settings.margin)
        point, normal, gap, node, coef, move, mu_other, collider, other = self._concat(rows)
        if np.all(other < 0):  # colliders only: the triangle side of the stencil is empty
            node, coef = np.ascontiguousarray(node[:, :4]), np.ascontiguousarray(coef[:, :4])
        lay = self._layout
        mu = combined_friction(lay["mu"][point], mu_other)
        vmin = np.where(gap >= 0.0, -gap / dt, 0.0)
        lam_n = np.zeros(len(point))
        lam_t = np.zeros((len(point), 3))
        iters = solve_contacts(work, invm, node, coef, normal, vmin, mu, np.zeros(len(point)),
                               np.ascontiguousarray(move / dt),
                               self.settings.iterations, self.settings.tolerance, lam_n, lam_t)
        impulse = lam_n[:, None] * normal + lam_t
        # Nodes a pushing collider contact reaches with a large weight are held by the World's contact pass,
        # moving like the (corrected) contact points they carry: the weighted mean of those points'
        # velocities. Body–body contacts hold nothing (holding both sides measured worse in stacks: the top
        # of three cubes drifted 1.7 cm instead of 3 mm). A node the impulse moves faster than the point itself
        # (a light outer cage node: invm_j |w_j| > Σ w² invm) is held too: left free, the impulse throws it
        # through its tets (a Suzanne landing at 4.5 m/s inverted 8 tets in one step, locked by the floor).
        node_invm = np.where(node >= 0, invm[np.maximum(node, 0)], 0.0)
        overshoot = node_invm * np.abs(coef) > (coef * coef * node_invm).sum(axis=1, keepdims=True)
        pushing = ((lam_n > 0.0) & (collider >= 0))[:, None] & ((np.abs(coef) >= HOLD_WEIGHT) | overshoot) \
            & (node >= 0)
        point_vel = np.einsum("cs,csd->cd", coef[:, :4], work[np.maximum(node[:, :4], 0)]
                              * (node[:, :4] >= 0)[:, :, None])
        c_of, s_of = np.nonzero(pushing)
        j_of = node[c_of, s_of]
        wgt = np.abs(coef[c_of, s_of])
        vel_of = point_vel[c_of]
        total = np.bincount(j_of, weights=wgt, minlength=len(x0))
        self.held = total > 0.0
        self.held_velocity = np.zeros((len(x0), 3))
        for k in range(3):
            self.held_velocity[:, k] = np.bincount(j_of, weights=wgt * vel_of[:, k], minlength=len(x0))
        self.held_velocity[self.held] /= total[self.held, None]
        if work is not v:
            v[...] = work
        self._side_hint[:] = 0.0
        self._side_hint[point] = normal
        ends = point_positions(x0, lay["nodes"][point], lay["weights"][point], dt, work)
        self.contacts = Contacts(ends, normal, np.maximum(0.0, -gap), impulse / dt, lay["group"][point],
                                 collider, other)
        self.contacts._held = (c_of, j_of, wgt / total[j_of])
        return iters

    def stabilize(self, x, inv_mass, dt, node_counts, frac=1.0):
        """Post-stabilisation: move nodes (x, in place; velocities untouched) so that leftover penetration
        shrinks by `stabilization` per step, at most max_correction_speed · dt."""
        if self._idle():
            return
        self._prepare(x, node_counts)
        xc = np.ascontiguousarray(x, dtype=np.float64)
        invm = np.ascontiguousarray(inv_mass, dtype=np.float64)
        zero = np.zeros_like(xc)
        _, rows = self._gather(xc, zero, 0.0, frac, frac, 0.0)
        point, normal, gap, node, coef, _, _, _, _ = self._concat(rows)
        deep = gap < 0.0
        if not deep.any():
            return
        s = self.settings
        push = np.minimum(s.stabilization * -gap[deep], s.max_correction_speed * dt)
        n = int(deep.sum())
        solve_contacts(zero, invm, np.ascontiguousarray(node[deep]), np.ascontiguousarray(coef[deep]),
                       np.ascontiguousarray(normal[deep]), push, np.zeros(n), np.zeros(n), np.zeros((n, 3)),
                       s.iterations, s.tolerance * dt, np.zeros(n), np.zeros((n, 3)))
        x += zero
