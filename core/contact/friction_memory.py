"""Per-render-point friction memory between steps: normal force and the anchor a touching point's friction spring
pulls towards (elasto-plastic Coulomb friction)."""
import math

import numpy as np

from ..carry import take
from ..errors import InvalidInputError
from ..jit import njit
from .distinct_points import compact_points, release_points

NONE, ANCHORED = 0, 1    # a point's friction state from the last step: no contact, or touching with an anchor


class FrictionMemory:
    """What the next step's friction rows need of each render point that touched in the last step: its normal
    force (N) and its anchor. A touching point's friction is a spring to its anchor, whose force is capped at
    μ times the normal force: where the spring would pull harder the point slides and its anchor is dragged
    behind it (drag_anchors), so the spring keeps pulling with μ f_n against the slide."""

    def __init__(self, num_points):
        self.normal_force = np.zeros(num_points)
        self.mode = np.zeros(num_points, np.int8)     # NONE or ANCHORED
        self.anchor = np.zeros((num_points, 3))       # where an anchored point's spring pulls (collider contacts)
        # body–body: the stencil of the row the point was anchored on (its own nodes, and the other body's
        # triangle point at the barycentric coordinates of that moment) and their relative position then, so
        # the point is anchored to that material point of the other body (allocated at the first such contact)
        self.pair_node = np.full((0, 16), -1, np.int64)
        self.pair_coef = np.zeros((0, 16))
        self.pair_rel = np.zeros((num_points, 3))
        self.pair_other = np.full(num_points, -1, np.int64)
        # the anchors the step's rows were built on: (the rows' points, their anchors, their relative positions)
        self._start = (np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros((0, 3)))
        self._touched = np.zeros(0, np.int64)         # the points holding state (cleared by the next update)
        self.slot = np.full(num_points, -1, np.int64)   # scratch: a point's index in a step's list (−1 outside kernels)

    def carried(self, prefix):
        """The state of the points holding any (the last update's), named prefix + field (see World.carried); the
        other points are at their defaults."""
        p = self._touched
        out = {prefix + "points": p.copy(), prefix + "normal_force": self.normal_force[p], prefix + "mode": self.mode[p],
               prefix + "anchor": self.anchor[p], prefix + "pair_rel": self.pair_rel[p],
               prefix + "pair_other": self.pair_other[p], prefix + "pair_width": np.array(self.pair_node.shape[1]),
               prefix + "paired": np.array(len(self.pair_node) > 0)}
        if len(self.pair_node):
            out[prefix + "pair_node"], out[prefix + "pair_coef"] = self.pair_node[p], self.pair_coef[p]
        return out

    def restorer(self, carried, prefix):
        """A function that takes back what carried(prefix) gave (checked now: InvalidInputError if it does not fit)."""
        n = len(self.mode)
        p = take(carried, prefix + "points", (None,), np.int64)
        if np.any((p < 0) | (p >= n)):
            raise InvalidInputError(f"the carried '{prefix}points' names points this world does not have")
        k = len(p)
        fresh = FrictionMemory(n)
        fresh.normal_force[p] = take(carried, prefix + "normal_force", (k,), np.float64)
        fresh.mode[p] = take(carried, prefix + "mode", (k,), np.int8)
        fresh.anchor[p] = take(carried, prefix + "anchor", (k, 3), np.float64)
        fresh.pair_rel[p] = take(carried, prefix + "pair_rel", (k, 3), np.float64)
        fresh.pair_other[p] = take(carried, prefix + "pair_other", (k,), np.int64)
        width = int(take(carried, prefix + "pair_width", (), np.int64))
        if bool(take(carried, prefix + "paired", (), np.bool_)):
            fresh.pair_node = np.full((n, width), -1, np.int64)
            fresh.pair_coef = np.zeros((n, width))
            fresh.pair_node[p] = take(carried, prefix + "pair_node", (k, width), np.int64)
            fresh.pair_coef[p] = take(carried, prefix + "pair_coef", (k, width), np.float64)
        fresh._touched = p

        def restore():
            self.__dict__.update(fresh.__dict__)
        return restore

    def update(self, point, impulse, normal, node, coef, other, x0, v, dt, point_nodes, point_weights):
        """Record the step's contacts (rows: point, impulse N·s on the body, normal, stencil node/coef, other body)
        at the end of the step (node positions x0 + dt v): per point, its normal force; a point pushed this step
        is ANCHORED, where it ends the step if it was not before (on a collider: that place; on another body
        (`other` ≥ 0): the material point of that body it touches). Points past the render points (point_nodes
        (P,4)) are render edges: they keep their normal force, and their friction is anchored afresh each step."""
        if len(self.pair_node) == 0 and node.shape[1] == self.pair_node.shape[1] and np.any(other >= 0):
            self.pair_node = np.full((len(self.mode), node.shape[1]), -1, np.int64)
            self.pair_coef = np.zeros((len(self.mode), node.shape[1]))
        self._touched = _update(point, impulse, normal, node, coef, other, x0, v, dt, point_nodes, point_weights,
                                self.mode, self.anchor, self.normal_force, self.pair_node, self.pair_coef,
                                self.pair_rel, self.pair_other, self._touched, self.slot)

    def friction_rows(self, x0, v, dt, node, coef, normal, r0, kappa, pressing, point, collider, other, move, mu,
                      more=False):
        """The normal rows plus two friction rows (tangents t1, t2 of its first row's normal) for each point with
        μ > 0. The normal rows share their point's last normal force as their multiplier. A friction row's value
        is its point's tangential offset from its anchor (moving with a collider; on another body, that body's
        material point; a point not anchored is anchored where it starts the step); its spring starts as stiff as
        μ times the last normal force allows at the offset the velocities v would make (the last step's: a point
        that slid is predicted to slide on, one that stuck to stick). Normal rows not `pressing` start released. Returns the rows
        (node, coef, normal, r0, kappa, point, collider, other), the friction-row mask, the multipliers (force
        times dt²), the rows' spring stiffnesses to start with, and μ per row. `more`: the rows join the step's
        rows (of other points) built before."""
        normal_rows = np.bincount(point, minlength=len(self.mode))
        const_n = self.normal_force[point] * dt * dt / normal_rows[point]
        src, new_node, new_coef, direction, rr, start = _friction_rows(
            node, coef, normal, kappa, point, collider, other, move, mu, x0, v, dt, self.mode, self.anchor,
            self.normal_force, self.pair_node, self.pair_coef, self.pair_rel, self.pair_other, self.slot)
        # only the rows' points are dragged (copying every render point's anchor took ~1.2 ms a step on the 36k-point
        # bunny, measured)
        held = np.unique(point)
        anchors = (held, self.anchor[held], self.pair_rel[held])
        self._start = tuple(np.concatenate(pair) for pair in zip(self._start, anchors)) if more else anchors
        n = len(r0)
        tangent = np.zeros(n + len(src), np.bool_)
        tangent[n:] = True
        return (np.concatenate([node, new_node]), np.concatenate([coef, new_coef]),
                np.concatenate([normal, direction]), np.concatenate([r0, rr]), np.concatenate([kappa, kappa[src]]),
                np.concatenate([point, point[src]]), np.concatenate([collider, collider[src]]),
                np.concatenate([other, other[src]]), tangent, np.concatenate([const_n, np.zeros(len(src))]),
                np.concatenate([np.where(pressing, kappa, 0.0), start]), np.concatenate([mu, mu[src]]))

    def drag_anchors(self, penalty, displacement):
        """After the step's solve (node displacements d = x − x_n): a point whose friction spring ends stretched
        beyond μ f_n / κ slid; its anchor is dragged to that distance behind it (from where the step's rows had
        it: calling this again for the same step gives the same anchors)."""
        held, anchor, rel = self._start
        self.anchor[held], self.pair_rel[held] = anchor, rel
        if not penalty.tangent.any():
            return
        r = penalty.residuals(displacement)
        force = penalty.const - penalty.kappa * r
        _drag(penalty.point, penalty.tangent, penalty.normal, penalty.collider, penalty.stiffness, penalty.mu,
              force, r, self.anchor, self.pair_rel, self.slot)


