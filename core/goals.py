"""Goal springs: nodes pulled toward targets by springs k = m ω², damped like the body (a graded pin, as Blender's Soft
Body goal)."""
import numpy as np

from .carry import take
from .errors import InvalidInputError


def goal_omega2(frequency, n):
    """ω² per node (n,) of goal frequencies in Hz (None: no goals); InvalidInputError unless n finite numbers >= 0."""
    if frequency is None:
        return np.zeros(n)
    f = np.array(frequency, dtype=np.float64).reshape(-1)
    if f.shape != (n,) or not np.all(np.isfinite(f)) or np.any(f < 0):
        raise InvalidInputError(f"goal frequencies must be {n} finite numbers >= 0 in Hz (one per node)")
    return (2.0 * np.pi * f) ** 2


class Goals:
    """Per node of a World: its goal's ω² (1/s², 0 for none) and target. A node of mass m is pulled toward its
    target by the force m ω² (target − x + β (v_target − v)), β its body's stiffness damping (Rayleigh damping on
    the springs' stiffness as on the tets', relative to the target's motion so that a moving target is followed
    without lag), implicitly in the step (the spring enters the step's matrix as (βh + h²) ω² on the node's mass),
    so any ω is stable. Targets hold until set again; a change wakes the body (`moved`)."""

    def __init__(self):
        self.omega2 = np.zeros(0)
        self.target = np.zeros((0, 3))
        self.last = np.zeros((0, 3))    # the targets the last step ended at
        self.moved = np.zeros(0, dtype=bool)
        self.active = False              # whether any node has a goal

    def add_body(self, nodes, omega2):
        """Append a body's nodes (rest positions: the first targets) and their ω² (goal_omega2)."""
        n = len(nodes)
        self.omega2 = np.concatenate([self.omega2, omega2])
        self.target = np.concatenate([self.target, nodes])
        self.last = np.concatenate([self.last, nodes])
        self.moved = np.concatenate([self.moved, np.zeros(n, dtype=bool)])
        self.active = bool(self.omega2.any())

    def set_targets(self, nodes, positions):
        changed = np.any(self.target[nodes] != positions, axis=1)
        self.moved[nodes[changed]] = True
        self.target[nodes] = positions

    def carried(self):
        """What the next step reads (names "goals.*"): the goal nodes' targets and the targets the last step ended
        at (from which the next one's move is measured)."""
        nodes = self.omega2 > 0.0
        return {"goals.target": self.target[nodes], "goals.last": self.last[nodes]}

    def restorer(self, carried):
        """A function that takes back what carried() gave (checked now: InvalidInputError if it does not fit)."""
        nodes = np.flatnonzero(self.omega2 > 0.0)
        target = take(carried, "goals.target", (len(nodes), 3), np.float64)
        last = take(carried, "goals.last", (len(nodes), 3), np.float64)

        def restore():
            self.target[nodes] = target
            self.last[nodes] = last
            self.moved[:] = False
        return restore

    def step_terms(self, held, beta, dt):
        """(ω², targets, the targets' velocity over the step, β) per node for a step of dt, ω² zero on held nodes
        (pins, sleepers, driven bodies). beta: each node's stiffness damping (s)."""
        return np.where(held, 0.0, self.omega2), self.target, (self.target - self.last) / dt, beta

    def finish_step(self):
        """After a step: its targets are where the next one starts; their moves are told."""
        self.last[:] = self.target
        self.moved[:] = False
