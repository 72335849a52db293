"""State: what a step changes (node positions and velocities, per-tet rotation and DAPD witness memory)."""
import numpy as np

from .fem.dapd import NO_WITNESS

_FIELDS = ("x", "v", "rot", "witness", "x_eval")


class State:
    """x, v (N,3); rot (M,3,3) last rotations (warm start); witness (M,) int8 DAPD witness pairs;
    x_eval (N,3) positions at which rotations were last evaluated: the DAPD detection path runs from
    there to the current positions (also when the caller wrote body.x: a write counts as a straight motion)."""

    def __init__(self, x, v, rot, witness, x_eval):
        self.x, self.v, self.rot, self.witness, self.x_eval = x, v, rot, witness, x_eval

    @classmethod
    def at_rest(cls, rest, num_tets):
        """Nodes at rest, zero velocity, identity rotations, no witnesses."""
        rot = np.zeros((num_tets, 3, 3))
        rot[:, 0, 0] = rot[:, 1, 1] = rot[:, 2, 2] = 1.0
        return cls(rest.copy(), np.zeros_like(rest), rot,
                   np.full(num_tets, NO_WITNESS, dtype=np.int8), rest.copy())

    @classmethod
    def concatenate(cls, states):
        return cls(*(np.concatenate([getattr(s, k) for s in states]) for k in _FIELDS))

    def copy(self):
        return State(*(getattr(self, k).copy() for k in _FIELDS))

    def assign(self, other):
        """Overwrite every array in place with other's values (keeps views valid)."""
        for k in _FIELDS:
            getattr(self, k)[...] = getattr(other, k)
