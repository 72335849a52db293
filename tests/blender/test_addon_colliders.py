"""Collision objects reach the World in world space, with their thickness and friction, and move every substep."""
import numpy as np
from addon_testing import add_ico, evaluated_world


def test_colliders_are_read_in_world_space_and_moved(blender, softfem, monkeypatch):
    bpy = blender
    scene = bpy.context.scene
    core = softfem.addon.dependencies.load_core()
    softfem.addon.readiness.wait()   # the warm-up's own World adds a collider: not one of this scene's
    added, moved = [], []
    real_add, real_move = core.World.add_collider, core.World.move_collider

    def add_collider(self, vertices, triangles, friction=0.5, thickness=0.0, name=None):
        added.append((np.array(vertices), np.array(triangles), friction, thickness))
        return real_add(self, vertices, triangles, friction=friction, thickness=thickness, name=name)

    def move_collider(self, collider, vertices):
        moved.append(np.array(vertices))
        return real_move(self, collider, vertices)
    monkeypatch.setattr(core.World, "add_collider", add_collider)
    monkeypatch.setattr(core.World, "move_collider", move_collider)

    bpy.ops.mesh.primitive_plane_add(size=2.0, location=(0.5, 0.0, -1.0), rotation=(0.0, 0.0, 0.3))
    paddle = bpy.context.active_object
    paddle.name = "Paddle"
    paddle.modifiers.new("Collision", 'COLLISION')
    paddle.collision.thickness_outer = 0.05
    paddle.softfem.friction = 0.9
    paddle.keyframe_insert("location", frame=1)
    paddle.location.z = -0.5
    paddle.keyframe_insert("location", frame=3)
    hidden = add_ico(bpy, location=(5.0, 0.0, 0.0), name="Hidden")
    hidden.modifiers.new("Collision", 'COLLISION')
    hidden.hide_set(True)  # hidden (H) colliders keep colliding
    disabled = add_ico(bpy, location=(-5.0, 0.0, 0.0), name="Disabled")
    disabled.modifiers.new("Collision", 'COLLISION')
    disabled.hide_viewport = True   # disabled in viewports: ignored

    ball = add_ico(bpy, subdivisions=1, location=(0.0, 0.0, 2.0))
    ball.softfem.resolution = 4
    bpy.ops.object.select_all(action='DESELECT')
    ball.select_set(True)
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    scene.softfem.adaptive_substeps = False   # every frame its Substeps: one collider target each
    scene.frame_set(1)
    assert len(added) == 2, [a[2] for a in added]
    assert [c.name for c in softfem.addon.session.existing(scene).colliders] == ["Hidden", "Paddle"]
    verts, tris, friction, thickness = added[1]
    m = np.array(paddle.matrix_world)
    local = np.array([v.co[:] for v in paddle.data.vertices])
    np.testing.assert_allclose(verts, local @ m[:3, :3].T + m[:3, 3], atol=1e-6)
    assert tris.shape == (2, 3) and abs(friction - 0.9) < 1e-6 and abs(thickness - 0.05) < 1e-6
    z1 = verts[:, 2].mean()
    scene.frame_set(2)
    n = scene.softfem.substeps
    assert len(moved) == n  # one target per substep, linear from frame 1 to frame 2
    paddle_z2 = float(np.array(paddle.matrix_world)[2, 3])
    for k, v in enumerate(moved, start=1):
        np.testing.assert_allclose(v[:, 2].mean(), z1 + (paddle_z2 - z1) * k / n, atol=1e-6)
    scene.frame_set(3)
    scene.frame_set(4)  # the paddle stopped at frame 3: a collider that did not move is not re-sent
    assert len(moved) == 2 * n


def test_colliders_in_instanced_collections_collide_where_each_instance_places_them(blender, softfem, monkeypatch):
    # A set as studios lay one out: a collection excluded from the view layer (or linked from a library), placed by
    # Empties instancing it. Its floor (a Collision plane at (1, 0, 0.2) in the collection, whose Instance Offset is
    # (1, 0, 0)) collides where each instance puts it; one instance rises, keyframed, carrying its cube up. Before,
    # the cubes fell through (an instanced object is not in the scene's objects); Blender's own physics take such an
    # object where it stands in its collection.
    bpy = blender
    scene = bpy.context.scene
    status = softfem.addon.status.cache_status
    sets = bpy.data.collections.new("Set")
    scene.collection.children.link(sets)
    bpy.ops.mesh.primitive_plane_add(size=1.5, location=(1.0, 0.0, 0.2))
    floor = bpy.context.active_object
    floor.modifiers.new("Collision", 'COLLISION')
    for c in floor.users_collection:
        c.objects.unlink(floor)
    sets.objects.link(floor)
    sets.instance_offset = (1.0, 0.0, 0.0)
    bpy.context.view_layer.layer_collection.children["Set"].exclude = True
    instancers = {}
    for name, place in (("SetA", (0.0, 0.0, 0.5)), ("SetB", (3.0, 0.0, 1.0)), ("SetC", (-3.0, 0.0, 0.0))):
        empty = bpy.data.objects.new(name, None)
        empty.instance_type = 'COLLECTION'
        empty.instance_collection = sets
        empty.location = place
        scene.collection.objects.link(empty)
        instancers[name] = empty
    instancers["SetA"].rotation_euler.z = 0.3
    rising = instancers["SetC"]
    rising.keyframe_insert("location", frame=12)
    rising.location.z = 0.3
    rising.keyframe_insert("location", frame=24)
    cubes = []
    for x in (0.0, 3.0, -3.0):
        bpy.ops.mesh.primitive_cube_add(size=0.4, location=(x, 0.0, 1.6))
        cubes.append(bpy.context.active_object)
    bpy.ops.object.select_all(action='DESELECT')
    for cube in cubes:
        cube.select_set(True)
    bpy.context.view_layer.objects.active = cubes[0]
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    reads = []
    real = softfem.addon.colliders._read
    monkeypatch.setattr(softfem.addon.colliders, "_read", lambda p, *a, **k: reads.append(p.name) or real(p, *a, **k))
    scene.frame_end = 40
    for f in range(1, 41):
        scene.frame_set(f)
    sess = softfem.addon.session.existing(scene)
    assert [c.name for c in sess.colliders] == ["SetA/Plane", "SetB/Plane", "SetC/Plane"]
    assert reads.count("SetA/Plane") == 1 and reads.count("SetB/Plane") == 1   # static: read once
    assert reads.count("SetC/Plane") == 40                                      # keyframed: read every frame
    shell = floor.collision.thickness_outer
    for cube, top in zip(cubes, (0.7, 1.2, 0.5)):
        p = evaluated_world(bpy, cube)
        assert abs(p[:, 2].min() - (top + shell)) < 0.002, (cube.name, p[:, 2].min())
        assert np.linalg.norm(p.mean(axis=0)[:2] - np.array(cube.location[:2])) < 0.01   # landed flat, stayed
    assert not status(scene)["outdated"]
    instancers["SetB"].location.z = 1.1                  # moving a static instance is an edit
    bpy.context.view_layer.update()
    assert status(scene)["outdated"]
