"""The same scene plays the same, bit for bit, every time it is simulated in a Blender session."""
import os

import numpy as np
from addon_testing import evaluated_world

FRAMES = 16


def tumbling_pile(bpy, tmp_path, run):
    """Five default cubes (54k tets at the defaults: the CG runs on every thread) dropped tilted one over another on
    a Collision plane, played for FRAMES frames: each frame's render vertices, all cubes."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    from addon_testing import link_and_enable
    link_and_enable()
    scene = bpy.context.scene
    scene.softfem.cache_directory = str(tmp_path / f"cache{run}") + os.sep
    bpy.ops.mesh.primitive_plane_add(size=20.0)
    bpy.context.active_object.modifiers.new("Collision", 'COLLISION')
    rng = np.random.default_rng(1)
    cubes = []
    for i in range(5):
        location = (*rng.uniform(-0.12, 0.12, 2), 0.25 + 0.3 * i)
        bpy.ops.mesh.primitive_cube_add(size=0.2, location=location, rotation=tuple(rng.uniform(0.0, 0.6, 3)))
        cubes.append(bpy.context.active_object)
    for obj in cubes:
        bpy.ops.object.select_all(action='DESELECT')
        obj.select_set(True)
        bpy.context.view_layer.objects.active = obj
        assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    frames = []
    for f in range(1, FRAMES + 1):
        scene.frame_set(f)
        frames.append(np.concatenate([evaluated_world(bpy, obj) for obj in cubes]))
    return frames


def test_a_pile_of_cubes_simulated_twice_in_a_session_is_the_same_bit_for_bit(blender, tmp_path):
    # With numba's TBB threading layer (Blender ships TBB) the two runs parted from frame 5-13 on: the CG's sums
    # depended on TBB's scheduling.
    first = tumbling_pile(blender, tmp_path, 1)
    second = tumbling_pile(blender, tmp_path, 2)
    assert first[0][:, 2].min() != first[-1][:, 2].min()       # they moved
    for f, (a, b) in enumerate(zip(first, second), 1):
        assert np.array_equal(a, b), f"frame {f}: {np.abs(a - b).max():.3g} m apart"
    import numba
    assert numba.threading_layer() == "omp"
