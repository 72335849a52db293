"""One step's contacts as the contact stage reports them."""
import numpy as np


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