@njit(cache=True)
def _drag(point, tangent, direction, collider, stiffness, mu, force, r, anchor, pair_rel, slot):
    """Drag each point's anchor (a collider contact's; else its body–body relative position) by the part of its
    tangential offset (its friction rows' values r along their directions) beyond μ Σ f_n / κ (force: the rows'
    forces times dt², the normal rows' summed per point)."""
    n = point.shape[0]
    ids = compact_points(point, slot)
    k = ids.shape[0]
    fn = np.zeros(k)
    u = np.zeros((k, 3))
    cap = np.zeros(k)
    on_collider = np.zeros(k, np.bool_)
    for c in range(n):
        q = slot[point[c]]
        if not tangent[c]:
            fn[q] += max(force[c], 0.0)
            continue
        for d in range(3):
            u[q, d] += r[c] * direction[c, d]
        cap[q] = mu[c] / stiffness[c] if stiffness[c] > 0.0 else 0.0
        on_collider[q] = collider[c] >= 0
    release_points(ids, slot)
    for q in range(k):
        p = ids[q]
        length = math.sqrt(u[q, 0] ** 2 + u[q, 1] ** 2 + u[q, 2] ** 2)
        reach = cap[q] * fn[q]
        if length <= reach or length == 0.0:
            continue
        f = (length - reach) / length
        for d in range(3):
            if on_collider[q]:
                anchor[p, d] += f * u[q, d]
            else:
                pair_rel[p, d] += f * u[q, d]


