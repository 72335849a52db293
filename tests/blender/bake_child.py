"""A Blender child process for the bake tests: builds and saves a scene of three soft balls falling onto a plane and
onto each other, or opens a saved one, then bakes it (run as `python bake_child.py new|open BLEND END
[--forget-carried]`; the cache goes to the folder "cache" beside BLEND)."""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BALLS = [(0.0, 0.0, 0.3), (0.12, 0.05, 0.85), (-0.1, 0.12, 1.4)]   # radius 0.25 m: each lands on the one below


def build(bpy, blend, end):
    from addon_testing import add_ico
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, end
    scene.softfem.cache_directory = "//cache" + os.sep   # (relative: the folder can be copied with its cache)
    bpy.ops.mesh.primitive_plane_add(size=4.0)
    bpy.context.active_object.modifiers.new("Collision", 'COLLISION')
    for i, location in enumerate(BALLS):
        obj = add_ico(bpy, location=location, subdivisions=1, radius=0.25, name=f"Ball{i}")
        obj.rotation_euler = tuple(np.random.default_rng(i).uniform(0.0, 1.0, 3))
        obj.softfem.resolution = 4
        assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    bpy.ops.wm.save_as_mainfile(filepath=blend)


def main():
    mode, blend, end = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sys.path.insert(0, HERE)
    import bpy
    from addon_testing import link_and_enable
    softfem = link_and_enable()
    if "--forget-carried" in sys.argv:   # resume as before the World's carried state was cached: x, v, motion
        softfem.addon.frame_cache.FrameCache.carried = lambda self, frame, bodies: None
    if mode == "new":
        bpy.ops.wm.read_factory_settings(use_empty=True)
        softfem = link_and_enable()
        build(bpy, blend, end)
    else:
        bpy.ops.wm.open_mainfile(filepath=blend)
    scene = bpy.context.scene
    started = time.perf_counter()
    result = bpy.ops.softfem.bake()
    sess = softfem.addon.session.existing(scene)
    if result != {'FINISHED'} or sess.error or sess.warnings:
        print("bake failed:", result, sess.error, sess.warnings, flush=True)
        sys.exit(1)
    print(f"baked in {time.perf_counter() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main()
