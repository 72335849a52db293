"""After the add-on's warm-up, the features a scene uses compile nothing more in Blender's process: each kernel a
scene needs first would freeze playback while it compiles (measured: 1.7-2.5 s a kernel)."""
import math
import sys

import numpy as np
from addon_testing import MODULE, add_ico


def signatures():
    warmup = sys.modules[MODULE + ".core.warmup"]
    return {k.py_func.__qualname__: set(k.signatures) for k in warmup.kernels()}


def test_a_scene_using_the_add_ons_features_compiles_no_kernel_after_the_warm_up(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 60
    scene.softfem.integrator = 'NEWMARK'
    bpy.ops.mesh.primitive_plane_add(size=6.0)
    floor = bpy.context.active_object
    floor.modifiers.new("Collision", 'COLLISION')
    floor.keyframe_insert("location", frame=1)                 # a moving collider
    floor.location.z = 0.05
    floor.keyframe_insert("location", frame=30)
    hung = add_ico(bpy, subdivisions=2, location=(-0.8, 0.0, 1.2), name="Hung")
    top = [v.index for v in hung.data.vertices if v.co.z > 0.3]
    hung.vertex_groups.new(name="Pin").add(top, 1.0, 'REPLACE')
    hung.softfem.pin_group = "Pin"                              # pins following a keyframed object
    hung.softfem.material_model = 'NEO_HOOKEAN'
    hung.keyframe_insert("location", frame=1)
    hung.location.x = -0.6
    hung.keyframe_insert("location", frame=20)
    ball = add_ico(bpy, subdivisions=2, location=(0.6, 0.0, 0.6), name="Ball")
    for obj in (hung, ball):
        obj.softfem.resolution = 5
        bpy.ops.object.select_all(action='DESELECT')
        obj.select_set(True)
        bpy.context.view_layer.objects.active = obj
        assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}   # in background mode: waits for the warm-up
    ball.softfem.output_strain = True                           # strain attributes (their gauge made again as E changes)
    ball.keyframe_insert("softfem.youngs_modulus", frame=1)     # a keyframed setting
    ball.softfem.youngs_modulus = 3e5
    ball.keyframe_insert("softfem.youngs_modulus", frame=30)
    bpy.ops.object.effector_add(type='WIND', location=(-3.0, 0.0, 1.0), rotation=(0.0, math.pi / 2, 0.0))
    bpy.context.active_object.field.strength = 2.0
    warmed = signatures()
    for f in range(1, 61):
        scene.frame_set(f)
    sess = softfem.addon.session.existing(scene)
    assert sess.error is None
    assert np.isfinite(sess.positions(scene, "Ball", 60)).all()
    again = sorted(name for name, sigs in signatures().items() if sigs - warmed.get(name, set()))
    assert again == [], f"compiled in Blender's process after the warm-up: {again}"
