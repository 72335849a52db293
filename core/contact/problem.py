"""One step's contact problem: the rows of one detection (core.contact.mlcp.ContactRows), their friction bounds
carried from the last step's rows of the same point and surface, solved with the step's linear system, and reported
as Contacts."""
import numpy as np

from ..carry import take
from ..errors import InvalidInputError
from ..jit import njit
from .contacts import Contacts
from .edge_rows import contact_positions
from .edges import SAME_SURFACE_COSINE
from .groups import solve_by_groups
from .mlcp import ContactRows
from .sides import row_sources

GAP_TOLERANCE = 1e-5    # m: how far a row may end inside its surface (or slip while sticking) in a step
MAX_ITERATIONS = 1000   # cap on the Conjugate Gradient iterations of a solve (all its Newton steps), above a hard landing's


class RowMemory:
    """What carries from one step's rows to the next, per (point, surface) key: the normal force its friction bound is
    scaled with (the last solve's λ, kept in N so that the next step may be longer or shorter: λ̃ = force Δt²), and
    the friction anchor: the row's tangential give (world, within its stick zone E_t μ λ̃), from which the next step's
    row starts, so that a sticking contact holds its force without creeping by its give every step."""

    def __init__(self):
        self.key = np.zeros(0, np.int64)
        self.force = np.zeros(0)
        self.stretch = np.zeros((0, 3))

    def recall(self, key, rows, dt):
        """Start `rows` (keys `key`) of a step of dt seconds from the last step's forces and anchors of the same keys."""
        if not len(self.key) or not len(key):
            return
        at = np.minimum(np.searchsorted(self.key, key), len(self.key) - 1)
        hit = np.flatnonzero(self.key[at] == key)
        rows.kinetic[hit] = rows.carried[hit] = self.force[at[hit]] * (dt * dt)
        rows.target[hit, 1:] -= np.einsum("rkd,rd->rk", rows.frame[hit, 1:], self.stretch[at[hit]])

    def store(self, key, rows, dt):
        order = np.argsort(key, kind="stable")
        self.key = key[order]
        self.force = rows.kinetic[order] / (dt * dt)
        self.stretch = rows.stretch[order].copy()

    def forget(self):
        self.__init__()

    def carried(self, prefix):
        """Its arrays (keys, forces, anchors), named prefix + key / force / stretch (see World.carried)."""
        return {prefix + "key": self.key.copy(), prefix + "force": self.force.copy(),
                prefix + "stretch": self.stretch.copy()}

    def restorer(self, carried, prefix):
        """A function that takes back what carried(prefix) gave (checked now: InvalidInputError if it does not fit)."""
        key = take(carried, prefix + "key", (None,), np.int64)
        force = take(carried, prefix + "force", (len(key),), np.float64)
        stretch = take(carried, prefix + "stretch", (len(key), 3), np.float64)
        if np.any(np.diff(key) < 0):
            raise InvalidInputError(f"the carried '{prefix}key' is not sorted")

        def restore():
            self.key, self.force, self.stretch = key, force, stretch
        return restore


class ContactProblem:
    """The contact rows of one step (detected once, with more added by the check after the solve) and their solve
    inside the implicit step (implicit_step's `contact`)."""

    def __init__(self, point, normal, gap, node, coef, move, mu, collider, other, num_sources, memory, push_out, dt):
        """A point found `gap` (m, negative: inside) from its surface, which moves by `move` (m), comes out by at
        most push_out (m) in the step: a body started inside another comes out gradually, not launched."""
        self.memory = memory
        self.point, self.gap = point, gap
        self.collider, self.other = collider, other
        self.key = row_keys(point, collider, other, num_sources)
        target_n = np.einsum("rd,rd->r", normal, move) - np.maximum(gap, -push_out)
        rows = ContactRows(node, coef, normal, target_n, np.zeros((len(point), 2)), mu)
        rows.target[:, 1:] = np.einsum("rkd,rd->rk", rows.frame[:, 1:], move)
        memory.recall(self.key, rows, dt)
        self.rows = rows
        self.iterations = 0
        self.restarts = 0
        self.converged = True

    @property
    def node(self):
        return self.rows.node

    def __len__(self):
        return len(self.rows)

    def add(self, other_problem):
        """Add the rows of `other_problem` (found by the check after a solve) to these."""
        self.rows = ContactRows.joined(self.rows, other_problem.rows)
        for name in ("point", "gap", "collider", "other", "key"):
            setattr(self, name, np.concatenate([getattr(self, name), getattr(other_problem, name)]))

    def solve(self, system, b, dx, free, base, tolerance, load, multigrid=None):
        """The Newton iteration's solve with these rows, by groups of bodies they connect (core.contact.groups);
        returns its Solve."""
        pinv = system.block_jacobi_inverse()
        out = solve_by_groups(system, b, dx, free, self.rows, pinv, tolerance, load, GAP_TOLERANCE, MAX_ITERATIONS,
                            base=base, multigrid=multigrid)
        self.iterations += out.iterations
        self.restarts += out.restarts
        self.converged = out.converged
        return out

    def finish(self, x0, x1, dt, group, num_render_points):
        """After the step (positions x0 -> x1): remember the rows for the next step, and the step's Contacts (the
        active rows, their forces in N)."""
        rows = self.rows
        self.memory.store(self.key, rows, dt)
        act = np.flatnonzero(rows.active)
        v = (x1 - x0) / dt
        ends = contact_positions(self.point[act], rows.node[act], rows.coef[act], x0, v, dt, num_render_points)
        force = np.einsum("rkd,rk->rd", rows.frame[act], rows.force[act]) / (dt * dt)
        return Contacts(ends, rows.frame[act, 0].copy(), np.maximum(0.0, -self.gap[act]), force, group[self.point[act]],
                        self.collider[act], self.other[act])


def distinct_rows(key, gap, normal, node, coef):
    """Which rows to keep (bool per row): of the rows of one key (a point and a surface), the deepest (lowest gap),
    then each one whose normal is not within SAME_SURFACE_DEGREES of a kept one's (a point on a vertex of the other
    body's refined face meets every coplanar triangle around it, rows that only add redundancy; a point in a collider's concave corner keeps
    a row per wall), or that holds the body at another place (its own part of the stencil, the first 4 nodes, differs:
    a render edge lying across two rims of a bar keeps a row at each, or its one row would jump between them)."""
    order = np.lexsort((gap, key))
    return _distinct(key, normal, node, coef, order, SAME_SURFACE_COSINE)


@njit(cache=True)
def _distinct(key, normal, node, coef, order, cosine):
    keep = np.zeros(len(key), np.bool_)
    own = min(4, node.shape[1])
    start = 0
    while start < len(order):
        end = start
        while end < len(order) and key[order[end]] == key[order[start]]:
            end += 1
        for i in range(start, end):
            r = order[i]
            keep[r] = True
            for j in range(start, i):
                q = order[j]
                if not keep[q] or (normal[r, 0] * normal[q, 0] + normal[r, 1] * normal[q, 1]
                                   + normal[r, 2] * normal[q, 2]) <= cosine:
                    continue
                same = True
                for k in range(own):
                    if node[r, k] != node[q, k] or abs(coef[r, k] - coef[q, k]) > 1e-3:
                        same = False
                        break
                if same:
                    keep[r] = False
                    break
        start = end
    return keep


def row_keys(point, collider, other, num_sources):
    """A row's key: its point and the surface it touches (colliders 0.., bodies −2 − b)."""
    source = row_sources(collider, other)
    return point.astype(np.int64) * (num_sources + 2) + (source + num_sources + 2) % (num_sources + 2)
