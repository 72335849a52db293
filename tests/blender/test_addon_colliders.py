"""Collision objects reach the World in world space, with their thickness and friction, and move every substep."""
import numpy as np
from addon_testing import add_ico


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
