"""The last step's accelerations, kept for the next step's CG warm start (the motion extrapolated)."""
import numpy as np


class LastMotion:
    """Each node's acceleration over the last step, for the next step's CG warm start (implicit_step): kept only for
    the bodies the World names (World._smooth_motion: converged, awake, touching nothing, backward Euler), and only
    while the velocities are the ones that step left (a write to the state, a new body or
    World.reset_preconditioner forgets it)."""

    def __init__(self):
        self.forget()

    def forget(self):
        self._acceleration = self._v_after = None

    def acceleration(self, v):
        """The last step's accelerations (N,3), or None if v is not what it left."""
        if self._v_after is None or self._v_after.shape != v.shape or not np.array_equal(self._v_after, v):
            return None
        return self._acceleration

    def record(self, v_before, v_after, dt, node_ranges, keep):
        """Remember (v_after − v_before) / dt on the bodies where `keep` (per body) is true, zero elsewhere."""
        if not keep.any():
            self.forget()
            return
        a = (v_after - v_before) / dt
        for body in np.flatnonzero(~keep):
            a[slice(*node_ranges[body])] = 0.0
        self._acceleration, self._v_after = a, v_after.copy()
