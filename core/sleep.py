"""Sleeping: a body that has come to rest is frozen (no drift, and no cost when the whole world sleeps) until
something moves near it."""
import numpy as np

SLEEP_SPEED = 0.005   # m/s: a body whose fastest node stays below this ...
SLEEP_TIME = 0.5      # s: ... for this long falls asleep
WAKE_MARGIN = 0.01    # m: a moving body or collider this close to a sleeping body's box wakes it


class Sleep:
    """Per body: asleep or not, how long it has been quiet, and where it was frozen (to notice writes)."""

    def __init__(self):
        self.asleep = np.zeros(0, np.bool_)
        self.quiet = np.zeros(0)
        self.frozen = {}          # body index -> its node positions when it fell asleep

    def add_body(self):
        self.asleep = np.append(self.asleep, False)
        self.quiet = np.append(self.quiet, 0.0)

    def wake(self, bodies=None):
        """Wake the given body indices (all when None)."""
        idx = np.arange(len(self.asleep)) if bodies is None else np.asarray(bodies, np.int64).reshape(-1)
        for i in idx:
            self.asleep[i] = False
            self.quiet[i] = 0.0
            self.frozen.pop(int(i), None)

    def wake_disturbed(self, x, v, node_ranges, moved_nodes, moving_boxes):
        """Wake the sleeping bodies whose nodes were written since they fell asleep (x or v changed), that have
        a node in `moved_nodes` (pin targets that move), or whose box comes within WAKE_MARGIN of one of
        `moving_boxes` ((k,2,3) lo/hi: moving bodies' and colliders' swept boxes)."""
        for i in np.flatnonzero(self.asleep):
            a, b = node_ranges[i]
            xs = x[a:b]
            lo, hi = xs.min(axis=0) - WAKE_MARGIN, xs.max(axis=0) + WAKE_MARGIN
            near = len(moving_boxes) and np.any(np.all((moving_boxes[:, 0] <= hi) & (moving_boxes[:, 1] >= lo),
                                                       axis=1))
            if near or np.any(moved_nodes[a:b]) or np.any(v[a:b] != 0.0) \
                    or not np.array_equal(xs, self.frozen[int(i)]):
                self.wake([i])

    def after_step(self, x, v, node_ranges, dt):
        """Count quiet time from the step's velocities; bodies quiet long enough fall asleep (v = 0)."""
        for i in np.flatnonzero(~self.asleep):
            a, b = node_ranges[i]
            speed = np.sqrt(np.max(np.einsum("nd,nd->n", v[a:b], v[a:b]))) if b > a else 0.0
            self.quiet[i] = self.quiet[i] + dt if speed < SLEEP_SPEED else 0.0
            if self.quiet[i] >= SLEEP_TIME:
                self.asleep[i] = True
                v[a:b] = 0.0
                self.frozen[int(i)] = x[a:b].copy()

    def held_nodes(self, node_ranges, num_nodes):
        """Bool mask of the sleeping bodies' nodes."""
        held = np.zeros(num_nodes, np.bool_)
        for i in np.flatnonzero(self.asleep):
            a, b = node_ranges[i]
            held[a:b] = True
        return held
