"""Bake, free and export: driving the timeline through the frame handler, and the cache's protection."""
import os

import numpy as np

from . import bridge, cache_files, pc2, scene_settings, session
from .dependencies import load_core

MESH_CACHE_MODIFIER = "SoftFEM Mesh Cache"
# Bake and Free Bake are not undo steps (they write and delete files, which undo cannot bring back), yet an
# undo restores `scene.softfem.baked` with the rest of the scene. What they last did is remembered here and
# put back after every undo/redo, so the flag always says what the files are.
_BAKED = {}


def check_bakeable(scene):
    """Raise RuntimeError with a one-line reason if the scene cannot be baked now."""
    load_core()
    if not scene_settings.soft_bodies(scene):
        raise RuntimeError("no soft bodies in the scene: use Add SoftFEM first")
    if scene.softfem.baked:
        raise RuntimeError("the cache is already baked: Free Bake first")
    start, end = scene_settings.frame_range(scene)
    if end <= start:
        raise RuntimeError(f"the simulation's frame range {start}-{end} is empty")


def bake_step(scene, frame):
    """Show/simulate one frame of a bake; raise RuntimeError with the session's message on failure."""
    scene.frame_set(frame)
    sess = session.session_for(scene)
    if sess.error:
        raise RuntimeError(sess.error)
    if sess.last_frame() is None or sess.last_frame() < frame:
        raise RuntimeError(f"frame {frame} could not be simulated")


def finish_bake(scene):
    """Mark the cache baked (protected until freed)."""
    scene.softfem.baked = True
    _BAKED[scene.name] = True


def free_bake(scene):
    """Unprotect the cache and delete exactly its files; returns how many files were deleted."""
    sess = session.session_for(scene)
    removed = sess.cache.delete_files(scene_settings.cache_location(scene))
    scene.softfem.baked = False
    _BAKED[scene.name] = False
    session.forget(scene)
    return removed


def restore_baked_flags(scenes):
    """After an undo/redo: each scene's `baked` flag as the last Bake or Free Bake left its cache files."""
    for scene in scenes:
        baked = _BAKED.get(scene.name)
        if baked is not None and scene.softfem.baked != baked:
            scene.softfem.baked = baked


def forget_baked_flags():
    """A file was loaded: its flags are its own."""
    _BAKED.clear()


def export_mesh_cache(scene, objects):
    """Write a PC2 file of the simulated frames for each soft body and add a Mesh Cache modifier reading it.

    Returns the written paths. Positions are local (the object's transform at each frame applied
    inverse), float32, from the start frame to the last simulated frame.
    """
    load_core()
    objects = [o for o in objects if o.type == 'MESH' and o.softfem.enabled]
    if not objects:
        raise RuntimeError("select a soft body to export")
    current = scene.frame_current
    start = scene_settings.frame_range(scene)[0]
    scene.frame_set(start)
    sess = session.session_for(scene)
    if sess.error:
        raise RuntimeError(sess.error)
    last = sess.last_frame()
    if last is None or last <= start:
        raise RuntimeError("nothing simulated yet: play the timeline or Bake first")
    frames = range(start, last + 1)
    samples = {o.name: np.empty((len(frames), len(o.data.vertices), 3), np.float32) for o in objects}
    try:
        for i, frame in enumerate(frames):
            scene.frame_set(frame)
            for obj in objects:
                world = sess.positions(scene, obj.name, frame)
                if world is None:
                    raise RuntimeError(f"frame {frame} of '{obj.name}' is not cached: simulate it first")
                samples[obj.name][i] = bridge.to_world(bridge.world_to_local(obj), world)
    finally:
        scene.frame_set(current)
    directory, prefix = scene_settings.cache_location(scene)
    os.makedirs(directory, exist_ok=True)
    paths = []
    for obj in objects:
        path = os.path.join(directory, f"{cache_files.safe_name(prefix)}_{cache_files.safe_name(obj.name)}.pc2")
        pc2.write_pc2(path, samples[obj.name], start)
        _add_modifier(obj, path, start)
        paths.append(path)
    return paths


def _relative(path):
    """`path` relative to the saved .blend file ('//…', as Blender's own file paths are by default), so the project
    can move (a render farm mounts it elsewhere); absolute for an unsaved file or another drive."""
    import bpy
    if not bpy.data.filepath:
        return path
    try:
        return bpy.path.relpath(path)
    except ValueError:
        return path


def _add_modifier(obj, path, start):
    mod = obj.modifiers.get(MESH_CACHE_MODIFIER)
    if mod is None or mod.type != 'MESH_CACHE':
        mod = obj.modifiers.new(MESH_CACHE_MODIFIER, 'MESH_CACHE')
    mod.cache_format = 'PC2'
    mod.filepath = _relative(path)
    mod.frame_start = start
    mod.frame_scale = 1.0
    mod.time_mode = 'FRAME'
    mod.play_mode = 'SCENE'
    mod.deform_mode = 'OVERWRITE'
    mod.forward_axis = 'POS_Y'
    mod.up_axis = 'POS_Z'
    # Right after the SoftFEM output modifier: deforming modifiers before it are already in the positions.
    output = bridge.output_modifier(obj)
    index = list(obj.modifiers).index(output) + 1 if output is not None else 0
    obj.modifiers.move(list(obj.modifiers).index(mod), index)
