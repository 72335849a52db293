import numpy as np
import pytest
from addon_testing import evaluated_world
from test_contact_blender import collision_plane, soft_ball


@pytest.mark.parametrize("how", ["keyed_fall", "keyed_fall_bounce"])
def test_probe(blender, softfem, how):
    bpy = blender
    scene = bpy.context.scene
    collision_plane(bpy, 10.0, (0, 0, 0), thickness=0.0)
    bpy.ops.mesh.primitive_cube_add(size=0.6, location=(0.0, 0.0, 0.3))
    box = bpy.context.active_object
    box.modifiers.new("Collision", 'COLLISION')
    box.collision.thickness_outer = 0.0
    if how.startswith("keyed_fall"):
        box.location.z = 1.65; box.keyframe_insert("location", frame=1)
        box.location.z = 0.3; box.keyframe_insert("location", frame=14)
        if how == "keyed_fall_bounce":
            box.location.z = 0.33; box.keyframe_insert("location", frame=16)
            box.location.z = 0.3; box.keyframe_insert("location", frame=20)
    if how == "keyed_still":
        box.keyframe_insert("location", frame=1); box.keyframe_insert("location", frame=100)
    if how == "jitter":
        for f in range(1, 80):
            box.rotation_euler.x = 1e-5 * (f % 3)
            box.keyframe_insert("rotation_euler", frame=f)
    ball = soft_ball(bpy, (0.0, 0.0, 2.3 if how.startswith('keyed_fall') else 0.9), radius=0.15)
    out = []
    for f in range(1, 60):
        scene.frame_set(f)
        out.append(round(1e3 * (evaluated_world(bpy, ball)[:, 2].min() - 0.6), 1))
    print(how, out[::3])
    assert min(out[20:]) > -3
