"""Cycles (CPU, background) renders the simulated frames: an animation render shows the ball falling."""
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
