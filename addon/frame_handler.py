"""The frame handler's body: show each frame of a scene (simulating it where it follows the cache), never raising at
the user, and tell the handler's own write-back from a user's edits."""
import time

import bpy

from . import animation, bridge, mesh_hashes, readiness
from .report import one_line
from .scene_settings import frame_range, soft_bodies
from .session import session_for
from .soft_body import give_unique_cache_ids

_writing = False   # the frame handler is writing back: its own depsgraph updates are not edits
# The soft bodies the last frame handler wrote without evaluating its write (see frame_changed): the first depsgraph
# update after it evaluates that write, which is not an edit.
_written = set()


def edited(depsgraph):
    """A depsgraph update (a user's edit: weight paint, edit mode, operators): forget the mesh hashes of the
    objects whose data it changed. The frame handler's own write-back is not an edit: evaluated inside the handler
    (while _writing), or, where the handler cannot evaluate it, in the first update after it, where a body it wrote
    that is in Object Mode and whose mesh hashes the same keeps its hashes (a weight changed by a script between
    a frame change and the next evaluation is then missed; weights are painted in Weight Paint Mode)."""
    global _written
    written, _written = _written, set()
    if _writing or not mesh_hashes.any_cached():
        return
    names = {u.id.original.name for u in depsgraph.updates
             if u.is_updated_geometry and isinstance(u.id, bpy.types.Object)}
    for name in names & written:
        obj = bpy.data.objects.get(name)
        if obj is not None and obj.mode == 'OBJECT' and mesh_hashes.unchanged(obj):
            names.discard(name)
    if names:
        mesh_hashes.forget(names)


def output_strain_toggled(obj, scene):
    """A body's Output Strain was toggled: off, its strain attributes go at once; on, the frame is shown again, with
    them."""
    if not obj.softfem.output_strain:
        if bridge.remove_attributes(obj.data, bridge.STRAIN_ATTRIBUTES):
            obj.data.update()
    elif scene is not None and obj.softfem.enabled:
        frame_changed(scene, bpy.context.evaluated_depsgraph_get())


def _visibility_animated(scene):
    """Whether an object's Disable in Viewports or in Renders may be animated (keyframes, drivers or NLA strips)."""
    return any(o.animation_data.nla_tracks or animation.is_animated(o, "hide_viewport")
               or animation.is_animated(o, "hide_render") for o in scene.objects if o.animation_data is not None)


def playback_starts(scene, depsgraph):
    """Playback starts at the current frame: at the simulation's start frame, show it (its start state is made
    there, after Add Soft Body or an edit), as the frame handler would."""
    if scene.frame_current == frame_range(scene)[0]:
        frame_changed(scene, depsgraph)


def frame_changed(scene, depsgraph):
    """Frame handler body: show the frame; every failure becomes a one-line message on the session."""
    if not any(o.softfem.enabled for o in scene.objects if o.type == 'MESH'):
        return
    global _writing, _written
    if readiness.require() is not None:  # the solver is being prepared (or cannot be): the mesh as modelled
        _writing = True
        try:
            for obj in soft_bodies(scene):
                bridge.reset_output(obj)
        finally:
            _writing = False
        return
    sess = session_for(scene)
    started = time.perf_counter()
    _writing = True
    try:
        give_unique_cache_ids(scene)
        sess.goto(scene, depsgraph, scene.frame_current, scene.frame_subframe)
        if mesh_hashes.any_cached() and depsgraph.mode == 'VIEWPORT':  # never a render's depsgraph mid-render
            if _visibility_animated(scene):
                # evaluating there crashes Blender (any object's visibility keyframed: a write and then any depsgraph
                # update in a frame handler segfault at the next frame, SoftFEM or not); edited() tells it instead
                _written = {obj.name for obj in soft_bodies(scene)}
            else:
                # Evaluate the written meshes now, so the depsgraph updates they cause come while _writing is set
                # (later, they would look like edits and drop the mesh hashes every frame).
                depsgraph.update()
    except Exception as exc:  # a frame handler must never raise a traceback at the user
        message = one_line(exc)
        if message != sess.error:   # once, not on every frame it stays
            print("SoftFEM:", message)
        sess.error = message
    finally:
        _writing = False
    sess.last_frame_seconds = time.perf_counter() - started
