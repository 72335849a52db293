"""Contact through the add-on in headless Blender: a ball on a Collision plane, a keyframed paddle, an armature-
deformed collider followed frame by frame, a collider moved by Blender's rigid body simulation, an open cup."""
import numpy as np
from addon_testing import add_ico, evaluated_world


def soft_ball(bpy, location, radius=0.25):
    ball = add_ico(bpy, subdivisions=2, radius=radius, location=location)
    ball.softfem.resolution = 4
    bpy.ops.object.select_all(action='DESELECT')
    ball.select_set(True)
    bpy.context.view_layer.objects.active = ball
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    return ball


def collision_plane(bpy, size, location, thickness):
    bpy.ops.mesh.primitive_plane_add(size=size, location=location)
    plane = bpy.context.active_object
    plane.modifiers.new("Collision", 'COLLISION')
    plane.collision.thickness_outer = thickness
    return plane


def test_ball_lands_and_rests_on_a_collision_plane(blender):
    bpy = blender
    scene = bpy.context.scene
    collision_plane(bpy, 4.0, (0, 0, 0), thickness=0.02)
    ball = soft_ball(bpy, (0, 0, 0.5))
    for f in range(1, 41):
        scene.frame_set(f)
        assert evaluated_world(bpy, ball)[:, 2].min() > -1e-3    # never through the plane
    lowest = evaluated_world(bpy, ball)[:, 2].min()
    assert abs(lowest - 0.02) < 3e-3                              # resting on the plane's outer thickness


def test_keyframed_paddle_lifts_the_ball(blender):
    bpy = blender
    scene = bpy.context.scene
    paddle = collision_plane(bpy, 2.0, (0, 0, 0), thickness=0.0)
    paddle.keyframe_insert("location", frame=10)
    paddle.location.z = 0.5
    paddle.keyframe_insert("location", frame=30)
    ball = soft_ball(bpy, (0, 0, 0.3))
    for f in range(1, 41):
        scene.frame_set(f)
        paddle_z = float(np.array(paddle.matrix_world)[2, 3])
        assert evaluated_world(bpy, ball)[:, 2].min() > paddle_z - 2e-3
    assert evaluated_world(bpy, ball)[:, 2].min() < 0.5 + 0.01   # carried up and resting on it


def test_armature_deformed_collider_is_followed_frame_by_frame(blender):
    bpy = blender
    scene = bpy.context.scene
    floor = collision_plane(bpy, 2.0, (0, 0, 0), thickness=0.0)
    bpy.ops.object.armature_add(location=(0, 0, 0))
    rig = bpy.context.active_object
    group = floor.vertex_groups.new(name=rig.data.bones[0].name)
    group.add(list(range(len(floor.data.vertices))), 1.0, 'REPLACE')
    mod = floor.modifiers.new("Armature", 'ARMATURE')
    mod.object = rig
    floor.modifiers.move(len(floor.modifiers) - 1, 0)          # deform before the Collision modifier
    bone = rig.pose.bones[0]
    bone.keyframe_insert("location", frame=10)
    bone.location = (0.0, 0.4, 0.0)                             # the bone's local y is world z
    bone.keyframe_insert("location", frame=30)
    ball = soft_ball(bpy, (0, 0, 0.3))
    for f in range(1, 41):
        scene.frame_set(f)
        floor_z = evaluated_world(bpy, floor)[:, 2].mean()
        assert evaluated_world(bpy, ball)[:, 2].min() > floor_z - 2e-3
    assert evaluated_world(bpy, floor)[:, 2].mean() > 0.39     # the rig did raise the floor
    assert evaluated_world(bpy, ball)[:, 2].min() < 0.4 + 0.01


