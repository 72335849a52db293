"""Bake, save/reopen without simulating, free bake, damaged cache files, Mesh Cache export without the add-on."""
import os

import numpy as np
from addon_testing import MODULE, add_ico, add_rubber_cube, evaluated_local


def ball(bpy, frames=6):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    obj = add_ico(bpy, subdivisions=1)
    obj.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    return scene, obj


def test_bake_save_reopen_plays_without_simulating_then_free(blender, softfem, tmp_path, monkeypatch):
    import addon_utils
    bpy = blender
    scene, obj = ball(bpy)
    assert bpy.ops.softfem.bake() == {'FINISHED'}
    assert scene.softfem.baked
    shown = {}
    for f in range(1, 7):
        scene.frame_set(f)
        shown[f] = evaluated_local(bpy, obj).copy()
    cache_dir = bpy.path.abspath(scene.softfem.cache_directory)
    ours = sorted(os.listdir(cache_dir))
    assert len(ours) == 6
    foreign = os.path.join(cache_dir, "notes.txt")
    with open(foreign, "w") as f:
        f.write("not SoftFEM's")
    # A baked cache is protected: changing E does not overwrite it (outdated, frames still shown).
    obj.softfem.youngs_modulus *= 2
    scene.frame_set(4)
    np.testing.assert_array_equal(evaluated_local(bpy, obj), shown[4])
    obj.softfem.youngs_modulus /= 2
    blend = str(tmp_path / "scene.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    bpy.ops.wm.read_factory_settings(use_empty=True)  # closes the file (and disables add-ons)
    addon_utils.enable(MODULE, default_set=True)
    bpy.ops.wm.open_mainfile(filepath=blend)
    core = softfem.core

    def no_solver(*_args, **_kwargs):
        raise AssertionError("the solver was called while playing a baked cache")
    monkeypatch.setattr(core.World, "step", no_solver)
    scene = bpy.context.scene
    obj = scene.objects["Ball"]
    for f in (1, 3, 6, 2):
        scene.frame_set(f)
        np.testing.assert_allclose(evaluated_local(bpy, obj), shown[f], atol=1e-6)
    sess = softfem.addon.session.existing(scene)
    assert sess.error is None and sess.core_calls == 0
    monkeypatch.undo()
    assert bpy.ops.softfem.free_bake() == {'FINISHED'}
    assert not scene.softfem.baked
    assert os.listdir(cache_dir) == ["notes.txt"]
    # Nothing cached any more at frame 2: the mesh is shown as modelled.
    basis = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.vertices.foreach_get("co", basis)
    np.testing.assert_array_equal(evaluated_local(bpy, obj).ravel(), basis)


def test_truncated_and_foreign_cache_files_are_ignored_and_resimulated(blender, softfem):
    bpy = blender
    scene, obj = ball(bpy, frames=4)
    for f in range(1, 5):
        scene.frame_set(f)
    sess = softfem.addon.session.existing(scene)
    good = sess.positions(scene, obj.name, 3).copy()
    path = sess.cache.disk[3]
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    path4 = sess.cache.disk[4]
    with open(path4, "r+b") as f:
        f.seek(8)
        f.write((99).to_bytes(4, "little"))  # another cache format version
    softfem.addon.session.forget()  # as after reopening: only the files remain
    scene.frame_set(1)
    sess = softfem.addon.session.existing(scene)
    scene.frame_set(2)
    calls = sess.core_calls
    scene.frame_set(3)
    assert any("truncated" in w for w in sess.warnings)
    assert sess.core_calls > calls  # re-simulated from frame 2
    np.testing.assert_allclose(sess.positions(scene, obj.name, 3), good, atol=1e-9)
    scene.frame_set(4)
    assert any("version 99" in w for w in sess.warnings)


def test_a_rubber_frame_simulated_again_from_the_cache_comes_out_as_played(blender, softfem):
    # multigrid solves the Rubber cube (stiff for its cage) and keeps nothing from one frame to the next, so the frame
    # simulated again from the cached frame before, by a fresh World, is the one played, bit for bit (without the
    # add-on's reset of the preconditioner, 0.3-0.9 mm apart; this test allowed 1e-9 m before the rotations the polar
    # decomposition starts from were cached). With contact: test_addon_resume_bake.py.
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 5
    obj = add_rubber_cube(bpy, floor=False)
    obj.softfem.initial_angular_velocity = (0.0, 20.0, 0.0)   # spinning: the CG has work to do every step
    for f in range(1, 6):
        scene.frame_set(f)
    sess = softfem.addon.session.existing(scene)
    assert sess.world.stats["preconditioner"] == "multigrid"
    played = sess.positions(scene, obj.name, 5).copy()
    path = sess.cache.disk[5]
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    softfem.addon.session.forget()   # as after reopening: only the files remain
    scene.frame_set(1)
    scene.frame_set(4)
    sess = softfem.addon.session.existing(scene)
    calls = sess.core_calls
    scene.frame_set(5)
    assert sess.core_calls > calls   # simulated again from frame 4
    assert sess.world.stats["preconditioner"] == "multigrid"
    np.testing.assert_array_equal(sess.positions(scene, obj.name, 5), played)


def test_a_cache_written_before_the_motion_was_cached_plays_and_simulates_on(blender, softfem):
    # version 1 files hold x and v alone: read as frames with no motion (the CG's warm start starts from Δt v)
    import struct
    bpy = blender
    scene, obj = ball(bpy, frames=5)
    for f in range(1, 6):
        scene.frame_set(f)
    sess = softfem.addon.session.existing(scene)
    played = {f: sess.positions(scene, obj.name, f).copy() for f in (4, 5)}
    cache_files = softfem.addon.cache_files
    frame, signature, bodies, carried = cache_files.read_frame(sess.cache.disk[4])
    assert bodies[0][3] is not None and carried      # this version caches the ball's motion and the World's carried
    with open(sess.cache.disk[4], "wb") as f:              # frame 4 as version 1 wrote it
        f.write(struct.pack("<8sIi32sI", cache_files.MAGIC, 1, frame, signature.encode("ascii").ljust(32), 1))
        name = bodies[0][0].encode("utf-8")
        f.write(struct.pack("<HI", len(name), len(bodies[0][1])) + name)
        f.write(bodies[0][1].astype("<f8").tobytes() + bodies[0][2].astype("<f8").tobytes())
    os.remove(sess.cache.disk[5])
    softfem.addon.session.forget()   # as after reopening: only the files remain
    scene.frame_set(1)
    scene.frame_set(4)
    sess = softfem.addon.session.existing(scene)
    np.testing.assert_array_equal(sess.positions(scene, obj.name, 4), played[4])
    scene.frame_set(5)
    assert sess.error is None and not sess.warnings
    # simulated again from frame 4 without its motion: the same frame within the CG's tolerance
    np.testing.assert_allclose(sess.positions(scene, obj.name, 5), played[5], atol=1e-4)


def test_a_cache_written_before_the_carried_state_was_cached_plays_and_simulates_on(blender, softfem):
    # version 2 files hold x, v and the motion: read as frames that carry nothing else (resumed as before)
    import struct
    bpy = blender
    scene, obj = ball(bpy, frames=5)
    for f in range(1, 6):
        scene.frame_set(f)
    sess = softfem.addon.session.existing(scene)
    played = {f: sess.positions(scene, obj.name, f).copy() for f in (4, 5)}
    cache_files = softfem.addon.cache_files
    frame, signature, bodies, carried = cache_files.read_frame(sess.cache.disk[4])
    with open(sess.cache.disk[4], "wb") as f:              # frame 4 as version 2 wrote it
        f.write(struct.pack("<8sIi32sI", cache_files.MAGIC, 2, frame, signature.encode("ascii").ljust(32), 1))
        name, x, v, (a, p) = bodies[0]
        f.write(struct.pack("<HIB", len(name.encode("utf-8")), len(x), 1) + name.encode("utf-8"))
        f.write(b"".join(q.astype("<f8").tobytes() for q in (x, v, a, p)))
    assert cache_files.read_frame(sess.cache.disk[4])[3] is None
    os.remove(sess.cache.disk[5])
    softfem.addon.session.forget()   # as after reopening: only the files remain
    scene.frame_set(1)
    scene.frame_set(4)
    sess = softfem.addon.session.existing(scene)
    np.testing.assert_array_equal(sess.positions(scene, obj.name, 4), played[4])
    assert sess.cache.carried(4, sess.bodies) is None
    scene.frame_set(5)
    assert sess.error is None and not sess.warnings
    np.testing.assert_allclose(sess.positions(scene, obj.name, 5), played[5], atol=1e-4)
    assert sess.cache.carried(5, sess.bodies)      # simulated again: it carries on from here


def test_mesh_cache_export_plays_without_the_addon(blender, softfem):
    import addon_utils
    bpy = blender
    scene, obj = ball(bpy, frames=5)
    obj.location = (0.3, -0.2, 2.0)
    obj.rotation_euler = (0.4, 0.0, 0.7)
    assert bpy.ops.softfem.bake() == {'FINISHED'}
    sess = softfem.addon.session.existing(scene)
    expected = {}
    for f in range(1, 6):
        scene.frame_set(f)
        m = np.array(obj.matrix_world)
        world = sess.positions(scene, obj.name, f)
        expected[f] = (world, np.linalg.solve(m[:3, :3], (world - m[:3, 3]).T).T.astype(np.float32))
    assert bpy.ops.softfem.bake_to_mesh_cache() == {'FINISHED'}
    cache_mod = obj.modifiers["SoftFEM Mesh Cache"]
    assert [m.name for m in obj.modifiers] == ["SoftFEM", "SoftFEM Mesh Cache"]
    start, _rate, samples = softfem.addon.pc2.read_pc2(bpy.path.abspath(cache_mod.filepath))
    assert start == 1 and samples.shape == (5, len(obj.data.vertices), 3)
    addon_utils.disable(MODULE, default_set=True)
    try:
        assert not hasattr(obj, "softfem")
        for f in (5, 1, 3, 4, 2):
            scene.frame_set(f)
            local = evaluated_local(bpy, obj)
            np.testing.assert_array_equal(local, samples[f - 1])  # played back bit for bit (float32)
            np.testing.assert_allclose(local, expected[f][1], atol=1e-6)
            m = np.array(obj.matrix_world)
            np.testing.assert_allclose(local @ m[:3, :3].T + m[:3, 3], expected[f][0], atol=1e-5)
    finally:
        addon_utils.enable(MODULE, default_set=True)


def test_a_mesh_cache_follows_its_project_when_the_project_moves(blender, softfem, tmp_path):
    # Round 4: the Mesh Cache modifier kept an absolute path, so a project moved (a farm mounts it elsewhere) lost it
    import shutil
    bpy = blender
    scene, obj = ball(bpy, frames=5)
    (tmp_path / "project").mkdir()
    scene.softfem.cache_directory = "//softfem_cache/"
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "project" / "shot.blend"))
    assert bpy.ops.softfem.bake() == {'FINISHED'}
    assert bpy.ops.softfem.bake_to_mesh_cache() == {'FINISHED'}
    assert obj.modifiers["SoftFEM Mesh Cache"].filepath.startswith("//")
    scene.frame_set(4)
    drawn, name = evaluated_local(bpy, obj), obj.name
    bpy.ops.wm.save_mainfile()
    shutil.move(str(tmp_path / "project"), str(tmp_path / "moved"))
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "moved" / "shot.blend"))
    obj = bpy.data.objects[name]
    obj.modifiers["SoftFEM"].show_viewport = False              # as a render node without SoftFEM draws it
    bpy.context.scene.frame_set(3)
    bpy.context.scene.frame_set(4)
    np.testing.assert_allclose(evaluated_local(bpy, obj), drawn, atol=1e-6)


def test_two_blend_files_sharing_a_cache_folder_keep_their_own_frames(blender, softfem, tmp_path):
    bpy = blender
    scene, obj = ball(bpy, frames=3)
    for f in range(1, 4):
        scene.frame_set(f)
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "v1.blend"))
    cache_dir = bpy.path.abspath(scene.softfem.cache_directory)
    v1 = sorted(n for n in os.listdir(cache_dir) if n.startswith("v1_"))
    assert len(v1) == 3 and len(os.listdir(cache_dir)) == 3  # the unsaved file's cache moved to v1_*
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "v2.blend"))
    assert len([n for n in os.listdir(cache_dir) if n.startswith("v2_")]) == 3  # copied for v2
    v1_bytes = {n: open(os.path.join(cache_dir, n), "rb").read() for n in v1}
    obj.softfem.youngs_modulus *= 3  # v2 re-simulates: its outdated frames go, v1's stay untouched
    scene.frame_set(1)
    scene.frame_set(2)
    assert {n: open(os.path.join(cache_dir, n), "rb").read() for n in v1} == v1_bytes
    assert sorted(n for n in os.listdir(cache_dir) if n.startswith("v2_")) == \
        ["v2_Scene_000001.sfc", "v2_Scene_000002.sfc"]
