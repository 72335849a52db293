"""The defaults that make SoftFEM fast: Resolution Auto (a cage of at most 1,500 tets, said in the panel) and
Adaptive substeps (one step a frame when calm, all of them at the landing), played through Blender."""
import numpy as np
import pytest
from addon_testing import add_ico
from test_scenes_defaults_blender import collision_plane


def test_a_ball_dropped_at_the_defaults_gets_an_auto_cage_and_takes_its_substeps_only_at_the_landing(blender,
                                                                                                   softfem):
    # A 1 m icosphere dropped 1 m (it lands at 4.4 m/s, 0.18 m a frame at 24 fps, against Auto's 0.14 m cells):
    # a step a frame at the start, more as it falls, all 4 through the landing's swing, one a frame at rest
    bpy = blender
    scene = bpy.context.scene
    scene.frame_end = 120
    collision_plane(bpy)
    ball = add_ico(bpy, location=(0.0, 0.0, 1.52), radius=0.5)
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    assert ball.softfem.resolution == 0 and scene.softfem.adaptive_substeps
    assert "(Auto: resolution " in ball.softfem.cage_summary and 1000 < ball.softfem.cage_tets <= 1500
    steps = []
    scene.frame_set(1)
    for f in range(2, 121):
        sess = softfem.addon.session.existing(scene)
        before = sess.core_calls if sess is not None and sess.world is not None else 0
        scene.frame_set(f)
        sess = softfem.addon.session.existing(scene)
        steps.append(sess.core_calls - before)
        assert sess.error is None
    steps = np.array(steps)
    assert steps[0] == 1 and steps.max() == scene.softfem.substeps
    landing = int(np.argmax(steps == scene.softfem.substeps))
    assert np.all(np.diff(steps[:landing + 1]) >= 0), steps       # more steps as it falls faster
    assert np.all(steps[-24:] == 1), steps                         # at rest: one a frame
    assert steps.sum() < 0.5 * scene.softfem.substeps * len(steps), steps.sum()


def test_the_panel_names_a_part_thinner_than_the_auto_cell_and_the_resolution_that_holds_it(blender, softfem):
    # Suzanne of the Add menu, 2 m: her brow over the eyes and her ears are thinner than her Auto cage's 0.25 m cells,
    # so they bend too stiffly; the panel names the largest such part, how thick it is, and which Resolution puts two
    # cells through it. The ball of the Add menu has no such part.
    bpy = blender
    bpy.ops.mesh.primitive_monkey_add(size=2.0, location=(0.0, 0.0, 2.0))
    monkey = bpy.context.active_object
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    line = monkey.softfem.cage_thin
    assert line.startswith("Thinner than a cell") and "; Refine Thin Parts or Resolution " in line, line
    need = int(line.rsplit("Resolution ", 1)[1].split()[0])
    cell = float(line.split("(")[1].split(" m)")[0])
    thick = float(line.split(" m thick")[0].rsplit(", ", 1)[1])
    assert "(Auto: resolution 11)" in monkey.softfem.cage_summary and thick < cell, line
    assert need == pytest.approx(2 * max(monkey.dimensions) / thick, rel=0.1), line      # two cells through it
    near = np.array([float(c) for c in line.split("near (")[1].split(")")[0].split(",")])
    assert np.all(np.abs(near) <= 0.5 * np.array(monkey.dimensions) + 1e-3), line        # on the body
    bpy.ops.object.select_all(action='DESELECT')
    ball = add_ico(bpy, location=(4.0, 0.0, 2.0), radius=0.5, name="Ball")
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    assert ball.softfem.cage_thin == ""


def test_refine_thin_parts_holds_suzannes_ears_and_they_droop_more(blender, softfem):
    # Suzanne of the Add menu, 2 m, held at the back of her head by a pin group. Refine Thin Parts bisects her Auto
    # cage where she is thinner than a cell (her ears, her brow) until two cells go through: the panel's thin-part
    # line goes, and her ears, stiffened by cells several times their thickness, droop further (a conforming mesh's
    # ears droop 17-21 cm at rest; her Auto cage's 3 cm, tests/core/test_graded_cage.py and docs/method.md)
    bpy = blender
    scene = bpy.context.scene
    droop = {}
    for refine in (False, True):
        bpy.ops.object.select_all(action='DESELECT')
        bpy.ops.mesh.primitive_monkey_add(size=2.0, location=(4.0 * refine, 0.0, 2.0))
        monkey = bpy.context.active_object
        local = np.array([v.co[:] for v in monkey.data.vertices])
        group = monkey.vertex_groups.new(name="Pin")
        group.add(np.flatnonzero((local[:, 1] > 0.1) & (np.abs(local[:, 0]) < 0.7)).tolist(), 1.0, 'REPLACE')
        monkey.softfem.pin_group = "Pin"
        monkey.softfem.refine_thin = refine
        assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
        s = monkey.softfem
        if refine:
            assert s.cage_thin == "" and "thin parts refined" in s.cage_summary, (s.cage_thin, s.cage_summary)
            assert s.cage_tets > 5 * droop[False][1]
        else:
            assert "Refine Thin Parts or Resolution" in s.cage_thin, s.cage_thin
        droop[refine] = [monkey.name, s.cage_tets, local, 0.0]
    scene.frame_set(1)
    sess = softfem.addon.session.existing(scene)
    for f in range(2, 25):
        scene.frame_set(f)
        assert sess.error is None
        for refine, (name, _, local, lowest) in droop.items():
            ears = np.argsort(-np.abs(local[:, 0]))[:18]
            world = sess.positions(scene, name, f)
            droop[refine][3] = max(lowest, float((local[ears, 2] + 2.0 - world[ears, 2]).mean()))
    assert droop[True][3] > 2.0 * droop[False][3], (droop[True][3], droop[False][3])
    assert droop[True][3] < 0.5, droop[True][3]
