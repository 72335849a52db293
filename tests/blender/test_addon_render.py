"""Cycles (CPU, background) renders the simulated frames: an animation render shows the ball falling, and motion blur
is centred on the frame."""
import os

import numpy as np
from addon_testing import add_ico


def bright_row(bpy, path):
    """Mean image row (0 = top) of the pixels brighter than the background."""
    image = bpy.data.images.load(path)
    w, h = image.size
    px = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(px)
    lum = px.reshape(h, w, 4)[..., :3].mean(axis=2)
    rows = np.nonzero(lum > 0.05)[0]
    assert len(rows) > 10, "the ball is not in the picture"
    return h - 1 - rows.mean()  # Blender stores rows bottom-up


def test_cycles_renders_simulated_frames(blender, softfem, tmp_path):
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 12
    ball = add_ico(bpy, subdivisions=2, location=(0.0, 0.0, 1.0))
    ball.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    bpy.ops.object.camera_add(location=(0.0, -6.0, 0.5), rotation=(1.5708, 0.0, 0.0))
    scene.camera = bpy.context.active_object
    bpy.ops.object.light_add(type='SUN', location=(0.0, -3.0, 5.0))
    bpy.context.active_object.data.energy = 5.0
    assert bpy.ops.softfem.bake() == {'FINISHED'}
    scene.render.engine = 'CYCLES'
    scene.cycles.device = 'CPU'
    scene.cycles.samples = 4
    scene.render.resolution_x, scene.render.resolution_y = 64, 48
    scene.render.resolution_percentage = 100
    scene.frame_step = 11  # frames 1 and 12
    scene.render.filepath = str(tmp_path / "frame_")
    scene.render.image_settings.file_format = 'PNG'
    bpy.ops.render.render(animation=True)
    first, last = (str(tmp_path / f"frame_{f:04d}.png") for f in (1, 12))
    assert os.path.exists(first) and os.path.exists(last)
    # Between frames 1 and 12 (11/24 s) the ball falls ~1 m: many pixel rows at this camera.
    assert bright_row(bpy, last) - bright_row(bpy, first) > 3.0


def dark_centroid_row(bpy, path):
    """Darkness-weighted mean image row (0 = top) of the picture's middle columns against a white background."""
    image = bpy.data.images.load(path)
    w, h = image.size
    px = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(px)
    lum = px.reshape(h, w, 4)[::-1, w // 2 - 10:w // 2 + 10, :3].mean(axis=2)
    dark = np.clip(1.0 - lum / np.median(lum[:5]), 0.0, 1.0).sum(axis=1)
    assert dark.sum() > 50, "the ball is not in the picture"
    return float((dark * np.arange(h)).sum() / dark.sum())


def test_motion_blur_is_centred_on_the_rendered_frame(blender, softfem, tmp_path):
    # Cycles' motion blur samples the shutter (frame 20 ± 0.25 by default) through frame changes at subframes: each
    # shows the state between the cached frames around it. A black ball falling at ~5.5 m/s before a white world:
    # blurred, the darkness's centroid stays where the sharp ball's is (0.1 px off, measured). Showing the frame's own
    # state at every subframe put the blur half a frame behind, 6.7 px higher in the picture.
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 24
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=3, radius=0.3, location=(0.0, 0.0, 4.0))
    ball = bpy.context.active_object
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    material = bpy.data.materials.new("Black")
    bsdf = material.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (0.0, 0.0, 0.0, 1.0)
    bsdf.inputs["Roughness"].default_value = 1.0
    ball.data.materials.append(material)
    scene.world = bpy.data.worlds.new("White")
    scene.world.node_tree.nodes["Background"].inputs[0].default_value = (1.0, 1.0, 1.0, 1.0)
    bpy.ops.object.camera_add(location=(0.0, -3.0, 0.8), rotation=(1.5708, 0.0, 0.0))
    scene.camera = bpy.context.active_object
    for f in range(1, 22):
        scene.frame_set(f)
    scene.frame_set(20)
    scene.render.engine = 'CYCLES'
    scene.cycles.device = 'CPU'
    scene.cycles.samples = 16
    scene.render.resolution_x = scene.render.resolution_y = 160
    scene.render.resolution_percentage = 100
    rows = {}
    for blur in (False, True):
        scene.render.use_motion_blur = blur
        scene.render.filepath = str(tmp_path / f"blur_{int(blur)}.png")
        bpy.ops.render.render(write_still=True)
        rows[blur] = dark_centroid_row(bpy, scene.render.filepath)
    assert abs(rows[True] - rows[False]) < 1.5, rows
