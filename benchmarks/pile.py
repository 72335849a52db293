"""A pile of props through Blender at the add-on's defaults: eighteen small bodies dropped into an open box, ms per frame.

The scene a user builds to fill a crate: a 1.2 m box (Blender's cube with its top face deleted, a Collision modifier)
on a 10 m Collision plane, and above it two layers of nine props on a 0.3 m grid, in turn Blender's default cube at
0.2 m (tilted), an icosphere (2 subdivisions, r = 0.12 m) and Suzanne (0.25 m, tilted), each made a soft body by Add
Soft Body with nothing else set (resolution Auto, E = 1e5 Pa, at most 4 substeps at 24 fps, Adaptive). 96 frames by frame_set, nothing
cached before. Prints per frame ms every 12 frames, the median ms per frame after the first and the total, the lowest
render vertex against the shell (0.02 m), the cages' tets, and the cubes' and icospheres' volume kept at the end.
`--resolution N` cages every prop at N instead (a small prop at 12 gets as many cells as a big one: 11k tets for a
0.2 m cube); `--fixed` takes every substep every frame (`--resolution 12 --fixed`: the defaults before Auto).
Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/pile.py [--resolution N] [--fixed] [--frames 96]
"""
import argparse
import os
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "blender"))
import conftest  # noqa: E402,F401  (sets the throwaway Blender user folder before bpy is imported)
import bpy  # noqa: E402
import numpy as np  # noqa: E402
from addon_testing import link_and_enable  # noqa: E402
from vs_blender_softbody import enclosed_volume, mesh_arrays  # noqa: E402

SHELL = 0.02   # Blender's default Collision outer thickness


def open_box(size):
    """Blender's cube scaled to `size`, standing on z = 0, with its top face deleted, as a Collision object."""
    bpy.ops.mesh.primitive_cube_add(size=size, location=(0.0, 0.0, size / 2))
    box = bpy.context.active_object
    bpy.ops.object.mode_set(mode='EDIT')
    bpy.ops.mesh.select_all(action='DESELECT')
    bpy.ops.object.mode_set(mode='OBJECT')
    max(box.data.polygons, key=lambda p: p.center.z).select = True
    bpy.ops.object.mode_set(mode='EDIT')
    bpy.ops.mesh.delete(type='FACE')
    bpy.ops.object.mode_set(mode='OBJECT')
    box.modifiers.new("Collision", 'COLLISION')
    return box


def props(resolution):
    """The eighteen props, each made a soft body by the operator (at `resolution` when given)."""
    rng = np.random.default_rng(3)
    objs = []
    for k in range(18):
        loc = (0.3 * (k % 3 - 1), 0.3 * (k // 3 % 3 - 1), 1.5 + 0.35 * (k // 9))
        tilt = tuple(rng.uniform(0.0, 1.0, 3))
        if k % 3 == 0:
            bpy.ops.mesh.primitive_cube_add(size=0.2, location=loc, rotation=tilt)
        elif k % 3 == 1:
            bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=2, radius=0.12, location=loc)
        else:
            bpy.ops.mesh.primitive_monkey_add(size=0.25, location=loc, rotation=tilt)
        obj = bpy.context.active_object
        if resolution:
            obj.softfem.resolution = resolution
        bpy.ops.object.select_all(action='DESELECT')
        obj.select_set(True)
        bpy.context.view_layer.objects.active = obj
        bpy.ops.softfem.add_soft_body()
        objs.append(obj)
    return objs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--resolution", type=int, default=0)
    ap.add_argument("--frames", type=int, default=96)
    ap.add_argument("--fixed", action="store_true", help="every substep every frame (Adaptive off)")
    args = ap.parse_args()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    link_and_enable()
    scene = bpy.context.scene
    scene.softfem.cache_directory = tempfile.mkdtemp(prefix="softfem_pile_") + os.sep
    scene.frame_start, scene.frame_end = 1, args.frames
    scene.softfem.adaptive_substeps = not args.fixed
    bpy.ops.mesh.primitive_plane_add(size=10.0)
    bpy.context.active_object.modifiers.new("Collision", 'COLLISION')
    open_box(1.2)
    objs = props(args.resolution)
    closed = [k for k in range(len(objs)) if k % 3 != 2]   # Suzanne is open (her eyes): no enclosed volume

    def positions():
        return [mesh_arrays(o, bpy.context.evaluated_depsgraph_get()) for o in objs]

    shapes = positions()
    v0 = [enclosed_volume(*shapes[k]) for k in closed]
    ms, lowest = [], np.inf
    for f in range(1, args.frames + 1):
        t0 = time.perf_counter()
        scene.frame_set(f)
        ms.append((time.perf_counter() - t0) * 1e3)
        shapes = positions()
        lowest = min(lowest, min(v[:, 2].min() for v, _ in shapes))
        if f % 12 == 0:
            print(f"frame {f}: {ms[-1]:.0f} ms, the props' widest |x|, |y| "
                  f"{max(np.abs(v[:, :2]).max() for v, _ in shapes):.3f} m (the box's walls at 0.6)", flush=True)
    kept = [enclosed_volume(*shapes[k]) / v for k, v in zip(closed, v0)]
    tets = sum(o.softfem.cage_tets for o in objs)
    print(f"18 props, resolution {args.resolution or 'Auto'}, {'fixed' if args.fixed else 'adaptive'} substeps, {tets} tets: median {np.median(ms[1:]):.0f} ms/frame "
          f"after the first, {sum(ms[1:]) / 1e3:.1f} s for frames 2-{args.frames}; lowest vertex {lowest:.4f} m "
          f"(shell {SHELL}); volume kept by the cubes and icospheres {min(kept):.1%}-{max(kept):.1%}")


if __name__ == "__main__":
    main()
