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
    assert line.startswith("Thinner than a cell") and "bends too stiffly; Resolution " in line, line
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
