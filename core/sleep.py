"""Sleeping: an island of touching bodies that has come to rest is frozen (no drift, and no cost when the whole
world sleeps) until something moves near it. Islands sleep and wake as one, as in rigid-body engines: a body
resting on another never sleeps alone, so neither sees the other turn into an immovable obstacle."""
import numpy as np

from .components import components

SLEEP_SPEED = 0.005   # m/s: an island whose fastest render point stays below this ...
SLEEP_TIME = 0.5      # s: ... for this long falls asleep
WAKE_MARGIN = 0.01    # m: a moving body or collider this close to a sleeping body's box wakes its island


class Sleep:
    """Per body: asleep or not, how long it has been quiet, its island when it fell asleep, and where it was
    frozen (to notice writes)."""

    def __init__(self):
        self.asleep = np.zeros(0, np.bool_)
        self.quiet = np.zeros(0)
        self.island = np.zeros(0, np.int64)   # the lowest body index of the island it fell asleep with
        self.frozen = {}          # body index -> its node positions when it fell asleep

    def add_body(self):
        self.asleep = np.append(self.asleep, False)
        self.quiet = np.append(self.quiet, 0.0)
        self.island = np.append(self.island, len(self.island))

    def wake(self, bodies=None):
        """Wake the given body indices (all when None) with the islands they sleep in."""
        idx = np.arange(len(self.asleep)) if bodies is None else np.asarray(bodies, np.int64).reshape(-1)
        mates = np.isin(self.island, self.island[idx]) & self.asleep
        mates[idx] = True
        for i in np.flatnonzero(mates):
            self.asleep[i] = False
            self.quiet[i] = 0.0
            self.frozen.pop(int(i), None)

    def wake_disturbed(self, x, v, node_ranges, moved_nodes, moving_boxes):
        """Wake the sleeping islands with a body whose nodes were written since it fell asleep (x or v changed),
        that has a node in `moved_nodes` (pin targets that move), or whose box comes within WAKE_MARGIN of one
        of `moving_boxes` ((k,2,3) lo/hi: moving bodies' and colliders' swept boxes)."""
        disturbed = []
        for i in np.flatnonzero(self.asleep):
            a, b = node_ranges[i]
            xs = x[a:b]
            lo, hi = xs.min(axis=0) - WAKE_MARGIN, xs.max(axis=0) + WAKE_MARGIN
            near = len(moving_boxes) and np.any(np.all((moving_boxes[:, 0] <= hi) & (moving_boxes[:, 1] >= lo),
                                                       axis=1))
            if near or np.any(moved_nodes[a:b]) or np.any(v[a:b] != 0.0) \
                    or not np.array_equal(xs, self.frozen[int(i)]):
                disturbed.append(i)
        if disturbed:
            self.wake(disturbed)

    def after_step(self, x, v, node_ranges, dt, touching, moving):
        """Count quiet time from `moving` (per body: what is seen of it moved at SLEEP_SPEED or faster this step); an
        island (bodies linked by the (k,2) body-index pairs `touching`) whose bodies have all been quiet long enough
        falls asleep (v = 0); an island with awake and sleeping bodies wakes them all."""
        for i in np.flatnonzero(~self.asleep):
            self.quiet[i] = 0.0 if moving[i] else self.quiet[i] + dt
        island = components(len(self.asleep), touching)
        for label in np.unique(island[~self.asleep]):
            members = np.flatnonzero(island == label)
            if self.asleep[members].any():
                # an awake body touching a sleeping one wakes it: held, the sleeper would be an immovable
                # obstacle to the body (its contacts, predicted for a free fall, miss a body held above it)
                self.wake(members[self.asleep[members]])
            elif np.all(self.quiet[members] >= SLEEP_TIME):
                for i in members:
                    a, b = node_ranges[i]
                    v[a:b] = 0.0
                    self.frozen[int(i)] = x[a:b].copy()
                self.asleep[members] = True
                self.island[members] = label

    def held_nodes(self, node_ranges, num_nodes):
        """Bool mask of the sleeping bodies' nodes."""
        held = np.zeros(num_nodes, np.bool_)
        for i in np.flatnonzero(self.asleep):
            a, b = node_ranges[i]
            held[a:b] = True
        return held


def seen_moving(bodies, asleep):
    """Per awake body, whether what is seen of it moves at SLEEP_SPEED or faster: its embedded render points, or its
    nodes. (A cage's nodes outside the surface are not seen: on a 1 m ball resting at the defaults, a light one
    below the floor kept flipping at ±5.1 mm/s with the contact set at the patch's rim, its render points at
    3.8 mm/s at most, and the ball never fell asleep.)"""
    moving = np.zeros(len(bodies), np.bool_)
    for i, body in enumerate(bodies):
        if asleep[i]:
            continue
        v = body.v
        if body.mesh.embedding is not None:
            moving[i] = body.mesh.embedding.reaches(v, SLEEP_SPEED)
        else:
            moving[i] = len(v) > 0 and np.max(np.einsum("nd,nd->n", v, v)) >= SLEEP_SPEED ** 2
    return moving


def swept_boxes(x, v, node_ranges, asleep, dt, gravity, colliders):
    """The boxes ((k,2,3) lo/hi) the awake bodies still moving (at SLEEP_SPEED or faster) sweep over a step of dt
    under gravity, and the moving colliders' over their move; and whether any collider moves."""
    boxes = []
    for i in np.flatnonzero(~asleep):
        a, b = node_ranges[i]
        if b > a and np.max(np.abs(v[a:b])) >= SLEEP_SPEED:
            ends = np.concatenate([x[a:b], x[a:b] + dt * (v[a:b] + dt * gravity)])
            boxes.append((ends.min(axis=0), ends.max(axis=0)))
    moving_collider = False
    for c in colliders:
        if len(c.start) and not np.array_equal(c.start, c.end):
            ends = np.concatenate([c.start, c.end])
            boxes.append((ends.min(axis=0), ends.max(axis=0)))
            moving_collider = True
    return np.array(boxes).reshape(-1, 2, 3), moving_collider
