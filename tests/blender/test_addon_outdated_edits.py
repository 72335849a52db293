"""Edits Blender makes through depsgraph updates outdate the cache: pin group weights, a static collider moved, a soft
body moved, turned or scaled; playing frames (the write-back's own updates, a keyframed collider) does not."""
import numpy as np
import pytest
from addon_testing import add_ico


def play(bpy, scene, frames):
    """frame_set each frame, then evaluate as the UI does when it redraws (depsgraph_update_post fires)."""
    for f in frames:
        scene.frame_set(f)
        bpy.context.view_layer.update()


def test_editing_pin_group_weights_outdates_the_cache(blender, softfem, monkeypatch):
    bpy = blender
    scene = bpy.context.scene
    status = softfem.addon.status.cache_status
    obj = add_ico(bpy, subdivisions=2, location=(0.0, 0.0, 2.0))
    top = np.flatnonzero(np.array([v.co.z for v in obj.data.vertices]) > 0.3)
    group = obj.vertex_groups.new(name="Pin")
    group.add(top.tolist(), 1.0, 'REPLACE')
    obj.softfem.resolution = 4
    obj.softfem.pin_group = "Pin"
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    reads = []
    real = softfem.addon.bridge.group_weights
    monkeypatch.setattr(softfem.addon.bridge, "group_weights", lambda o, name: reads.append(name) or real(o, name))
    play(bpy, scene, range(1, 3))
    reads.clear()
    play(bpy, scene, range(3, 6))
    assert reads == []                                  # playing never walks the weights again
    assert not status(scene)["outdated"] and status(scene)["frames"] == 5
    group.add([int(np.setdiff1d(np.arange(len(obj.data.vertices)), top)[0])], 1.0, 'REPLACE')
    obj.data.update()                                   # what a weight-paint stroke tags
    bpy.context.view_layer.update()
    assert status(scene)["outdated"]
    sess = softfem.addon.session.existing(scene)
    calls = sess.core_calls
    scene.frame_set(6)
    assert sess.core_calls == calls                     # outdated: nothing simulated past it


def test_moving_a_static_collider_outdates_the_cache_a_keyframed_one_plays(blender, softfem, monkeypatch):
    bpy = blender
    scene = bpy.context.scene
    status = softfem.addon.status.cache_status
    bpy.ops.mesh.primitive_plane_add(size=4.0, location=(0.0, 0.0, 0.0))
    floor = bpy.context.active_object
    floor.modifiers.new("Collision", 'COLLISION')
    bpy.ops.mesh.primitive_plane_add(size=1.0, location=(3.0, 0.0, 0.0))
    paddle = bpy.context.active_object
    paddle.modifiers.new("Collision", 'COLLISION')
    paddle.keyframe_insert("location", frame=1)
    paddle.location.z = 1.0
    paddle.keyframe_insert("location", frame=10)
    ball = add_ico(bpy, subdivisions=2, radius=0.25, location=(0.0, 0.0, 0.5))
    ball.softfem.resolution = 4
    bpy.ops.object.select_all(action='DESELECT')
    ball.select_set(True)
    bpy.context.view_layer.objects.active = ball
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    reads = []
    real = softfem.addon.colliders._read
    monkeypatch.setattr(softfem.addon.colliders, "_read", lambda o, *a, **k: reads.append(o.name) or real(o, *a, **k))
    play(bpy, scene, range(1, 6))
    assert not status(scene)["outdated"] and status(scene)["frames"] == 5   # the paddle moved every frame
    assert reads.count(paddle.name) == 5 and reads.count(floor.name) == 1   # the static floor is read once
    floor.location.z = 0.1
    bpy.context.view_layer.update()
    assert status(scene)["outdated"]
    floor.location.z = 0.0
    bpy.context.view_layer.update()
    assert not status(scene)["outdated"]                # back where the frames were simulated
    floor.softfem.friction = 0.9
    assert status(scene)["outdated"]


def test_moving_a_soft_body_between_plays_outdates_the_cache_and_the_replay_starts_where_it_now_is(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    status = softfem.addon.status.cache_status
    ball = add_ico(bpy, subdivisions=2, radius=0.25, location=(0.0, 0.0, 1.0))
    ball.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    play(bpy, scene, range(1, 6))
    assert not status(scene)["outdated"] and status(scene)["frames"] == 5
    play(bpy, scene, [1])
    ball.location.x = 2.0                               # the artist places it better, then plays again
    bpy.context.view_layer.update()
    assert status(scene)["outdated"]
    play(bpy, scene, range(1, 6))
    assert not status(scene)["outdated"] and status(scene)["frames"] == 5
    sess = softfem.addon.session.existing(scene)
    assert sess.positions(scene, ball.name, 5)[:, 0].mean() == pytest.approx(2.0, abs=1e-3)
    ball.scale = (1.5, 1.5, 1.5)
    bpy.context.view_layer.update()
    assert status(scene)["outdated"]
    play(bpy, scene, [1])
    reach = max(abs(v.co.x) for v in ball.data.vertices)
    assert np.abs(sess.positions(scene, ball.name, 1)[:, 0] - 2.0).max() == pytest.approx(1.5 * reach, rel=1e-6)


def test_undoing_a_weight_edit_outdates_the_frames_simulated_with_it(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    status = softfem.addon.status.cache_status
    obj = add_ico(bpy, subdivisions=2, location=(0.0, 0.0, 2.0))
    top = np.flatnonzero(np.array([v.co.z for v in obj.data.vertices]) > 0.3)
    obj.vertex_groups.new(name="Pin").add(top.tolist(), 1.0, 'REPLACE')
    obj.softfem.resolution = 4
    obj.softfem.pin_group = "Pin"
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    name = obj.name
    play(bpy, scene, range(1, 3))
    bpy.ops.ed.undo_push(message="before the weight edit")
    obj.vertex_groups["Pin"].add([int(np.setdiff1d(np.arange(len(obj.data.vertices)), top)[0])], 1.0, 'REPLACE')
    obj.data.update()
    bpy.ops.ed.undo_push(message="weight edit")
    bpy.context.view_layer.update()
    play(bpy, scene, range(1, 4))                       # simulated again with the edited weights
    assert not status(scene)["outdated"] and status(scene)["frames"] == 3
    bpy.ops.ed.undo()                                   # the weights as before the edit
    restored = bpy.data.objects[name]
    assert sum(g.group == restored.vertex_groups["Pin"].index for v in restored.data.vertices for g in v.groups) \
        == len(top)
    assert status(bpy.context.scene)["outdated"]
