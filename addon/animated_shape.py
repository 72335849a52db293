"""Where a body's animated shape (its object's motion, armature, hooks, shape keys) puts its cage: the start pose,
an Animated body's drive, and the targets of its pins and goals."""
import numpy as np

from . import bridge, scene_warnings


def pose(obj, body, depsgraph, warn, what="it follows"):
    """World cage node positions of the object's animated shape and place at the current frame: the nodes displaced
    as the shape displaces the mesh (the body's ShapeFit)."""
    driven = bridge.read_driven(obj, depsgraph)
    local = body.tm.nodes
    if driven is None:
        warn(scene_warnings.undriven(obj, what))
    else:
        disp = driven - body.basis
        if disp.any():
            local = local + body.shape_fit().displacements(disp)
    return bridge.to_world(np.array(obj.matrix_world), local)


def pin_targets(obj, body, depsgraph, warn):
    """World targets of the pinned nodes at the current frame: the nodes placed so that the pinned vertices they carry
    land on the object's animated shape."""
    driven = bridge.read_driven(obj, depsgraph)
    if driven is None:
        warn(scene_warnings.undriven(obj, "its pins follow"))
        local = body.tm.nodes[body.pinned]
    else:
        local = body.pin_fit.nodes(driven)
    return bridge.to_world(np.array(obj.matrix_world), local)


def frame_targets(obj, body, depsgraph, frame, warn):
    """(pin start, pin end, goal start, goal end) over the step to `frame` (None where the body has none): the pins
    go from where they are to their targets, the goals from the pose at frame − 1 (the frame's end pose when that
    frame was not simulated in this session: its targets then hold over the frame)."""
    pins = (None, None)
    if len(body.pinned):
        pins = body.handle.x[body.pinned].copy(), pin_targets(obj, body, depsgraph, warn)
    goals = (None, None)
    if body.goal_frequency is not None:
        end = pose(obj, body, depsgraph, warn, "its pins follow")[body.handle.goal_nodes]
        goals = body.goal_poses.get(frame - 1, end), end
    return pins + goals
