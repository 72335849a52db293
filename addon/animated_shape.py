"""Where a body's animated shape (its object's motion, armature, hooks, shape keys) puts its cage: the start pose,
an Animated body's drive, and the targets of its pins and goals."""
import numpy as np

from . import bridge, scene_warnings


def driven_shape(obj, depsgraph, warn, what="it follows"):
    """The object's animated local vertex positions at this frame, or None (warned about: `what` then follows its
    object transform only) when they cannot be read."""
    driven = bridge.read_driven(obj, depsgraph)
    if driven is None:
        warn(scene_warnings.undriven(obj, what))
    return driven


def pose(obj, body, driven):
    """World cage node positions for the animated local vertex positions `driven` (None: the rest shape) at the
    object's current place: the nodes displaced as the shape displaces the mesh (the body's ShapeFit)."""
    local = body.tm.nodes
    if driven is not None:
        disp = driven - body.basis
        if disp.any():
            local = local + body.shape_fit().displacements(disp)
    return bridge.to_world(np.array(obj.matrix_world), local)


def pin_targets(obj, body, driven):
    """World targets of the pinned nodes for the animated local vertex positions `driven` (None: the rest shape): the
    nodes placed so that the pinned vertices they carry land on the shape."""
    local = body.tm.nodes[body.pinned] if driven is None else body.pin_fit.nodes(driven)
    return bridge.to_world(np.array(obj.matrix_world), local)


def frame_targets(obj, body, depsgraph, frame, warn):
    """(pin start, pin end, goal start, goal end) over the step to `frame` (None where the body has none): the pins
    go from where they are to their targets, the goals from the pose at frame − 1 (the frame's end pose when that
    frame was not simulated in this session: its targets then hold over the frame)."""
    has_goals = body.goal_frequency is not None
    if not len(body.pinned) and not has_goals:
        return None, None, None, None
    driven = driven_shape(obj, depsgraph, warn, "its pins follow")
    pins = (None, None)
    if len(body.pinned):
        pins = body.handle.x[body.pinned].copy(), pin_targets(obj, body, driven)
    goals = (None, None)
    if has_goals:
        end = pose(obj, body, driven)[body.handle.goal_nodes]
        goals = body.goal_poses.get(frame - 1, end), end
    return pins + goals
