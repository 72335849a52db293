"""The Self Collision checkbox: off by default (the panel says why), shown in the SoftFEM section, outdates the cache
when changed, and reaches the core's body (its surface collides with itself)."""
from addon_testing import add_ico
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
