"""One step's contacts as the contact stage reports them (Contacts), and the points its penalty rows alone held."""
import numpy as np

from .edge_rows import contact_positions


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


def append_penalty_contacts(contacts, lay, x0, v, dt, penalty, rows, impulse):
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
    row_force = penalty.normal[chosen] * (impulse[chosen] / dt)[:, None]
    force = np.stack([np.bincount(where, row_force[:, d], len(slot)) for d in range(3)], axis=1)
    pt = penalty.point[head]
    ends = contact_positions(pt, penalty.node[head], penalty.coef[head], x0, v, dt, len(lay["nodes"]))
    join = [np.concatenate(pair) for pair in (
        (contacts.points, ends), (contacts.normals, penalty.normal[head]), (contacts.depths, np.zeros(len(pt))),
        (contacts.forces, force), (contacts.body, lay["group"][pt]),
        (contacts.collider, penalty.collider[head]), (contacts.other_body, penalty.other[head]))]
    return Contacts(*join)
