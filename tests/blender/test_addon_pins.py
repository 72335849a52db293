"""A pinned vertex group follows the object's keyframed transform while the rest of the body is simulated."""
import numpy as np
from addon_testing import add_ico


def test_pinned_group_follows_keyframed_transform(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    obj = add_ico(bpy, subdivisions=2, location=(0.0, 0.0, 2.0))
    local = np.array([v.co[:] for v in obj.data.vertices])
    top = np.flatnonzero(local[:, 2] > 0.3)
    group = obj.vertex_groups.new(name="Pin")
    group.add(top.tolist(), 1.0, 'REPLACE')
    obj.keyframe_insert("location", frame=1)
    obj.location = (1.0, 0.0, 2.5)
    obj.rotation_euler = (0.0, 0.0, 0.6)
    obj.keyframe_insert("location", frame=9)
    obj.keyframe_insert("rotation_euler", frame=9)
    obj.rotation_euler = (0.0, 0.0, 0.0)
    obj.keyframe_insert("rotation_euler", frame=1)
    obj.softfem.resolution = 5
    obj.softfem.youngs_modulus = 2e4
    obj.softfem.pin_group = "Pin"
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    sess = None
    sag = []
    for f in range(1, 10):
        scene.frame_set(f)
        sess = sess or softfem.addon.session.existing(scene)
        assert sess.error is None
        world = sess.positions(scene, obj.name, f)
        m = np.array(obj.matrix_world)
        animated = local @ m[:3, :3].T + m[:3, 3]
        np.testing.assert_allclose(world[top], animated[top], atol=1e-6)
        sag.append(np.abs(world - animated).max())
    assert sag[0] < 1e-9
    assert sag[-1] > 1e-3  # the free part is simulated (it hangs and lags), not carried rigidly


def test_pins_follow_an_animated_shape_key_and_remove_keeps_the_users_keys(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    obj = add_ico(bpy, subdivisions=2, location=(0.0, 0.0, 2.0))
    local = np.array([v.co[:] for v in obj.data.vertices])
    top = np.flatnonzero(local[:, 2] > 0.3)
    obj.vertex_groups.new(name="Pin").add(top.tolist(), 1.0, 'REPLACE')
    obj.shape_key_add(name="Basis")
    bulge = obj.shape_key_add(name="Bulge")
    delta = np.zeros_like(local)
    delta[top, 2] = 0.2
    bulge.data.foreach_set("co", (local + delta).astype(np.float32).ravel())
    bulge.value = 0.0
    bulge.keyframe_insert("value", frame=1)
    bulge.value = 1.0
    bulge.keyframe_insert("value", frame=6)
    before = np.empty(len(local) * 3, np.float32)
    obj.data.vertices.foreach_get("co", before)
    obj.softfem.resolution = 5
    obj.softfem.pin_group = "Pin"
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    for f in range(1, 7):
        scene.frame_set(f)
        sess = softfem.addon.session.existing(scene)
        assert sess.error is None
        world = sess.positions(scene, obj.name, f)
        target = local + bulge.value * delta + np.array(obj.location)
        np.testing.assert_allclose(world[top], target[top], atol=1e-6)
    assert bulge.value == 1.0
    # What is shown is the simulated positions (the output modifier comes after the shape keys).
    dg = bpy.context.evaluated_depsgraph_get()
    mesh = obj.evaluated_get(dg).to_mesh()
    shown = np.array([v.co[:] for v in mesh.vertices]) + np.array(obj.location)
    obj.evaluated_get(dg).to_mesh_clear()
    np.testing.assert_allclose(shown, world, atol=1e-5)
    assert bpy.ops.softfem.remove_soft_body() == {'FINISHED'}
    assert [k.name for k in obj.data.shape_keys.key_blocks] == ["Basis", "Bulge"]
    after = np.empty_like(before)
    obj.data.vertices.foreach_get("co", after)
    assert after.tobytes() == before.tobytes()
