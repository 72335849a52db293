"""Application handlers: frame change (simulate/show), playback start (the start state), data edits (stale mesh
hashes), undo/redo (the baked flag follows the files), file load (forget runtime state, the overlay's draw handler as
the file says), file save (move cache)."""
import bpy
from bpy.app.handlers import persistent

from . import baking, bridge, cage, frame_handler, mesh_hashes, overlay, session


@persistent
def on_frame_change(scene, depsgraph=None):
    """Show the scene's current frame (simulating one frame past the cache when possible)."""
    frame_handler.frame_changed(scene, depsgraph if depsgraph is not None else bpy.context.evaluated_depsgraph_get())


@persistent
def on_playback_start(scene, depsgraph=None):
    """Playback starts: at the start frame, the start state first (playback's first frame change is to the next
    frame, which has nothing to simulate from until the start frame was shown)."""
    frame_handler.playback_starts(scene, depsgraph if depsgraph is not None else bpy.context.evaluated_depsgraph_get())


@persistent
def on_depsgraph_update(_scene, depsgraph):
    """Data was edited (never called for frame changes): vertex group hashes of edited objects are stale."""
    frame_handler.edited(depsgraph)


@persistent
def on_undo(_scene=None, *_args):
    """An undo/redo restored older data: mesh hashes may be stale; the baked flag says what the files are."""
    mesh_hashes.forget()
    baking.restore_baked_flags(bpy.data.scenes)


@persistent
def on_load(_filepath=None, *_args):
    """A file was loaded: runtime sessions and cages belong to the previous file; a file's older output node group
    gets the vertex index (bridge.output_group), which reading a body's animated shape needs."""
    session.forget()
    baking.forget_baked_flags()
    cage.clear()
    if bridge.OUTPUT_GROUP in bpy.data.node_groups:
        bridge.output_group()
    overlay.sync()   # the file's scenes say whether the cage overlay is drawn


@persistent
def on_save(_filepath=None, *_args):
    """The file was saved, maybe to a new place: cached frames follow to the cache folder beside it."""
    for scene in bpy.data.scenes:
        sess = session.existing(scene)
        if sess is not None:
            try:
                sess.relocate(scene)
            except OSError as exc:
                print(f"SoftFEM warning: could not copy the cache of '{scene.name}': {exc}")


_HANDLERS = (
    (bpy.app.handlers.frame_change_post, on_frame_change),
    (bpy.app.handlers.animation_playback_pre, on_playback_start),
    (bpy.app.handlers.depsgraph_update_post, on_depsgraph_update),
    (bpy.app.handlers.undo_post, on_undo),
    (bpy.app.handlers.redo_post, on_undo),
    (bpy.app.handlers.load_post, on_load),
    (bpy.app.handlers.save_post, on_save),
)


def register():
    for handler_list, func in _HANDLERS:
        # Remove leftovers of an earlier load of this module (same name), so handlers never run twice.
        for existing in [h for h in handler_list if getattr(h, "__qualname__", None) == func.__qualname__
                         and getattr(h, "__module__", None) == func.__module__]:
            handler_list.remove(existing)
        handler_list.append(func)


def unregister():
    for handler_list, func in _HANDLERS:
        for existing in [h for h in handler_list if getattr(h, "__qualname__", None) == func.__qualname__
                         and getattr(h, "__module__", None) == func.__module__]:
            handler_list.remove(existing)
    overlay.remove()
    session.forget()
