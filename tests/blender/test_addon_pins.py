"""A pinned vertex group follows the object's keyframed transform while the rest of the body is simulated."""
import numpy as np
from conftest import add_ico


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
