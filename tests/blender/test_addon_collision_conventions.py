"""Blender's Collision conventions: collision.use, the modifier's viewport/render toggles, hidden colliders, the
scene's Collision Collection; a disabled collider lets a body fall through."""
from addon_testing import add_ico


def colliding(softfem, bpy, scene):
    scene.frame_set(scene.frame_start)
    bpy.context.view_layer.update()
    sess = softfem.addon.session.existing(scene)
    return [c.name for c in sess.colliders]


def floor_and_ball(bpy):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 8
    bpy.ops.mesh.primitive_plane_add(size=4.0)
    floor = bpy.context.active_object
    floor.name = "Floor"
    floor.modifiers.new("Collision", 'COLLISION')
    floor.collision.thickness_outer = 0.0
    ball = add_ico(bpy, subdivisions=1, location=(0.0, 0.0, 0.52))
    ball.softfem.resolution = 4
    bpy.ops.object.select_all(action='DESELECT')
    ball.select_set(True)
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    return scene, floor, ball


def test_collision_checkbox_modifier_toggles_hiding_and_collection(blender, softfem):
    bpy = blender
    scene, floor, _ball = floor_and_ball(bpy)
    assert colliding(softfem, bpy, scene) == ["Floor"]
    floor.collision.use = False
    assert colliding(softfem, bpy, scene) == []
    floor.collision.use = True
    mod = floor.modifiers["Collision"]
    for toggle in ("show_viewport", "show_render"):
        setattr(mod, toggle, False)
        assert colliding(softfem, bpy, scene) == [], toggle
        setattr(mod, toggle, True)
    floor.hide_set(True)                   # H: still colliding (as Blender's physics)
    assert colliding(softfem, bpy, scene) == ["Floor"]
    floor.hide_set(False)
    floor.hide_viewport = True             # disabled in viewports: not
    assert colliding(softfem, bpy, scene) == []
    floor.hide_viewport = False
    group = bpy.data.collections.new("Colliders")
    scene.collection.children.link(group)
    scene.softfem.collision_collection = group
    assert colliding(softfem, bpy, scene) == []
    group.objects.link(floor)
    assert colliding(softfem, bpy, scene) == ["Floor"]


def test_a_disabled_collision_modifier_lets_the_body_fall_through(blender, softfem):
    bpy = blender
    scene, floor, ball = floor_and_ball(bpy)

    def lowest_after_falling():
        for f in range(1, 9):
            scene.frame_set(f)
        return softfem.addon.session.existing(scene).positions(scene, ball.name, 8)[:, 2].min()
    assert lowest_after_falling() > -0.01
    floor.modifiers["Collision"].show_viewport = False
    assert lowest_after_falling() < -0.05
