"""A stiffness vertex group scales Young's modulus: weight w everywhere behaves as E*w."""
import numpy as np
from addon_testing import add_ico, link_and_enable


def hanging_ball_positions(bpy, softfem, youngs_modulus, stiffness_weight=None, frames=6):
    """Simulate a ball pinned at the top in a fresh scene; return its render positions at the last frame."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    link_and_enable()
    scene = bpy.context.scene
    obj = add_ico(bpy, subdivisions=2, location=(0.0, 0.0, 2.0))
    local = np.array([v.co[:] for v in obj.data.vertices])
    obj.vertex_groups.new(name="Pin").add(np.flatnonzero(local[:, 2] > 0.4).tolist(), 1.0, 'REPLACE')
    obj.softfem.pin_group = "Pin"
    obj.softfem.youngs_modulus = youngs_modulus
    obj.softfem.resolution = 4
    if stiffness_weight is not None:
        obj.vertex_groups.new(name="Stiff").add(list(range(len(local))), stiffness_weight, 'REPLACE')
        obj.softfem.stiffness_group = "Stiff"
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    for f in range(1, frames + 1):
        scene.frame_set(f)
    sess = softfem.addon.session.existing(scene)
    assert sess.error is None
    return sess.positions(scene, obj.name, frames) - np.array(obj.location), local


def test_stiffness_group_scales_youngs_modulus(blender, softfem):
    bpy = blender
    scaled, rest = hanging_ball_positions(bpy, softfem, 1e5, stiffness_weight=0.25)
    soft, _ = hanging_ball_positions(bpy, softfem, 2.5e4)
    stiff, _ = hanging_ball_positions(bpy, softfem, 1e5)
    np.testing.assert_allclose(scaled, soft, atol=1e-5)
    sag = {name: -(p - rest)[:, 2].min() for name, p in (("scaled", scaled), ("stiff", stiff))}
    assert sag["scaled"] > 1.5 * sag["stiff"] > 0
