"""The Self Collision checkbox: off by default (the panel says why), shown in the SoftFEM section, outdates the cache
when changed, and reaches the core's body (its surface collides with itself); the U of tests/core squeezed shut by a
keyframed plate through the add-on at its defaults holds its arms apart, and passes through itself without it."""
import os
import sys

import numpy as np

from addon_testing import REPO, add_ico, evaluated_world
from test_addon_panels import draw_all


def play(bpy, scene, frames):
    for f in frames:
        scene.frame_set(f)
        bpy.context.view_layer.update()


def test_the_self_collision_checkbox_outdates_the_cache_and_reaches_the_core(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    status = softfem.addon.status.cache_status
    bpy.ops.mesh.primitive_plane_add(size=4.0)
    bpy.context.active_object.modifiers.new("Collision", 'COLLISION')
    obj = add_ico(bpy, subdivisions=2, radius=0.25, location=(0.0, 0.0, 0.3))
    obj.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    assert obj.softfem.self_collision is False
    log = draw_all(softfem, bpy, obj)
    assert ("prop", "self_collision", False) in log
    assert any(kind == "label" and "Off by default" in text for kind, text, _ in log)
    play(bpy, scene, range(1, 5))
    sess = softfem.addon.session.existing(scene)
    assert [s.self_collision for s in sess.world._contact.surfaces] == [False]
    assert not status(scene)["outdated"] and status(scene)["frames"] == 4

    obj.softfem.self_collision = True
    assert status(scene)["outdated"]
    assert ("prop", "self_collision", False) in draw_all(softfem, bpy, obj, physics=True)
    play(bpy, scene, range(1, 13))
    sess = softfem.addon.session.existing(scene)
    assert not status(scene)["outdated"] and status(scene)["frames"] == 12
    assert [s.self_collision for s in sess.world._contact.surfaces] == [True]
    contacts = sess.world.contacts
    assert len(contacts) > 0 and not (contacts.other_body == 0).any()   # landed on the floor, no fold: no self contact


def _squeezed_u(bpy, softfem, self_collision):
    """tests/core's U squeezed shut (arms 7.5 cm thick, 10 cm apart, 30 cm long; E = 1e6 Pa) through the add-on at its
    defaults: a Collision plate keyframed down from 25 cm to 10 cm above the floor over frames 1–16 (the upper arm
    would end 2.5 cm into the lower one), held to frame 20 and lifted to 30 cm by frame 25. Per frame 1–30: the render
    vertices inside the U's own surface and its self contacts; and the gap between the arms' facing faces at the end."""
    sys.path.insert(0, os.path.join(REPO, "tests", "core"))
    from voxel_shapes import passed_inside, u_shape
    scene = bpy.context.scene
    bpy.ops.mesh.primitive_plane_add(size=4.0)
    bpy.context.active_object.modifiers.new("Collision", 'COLLISION')
    v, f = u_shape(length=12, thick=3, gap=4)
    mesh = bpy.data.meshes.new("U")
    mesh.from_pydata(v.tolist(), [], f.tolist())
    obj = bpy.data.objects.new("U", mesh)
    scene.collection.objects.link(obj)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.275, 0.05, 0.275))
    plate = bpy.context.active_object
    plate.scale = (0.25, 0.3, 0.05)   # its bottom 25 cm up
    plate.modifiers.new("Collision", 'COLLISION')
    plate.collision.thickness_outer = 0.0
    for frame, bottom in ((1, 0.25), (16, 0.10), (20, 0.10), (25, 0.30)):
        plate.location.z = bottom + 0.025
        plate.keyframe_insert("location", index=2, frame=frame)
    bpy.ops.object.select_all(action='DESELECT')
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    obj.softfem.resolution = 8
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    obj.softfem.youngs_modulus, obj.softfem.poisson_ratio, obj.softfem.density = 1e6, 0.3, 500.0
    obj.softfem.self_collision = self_collision
    winding = softfem.core.geometry.winding.WindingNumber
    inside, touching = [], []
    for frame in range(1, 31):
        scene.frame_set(frame)
        world = softfem.addon.session.existing(scene).world
        p = evaluated_world(bpy, obj)
        inside.append(int(passed_inside(p, f, world.contact_settings.body_thickness, winding).sum()))
        touching.append(int(((world.contacts.body == 0) & (world.contacts.other_body == 0)).sum()))
    upper, lower = np.isclose(v[:, 2], 0.175), np.isclose(v[:, 2], 0.075)
    return np.array(inside), np.array(touching), p[upper, 2].min() - p[lower, 2].max()


def test_a_u_squeezed_by_a_keyframed_plate_through_blender_presses_its_arms_together_and_springs_apart(blender,
                                                                                                     softfem):
    inside, touching, gap = _squeezed_u(blender, softfem, True)
    assert inside.max() == 0, f"render vertices inside the U's own surface: {inside.max()}"
    assert touching[14:20].min() > 0   # its arms pressed together: self contacts (other_body == body)
    assert gap > 0.05                  # lifted: apart again (10 cm at rest)


def test_without_self_collision_the_u_squeezed_through_blender_passes_through_itself(blender, softfem):
    inside, touching, _ = _squeezed_u(blender, softfem, False)
    assert touching.max() == 0 and inside.max() > 10
