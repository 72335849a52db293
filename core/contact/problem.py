"""One step's contact problem: the rows of one detection (core.contact.mlcp.ContactRows), warm-started from the last
step's rows of the same point and surface, solved with the step's linear system, and reported as Contacts."""
import numpy as np

from .contacts import Contacts
from .edge_rows import contact_positions
from .mlcp import ContactRows, solve_contact
from .sides import row_sources

GAP_TOLERANCE = 1e-5    # m: how far a row may end inside its surface (or slip while sticking) in a step
MAX_ITERATIONS = 400    # cap on the Conjugate Residual iterations of a solve


class RowMemory:
    """What carries from one step's rows to the next, per (point, surface) key: the force (world frame, N·s²),
    whether the row was active and sticking, its slip direction (world) and λ̃."""

    def __init__(self):
        self.key = np.zeros(0, np.int64)
        self.force = np.zeros((0, 3))
        self.active = np.zeros(0, np.bool_)
        self.static = np.zeros(0, np.bool_)
        self.slip = np.zeros((0, 3))
        self.kinetic = np.zeros(0)

    def recall(self, key, rows):
        """Warm-start `rows` (keys `key`) from the rows of the last step with the same keys."""
        if not len(self.key) or not len(key):
            return np.zeros(len(key), np.bool_)
        at = np.minimum(np.searchsorted(self.key, key), len(self.key) - 1)
        hit = self.key[at] == key
        i = at[hit]
        rows.force[hit] = np.einsum("rkd,rd->rk", rows.frame[hit], self.force[i])
        rows.active[hit] = self.active[i]
        rows.static[hit] = self.static[i]
        slip = np.einsum("rkd,rd->rk", rows.frame[hit][:, 1:], self.slip[i])
        length = np.linalg.norm(slip, axis=1)
        ok = length > 0.0
        slip[ok] /= length[ok, None]
        rows.slip[hit] = slip
        rows.kinetic[hit] = self.kinetic[i]
        return hit

    def store(self, key, rows):
        order = np.argsort(key, kind="stable")
        self.key = key[order]
        self.force = np.einsum("rkd,rk->rd", rows.frame, rows.force)[order]
        self.active = rows.active[order].copy()
        self.static = rows.static[order].copy()
        slip3 = np.einsum("rkd,rk->rd", rows.frame[:, 1:], rows.slip)
        self.slip = slip3[order]
        self.kinetic = rows.kinetic[order].copy()

    def forget(self):
        self.__init__()


class ContactProblem:
    """The contact rows of one step (detected once, with more added by the check after the solve) and their solve
    inside the implicit step (implicit_step's `contact`)."""

    def __init__(self, point, normal, gap, node, coef, move, mu, collider, other, num_sources, memory):
        self.memory = memory
        self.point, self.gap = point, gap
        self.collider, self.other = collider, other
        self.key = row_keys(point, collider, other, num_sources)
        rows = ContactRows(node, coef, normal, np.einsum("rd,rd->r", normal, move) - gap, np.zeros((len(point), 2)),
                           mu)
        rows.target[:, 1:] = np.einsum("rkd,rd->rk", rows.frame[:, 1:], move)
        warm = memory.recall(self.key, rows)
        # a row already entered at the start of the step starts active (the solve releases it if it pulls)
        rows.active |= ~warm & (rows.target[:, 0] > 0.0)
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

    def solve(self, system, b, dx, free, base, tolerance, load):
        """The Newton iteration's solve with these rows (see core.contact.mlcp.solve_contact); returns its Solve."""
        pinv = system.block_jacobi_inverse()
        out = solve_contact(system, b, dx, free, self.rows, pinv, tolerance, load, GAP_TOLERANCE, MAX_ITERATIONS,
                            base=base)
        self.iterations += out.iterations
        self.restarts += out.restarts
        self.converged = out.converged
        return out

    def finish(self, x0, x1, dt, group, num_render_points):
        """After the step (positions x0 -> x1): remember the rows for the next step, and the step's Contacts (the
        active rows, their forces in N)."""
        rows = self.rows
        self.memory.store(self.key, rows)
        act = np.flatnonzero(rows.active)
        v = (x1 - x0) / dt
        ends = contact_positions(self.point[act], rows.node[act], rows.coef[act], x0, v, dt, num_render_points)
        f = rows.force[act].copy()
        kinetic = ~rows.static[act]
        f[kinetic, 1:] = -(rows.mu[act][kinetic] * rows.kinetic[act][kinetic])[:, None] * rows.slip[act][kinetic]
        force = np.einsum("rkd,rk->rd", rows.frame[act], f) / (dt * dt)
        return Contacts(ends, rows.frame[act, 0].copy(), np.maximum(0.0, -self.gap[act]), force, group[self.point[act]],
                        self.collider[act], self.other[act])


def row_keys(point, collider, other, num_sources):
    """A row's key: its point and the surface it touches (colliders 0.., bodies −2 − b)."""
    source = row_sources(collider, other)
    return point.astype(np.int64) * (num_sources + 2) + (source + num_sources + 2) % (num_sources + 2)
