"""Adaptive substeps: how many steps the next frame takes, from the motion the bodies start it with."""
import math

import numpy as np

from .errors import InvalidInputError

# A node moves at most this fraction of its body's cell in one step, at the fastest speed anything has at the frame's
# start: fast falls and impacts
TRAVEL = 0.5
# and moves against its body's mean motion (deforms or turns) by at most this fraction of a cell a step: backward
# Euler damps a swing the more, the longer its step, and this bound keeps a landing's swing near the full substeps'
# (the sweep behind it: benchmarks/RESULTS.md, "Fast by default")
DEFORM = 0.1


def frame_substeps(world, frame_time, most, outside_speed=0.0):
    """Steps (1..most) for a frame of frame_time seconds: the fewest in which no node of an awake body travels more
    than TRAVEL of its body's cell per step, at the fastest speed of its body's nodes or of `outside_speed` (m/s: the
    fastest collider or pin target this frame), nor moves against its body's mean motion by more than DEFORM of a
    cell. One step when calm, `most` at an impact or while a body swings. It reads the state alone, so a frame takes
    the same steps played, scrubbed, resumed from a cache or baked."""
    if not (isinstance(most, (int, np.integer)) and most >= 1):
        raise InvalidInputError(f"most must be a whole number of steps, at least 1, got {most!r}")
    if not (math.isfinite(frame_time) and frame_time > 0.0 and math.isfinite(outside_speed)):
        raise InvalidInputError(f"frame_time must be positive and outside_speed finite, got {frame_time}, "
                                f"{outside_speed}")
    mass = world.model.mass
    steps = 1
    for body, sleeping in zip(world.bodies, world.asleep):
        if sleeping:
            continue
        h = body.mesh.cell_size
        if not h > 0.0:
            continue
        v = body.v
        m = mass[body.node_slice]
        own = v - (m @ v) / m.sum()
        speed = max(_fastest(v), abs(outside_speed))
        needed = max(speed / (TRAVEL * h), _fastest(own) / (DEFORM * h)) * frame_time
        steps = max(steps, math.ceil(needed - 1e-9))
        if steps >= most:
            return int(most)
    return int(steps)


def _fastest(v):
    return float(np.sqrt(np.einsum("nd,nd->n", v, v).max(initial=0.0)))