@njit(cache=True)
def _friction_rows(node, coef, normal, kappa, point, collider, other, move, mu, x0, v, dt, mode, anchor,
                   normal_force, pair_node, pair_coef, pair_rel, pair_other, slot):
    """Per point's first row with μ > 0: two friction rows along t1 = n × (x or y axis), t2 = n × t1. Returns the
    source row, stencil, direction, r0 and starting spring stiffness of each."""
    nc, S = node.shape
    first = np.empty(nc, np.int64)
    k = 0
    for c in range(nc):
        p = point[c]
        if slot[p] < 0 and mu[c] > 0.0:   # no friction rows where there is no friction
            slot[p] = c
            first[k] = c
            k += 1
    src = np.empty(2 * k, np.int64)
    new_node = np.empty((2 * k, S), np.int64)
    new_coef = np.empty((2 * k, S))
    direction = np.empty((2 * k, 3))
    rr = np.zeros(2 * k)
    start = np.zeros(2 * k)
    for i in range(k):
        c = first[i]
        p = point[c]
        slot[p] = -1
        offset = np.zeros(3)   # its position at the step's start minus its anchor's
        stencil_node, stencil_coef = node[c], coef[c]
        if mode[p] == ANCHORED and collider[c] >= 0:
            _add_position(stencil_node, stencil_coef, x0, offset)
            for d in range(3):
                offset[d] -= anchor[p, d] + move[c, d]
                anchor[p, d] += move[c, d]
        elif mode[p] == ANCHORED and pair_node.shape[0] > 0 and pair_other[p] == other[c] and pair_node.shape[1] == S:
            stencil_node, stencil_coef = pair_node[p], pair_coef[p]
            _add_position(stencil_node, stencil_coef, x0, offset)
            for d in range(3):
                offset[d] -= pair_rel[p, d]
        else:   # anchored where it starts the step, moving with the surface
            for d in range(3):
                offset[d] = -move[c, d]
        predicted = offset.copy()   # and where the velocities v take it
        for s in range(S):
            j = stencil_node[s]
            if j >= 0:
                for d in range(3):
                    predicted[d] += dt * stencil_coef[s] * v[j, d]
        nx, ny, nz = normal[c, 0], normal[c, 1], normal[c, 2]
        if abs(nx) < 0.9:
            t1x, t1y, t1z = 0.0, nz, -ny
        else:
            t1x, t1y, t1z = -nz, 0.0, nx
        length = math.sqrt(t1x * t1x + t1y * t1y + t1z * t1z)
        t1x, t1y, t1z = t1x / length, t1y / length, t1z / length
        t2x, t2y, t2z = ny * t1z - nz * t1y, nz * t1x - nx * t1z, nx * t1y - ny * t1x
        a1 = t1x * predicted[0] + t1y * predicted[1] + t1z * predicted[2]
        a2 = t2x * predicted[0] + t2y * predicted[1] + t2z * predicted[2]
        slide = math.sqrt(a1 * a1 + a2 * a2)
        cap = mu[c] * normal_force[p] * dt * dt   # the friction force's bound, times dt²
        if cap <= 0.0:   # no normal force yet: no friction until its rows press
            spring = 0.0
        else:
            spring = kappa[c] if slide * kappa[c] <= cap else cap / slide
        e = 2 * i
        for tx, ty, tz in ((t1x, t1y, t1z), (t2x, t2y, t2z)):
            src[e] = c
            new_node[e] = stencil_node
            new_coef[e] = stencil_coef
            direction[e, 0], direction[e, 1], direction[e, 2] = tx, ty, tz
            rr[e] = tx * offset[0] + ty * offset[1] + tz * offset[2]
            start[e] = spring
            e += 1
    return src, new_node, new_coef, direction, rr, start


