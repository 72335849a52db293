"""Operator hygiene: negative frames in the cache, poll() in Edit Mode, undo and the baked flag, no mesh hashing
in draw(), property limits the solver accepts, settings that cannot vary in time not animatable, the manifest."""
import os
import sys
import tomllib

import numpy as np
import pytest
from addon_testing import MODULE, REPO, add_ico, evaluated_local


def ball(bpy, start=1, end=4):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = start, end
    obj = add_ico(bpy, subdivisions=1)
    obj.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    return scene, obj


def test_negative_frames_survive_save_and_reopen_and_free_bake_removes_them(blender, softfem, tmp_path,
                                                                               monkeypatch):
    import addon_utils
    bpy = blender
    scene, obj = ball(bpy, start=0, end=1)
    scene.softfem.use_frame_range = True              # a pre-roll: Blender's scene range cannot go below 0
    assert (scene.softfem.frame_start, scene.softfem.frame_end) == (0, 1)   # starts as the scene's
    scene.softfem.frame_start = -3
    assert bpy.ops.softfem.bake() == {'FINISHED'}
    shown = {}
    for f in range(-3, 2):
        scene.frame_set(f)
        shown[f] = evaluated_local(bpy, obj).copy()
    assert not np.allclose(shown[-3], shown[1])  # it fell
    cache_dir = bpy.path.abspath(scene.softfem.cache_directory)
    names = sorted(os.listdir(cache_dir))
    assert names == sorted(f"unsaved_Scene_{'-' if f < 0 else ''}{abs(f):06d}.sfc" for f in range(-3, 2))
    blend = str(tmp_path / "neg.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    addon_utils.enable(MODULE, default_set=True)
    bpy.ops.wm.open_mainfile(filepath=blend)

    def no_solver(*_args, **_kwargs):
        raise AssertionError("the solver was called while playing a baked cache")
    monkeypatch.setattr(softfem.core.World, "step", no_solver)
    scene = bpy.context.scene
    obj = scene.objects["Ball"]
    for f in (-3, -1, 1, -2, 0):
        scene.frame_set(f)
        np.testing.assert_allclose(evaluated_local(bpy, obj), shown[f], atol=1e-6)
    assert softfem.addon.session.existing(scene).cached_frames() == list(range(-3, 2))
    monkeypatch.undo()
    assert len(os.listdir(cache_dir)) == 5
    assert bpy.ops.softfem.free_bake() == {'FINISHED'}
    assert os.listdir(cache_dir) == []


def test_cache_file_names_of_negative_frames_written_by_earlier_versions_are_listed(softfem, tmp_path):
    cache_files = softfem.addon.cache_files
    for name in ("p_-00005.sfc", "p_-000012.sfc", "p_000003.sfc", "p_0003.sfc", "q_000001.sfc"):
        (tmp_path / name).write_bytes(b"")
    assert sorted(cache_files.list_frames(str(tmp_path), "p")) == [-12, -5, 3]
    assert os.path.basename(cache_files.frame_path(str(tmp_path), "p", -7)) == "p_-000007.sfc"


def test_operators_poll_false_in_edit_mode(blender, softfem):
    bpy = blender
    obj = add_ico(bpy, subdivisions=1)
    obj.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body.poll()
    bpy.ops.object.mode_set(mode='EDIT')
    for op in (bpy.ops.softfem.add_soft_body, bpy.ops.softfem.remove_soft_body, bpy.ops.softfem.tetrahedralize,
               bpy.ops.softfem.bake, bpy.ops.softfem.free_bake, bpy.ops.softfem.bake_to_mesh_cache):
        assert not op.poll(), op
    with pytest.raises(RuntimeError) as exc:
        bpy.ops.softfem.add_soft_body()
    assert "Leave Edit Mode first" in str(exc.value)
    assert not obj.softfem.enabled
    bpy.ops.object.mode_set(mode='OBJECT')
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    assert not bpy.ops.softfem.add_soft_body.poll()   # already a SoftFEM body
    for op in (bpy.ops.softfem.remove_soft_body, bpy.ops.softfem.tetrahedralize, bpy.ops.softfem.bake,
               bpy.ops.softfem.free_bake):
        assert op.poll(), op


def test_undo_keeps_the_baked_flag_as_the_cache_files_are(blender, softfem):
    bpy = blender
    scene, obj = ball(bpy, end=3)
    cache_dir = bpy.path.abspath(scene.softfem.cache_directory)
    bpy.ops.ed.undo_push(message="before the bake")
    assert bpy.ops.softfem.bake() == {'FINISHED'}
    obj.location.x += 1.0
    bpy.ops.ed.undo_push(message="move")
    bpy.ops.ed.undo()                     # back to the step saved before the bake (baked was False there)
    scene = bpy.context.scene
    assert scene.softfem.baked and len(os.listdir(cache_dir)) == 3
    assert bpy.ops.softfem.free_bake() == {'FINISHED'}
    scene.objects["Ball"].location.x += 1.0
    bpy.ops.ed.undo_push(message="move again")
    bpy.ops.ed.undo()                     # a step saved while the cache was baked
    scene = bpy.context.scene
    assert not scene.softfem.baked
    # the freed frames stay freed (showing the current frame after the undo may cache the start frame again)
    assert os.listdir(cache_dir) in ([], ["unsaved_Scene_000001.sfc"])


def test_panel_draw_does_no_mesh_hashing(blender, softfem, monkeypatch):
    from test_addon_panels import draw_all
    bpy = blender
    scene, obj = ball(bpy, end=3)
    floor = add_ico(bpy, name="Floor", location=(0.0, 0.0, -1.0))
    floor.modifiers.new("Collision", 'COLLISION')
    for f in (1, 2):
        scene.frame_set(f)
        bpy.context.view_layer.update()
    calls = []
    real = softfem.addon.bridge.fingerprint
    monkeypatch.setattr(softfem.addon.bridge, "fingerprint", lambda mesh: calls.append(mesh.name) or real(mesh))
    for _ in range(20):
        draw_all(softfem, bpy, obj)
        draw_all(softfem, bpy, floor)
    assert calls == []
    obj.data.vertices[0].co.x += 0.01   # an edit: the next draw hashes that mesh once
    bpy.context.view_layer.update()
    for _ in range(5):
        log = draw_all(softfem, bpy, obj)
    assert calls == [obj.data.name]
    assert any(entry[1].startswith("Cache outdated") for entry in log)


def test_property_limits_are_what_the_solver_accepts(blender, softfem):
    bpy = blender
    obj = add_ico(bpy, subdivisions=1)
    props = obj.softfem.bl_rna.properties
    s = obj.softfem
    s.youngs_modulus, s.poisson_ratio, s.density, s.damping, s.friction = 0.0, 0.5, 0.0, -1.0, -1.0
    assert (s.youngs_modulus, s.density) == (props["youngs_modulus"].hard_min, props["density"].hard_min)
    assert s.youngs_modulus > 0 and s.density > 0 and s.poisson_ratio < 0.5 and s.damping == s.friction == 0
    softfem.core.Material(youngs_modulus=s.youngs_modulus, poisson_ratio=props["poisson_ratio"].hard_min,
                          density=s.density, damping_stiffness=s.damping, friction=s.friction)
    with pytest.warns(UserWarning):   # linear tets lock above 0.45: accepted with a warning
        softfem.core.Material(youngs_modulus=s.youngs_modulus, poisson_ratio=s.poisson_ratio, density=s.density)


def test_settings_that_cannot_vary_in_time_are_not_animatable(blender, softfem):
    bpy = blender
    obj = add_ico(bpy, subdivisions=1)
    fixed = {"resolution", "mode", "density", "poisson_ratio", "preset", "pin_group", "stiffness_group",
             "enabled", "material_model", "mooney_rivlin_c01", "mooney_rivlin_c10"}
    for name in fixed:
        assert not obj.softfem.bl_rna.properties[name].is_animatable, name
    for name in ("substeps", "integrator", "newton_iterations", "cg_iterations", "cache_directory"):
        assert not bpy.context.scene.softfem.bl_rna.properties[name].is_animatable, name
    with pytest.raises(TypeError):
        obj.keyframe_insert('softfem.resolution')


def test_manifest_matches_the_bundled_cp311_wheels():
    with open(os.path.join(REPO, "blender_manifest.toml"), "rb") as f:
        manifest = tomllib.load(f)
    assert manifest["blender_version_min"] == "4.2.0"
    # Blender 4.2-5.0 run Python 3.11 (this bpy is one of them); 5.1 runs 3.13, which cp311 wheels do not fit.
    assert manifest["blender_version_max"] == "5.1.0"
    import bpy
    assert bpy.app.version < (5, 1, 0) and sys.version_info[:2] == (3, 11)