def test_a_rigid_body_collider_is_followed_where_blenders_simulation_moves_it(blender):
    # A box in Blender's rigid body world (Active, with a Collision modifier) falls 1.35 m onto the floor (a Passive
    # rigid body and a Collision plane) and settles by frame ~21; a soft ball dropped high above it lands on the box
    # where it came to rest. Read as a static collider (its transform has no keyframes), the box's fall changed the
    # place the cache is keyed on at every frame: the cache was outdated each frame and the ball never left its start
    # (measured). (Bullet does not feel soft bodies: the coupling is one-way.)
    bpy = blender
    scene = bpy.context.scene
    floor = collision_plane(bpy, 10.0, (0, 0, 0), thickness=0.0)
    bpy.ops.rigidbody.world_add()
    bpy.context.view_layer.objects.active = floor
    bpy.ops.rigidbody.object_add(type='PASSIVE')
    bpy.ops.mesh.primitive_cube_add(size=0.6, location=(0.0, 0.0, 1.65))
    box = bpy.context.active_object
    bpy.ops.rigidbody.object_add(type='ACTIVE')
    box.modifiers.new("Collision", 'COLLISION')
    box.collision.thickness_outer = 0.0
    ball = soft_ball(bpy, (0.0, 0.0, 5.65), radius=0.15)      # lands ~1 s later, after the box has settled
    for f in range(1, 61):
        scene.frame_set(f)
        m = np.array(box.matrix_world)
        local = (evaluated_world(bpy, ball) - m[:3, 3]) @ m[:3, :3]    # the ball's vertices in the box's frame
        inside = np.all(np.abs(local) < 0.3 - 0.003, axis=1)
        assert not inside.any(), f"frame {f}: {int(inside.sum())} ball vertices inside the box"
    top = m[2, 3] + 0.3
    assert abs(top - 0.6) < 0.01                                          # the box rests on the floor
    assert abs(evaluated_world(bpy, ball)[:, 2].min() - top) < 0.003      # and the ball on the box


def test_a_cube_and_a_ball_dropped_into_an_open_cup_rest_on_its_floor_inside_its_walls(blender):
    # A cup as users make one: Blender's cylinder with its top face deleted (open: two-sided, the Collision's
    # 0.02 m shell), standing on a Collision plane. The cube lands on the ball and slides into the corner of the
    # floor and the wall. Before: it rested there 3.6 mm into the floor's shell and 1.3 cm into the wall's, pushed
    # down and out by the cup's rows of the wrong sides (in core the same scene threw a cage node 1e14 m).
    bpy = blender
    scene = bpy.context.scene
    bpy.ops.mesh.primitive_cylinder_add(radius=0.5, depth=0.6, location=(0.0, 0.0, 0.3))
    cup = bpy.context.active_object
    top = max(cup.data.polygons, key=lambda p: p.center.z).index
    bpy.ops.object.mode_set(mode='EDIT')
    bpy.ops.mesh.select_all(action='DESELECT')
    bpy.ops.object.mode_set(mode='OBJECT')
    cup.data.polygons[top].select = True
    bpy.ops.object.mode_set(mode='EDIT')
    bpy.ops.mesh.delete(type='FACE')
    bpy.ops.object.mode_set(mode='OBJECT')
    cup.modifiers.new("Collision", 'COLLISION')
    shell = cup.collision.thickness_outer
    collision_plane(bpy, 10.0, (0, 0, 0), thickness=shell)
    bodies = []
    for add in (lambda: bpy.ops.mesh.primitive_uv_sphere_add(radius=0.2, location=(0.1, 0.0, 1.5)),
                lambda: bpy.ops.mesh.primitive_cube_add(size=0.2, location=(-0.15, 0.1, 2.2))):
        add()
        assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
        bodies.append(bpy.context.active_object)
    inner = 0.5 * np.cos(np.pi / 32) - shell          # the wall's shell at its faces' middles
    for f in range(1, 73):
        scene.frame_set(f)
        p = np.concatenate([evaluated_world(bpy, b) for b in bodies])
        widest = np.hypot(p[:, 0], p[:, 1]).max()
        assert widest < inner + 0.003, f"frame {f}: {widest:.4f} m from the axis (the wall's shell at {inner:.4f})"
        assert p[:, 2].min() > shell - 0.002, f"frame {f}: lowest {p[:, 2].min():.4f} m (the floor's shell at {shell})"
    assert abs(p[:, 2].min() - shell) < 0.001