@njit(cache=True)
def _add_position(stencil_node, stencil_coef, x, out):
    """out += Σ_s coef_s x[node_s] (a stencil's point at node positions x)."""
    for s in range(stencil_node.shape[0]):
        j = stencil_node[s]
        if j >= 0:
            for d in range(3):
                out[d] += stencil_coef[s] * x[j, d]


@njit(cache=True)
def _update(point, impulse, normal, node, coef, other, x0, v, dt, point_nodes, point_weights, mode, anchor,
            normal_force, pair_node, pair_coef, pair_rel, pair_other, touched, slot):
    nc, S = node.shape
    pts = compact_points(point, slot)
    k = pts.shape[0]
    total = np.zeros((k, 3))
    normal_p = np.zeros((k, 3))
    last = np.empty(k, np.int64)
    for c in range(nc):   # a point's impulses add up; its normal is its last row's
        r = slot[point[c]]
        last[r] = c
        for d in range(3):
            total[r, d] += impulse[c, d]
            normal_p[r, d] = normal[c, d]
    new_mode = np.empty(k, np.int8)
    new_force = np.empty(k)
    for r in range(k):
        p = pts[r]
        lam_n = total[r, 0] * normal_p[r, 0] + total[r, 1] * normal_p[r, 1] + total[r, 2] * normal_p[r, 2]
        m = ANCHORED if lam_n > 0.0 and p < point_nodes.shape[0] else NONE
        if m == ANCHORED and mode[p] != ANCHORED:
            anchor[p] = 0.0
            for s in range(point_nodes.shape[1]):
                j = point_nodes[p, s]
                if j >= 0:
                    for d in range(3):
                        anchor[p, d] += point_weights[p, s] * (x0[j, d] + dt * v[j, d])
            c = last[r]
            pair_other[p] = other[c]
            if other[c] >= 0 and pair_node.shape[0] > 0:
                pair_rel[p] = 0.0
                for s in range(S):
                    j = node[c, s]
                    pair_node[p, s] = j
                    pair_coef[p, s] = coef[c, s]
                    if j >= 0:
                        for d in range(3):
                            pair_rel[p, d] += coef[c, s] * (x0[j, d] + dt * v[j, d])
        new_mode[r] = m
        new_force[r] = max(lam_n, 0.0) / dt
    for p in touched:
        mode[p] = NONE
        normal_force[p] = 0.0
    for r in range(k):
        p = pts[r]
        mode[p] = new_mode[r]
        normal_force[p] = new_force[r]
    release_points(pts, slot)
    return pts.copy()
