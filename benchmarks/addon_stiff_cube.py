"""Blender's default cube (0.2 m) dropped 5 cm on a Collision plane through the add-on: ms per frame and CG iterations
per step with the Rubber preset and with the default material (issue 14).

Add Soft Body at the defaults (resolution 12, 4 substeps at 24 fps, CG cap 50), then the Rubber preset or nothing;
frames 1..--frames by scene.frame_set (the cache in a temporary folder). Prints per material the median ms per frame
over the frames after the first in which no step slept (the cube falls asleep ~0.5 s after landing), the CG
iterations per awake step (median, largest, share of steps whose solves all stopped at the cap), the preconditioner
the steps used, and the load average.
Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/addon_stiff_cube.py [--frames 24] [--rounds 2]
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests", "blender"))
import conftest  # noqa: E402,F401  (sets the throwaway Blender user folder before bpy is imported)
from addon_testing import link_and_enable  # noqa: E402


def play(preset, frames):
    """Per frame after the first: ms, and per step (CG iterations, solves, cap, preconditioner or "asleep")."""
    import bpy
    bpy.ops.wm.read_factory_settings(use_empty=True)
    softfem = link_and_enable()
    scene = bpy.context.scene
    scene.softfem.cache_directory = tempfile.mkdtemp(prefix="softfem_stiff_") + os.sep
    scene.frame_start, scene.frame_end = 1, frames
    bpy.ops.mesh.primitive_plane_add(size=4.0)
    bpy.context.object.modifiers.new("Collision", "COLLISION")
    bpy.ops.mesh.primitive_cube_add(size=0.2, location=(0.0, 0.0, 0.15))
    cube = bpy.context.object
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    if preset:
        cube.softfem.preset = preset
    World = softfem.addon.dependencies.load_core().World
    steps, step = [], World.step

    def recording_step(self, dt):
        step(self, dt)
        s = self.stats
        steps.append((s["cg_iterations"], s.get("solves", 0), self.settings.cg_iterations,
                      s.get("preconditioner", "asleep")))

    World.step = recording_step
    try:
        played = []
        for f in range(1, frames + 1):
            steps.clear()
            t0 = time.perf_counter()
            scene.frame_set(f)
            played.append(((time.perf_counter() - t0) * 1e3, list(steps)))
    finally:
        World.step = step
    return played[1:], cube.softfem.cage_tets


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    for r in range(args.rounds):
        for preset in ("RUBBER", ""):
            load = os.getloadavg()[0]
            played, tets = play(preset, args.frames)
            awake = [(ms, steps) for ms, steps in played if all(s[3] != "asleep" for s in steps)]
            steps = [s for _, frame_steps in awake for s in frame_steps]
            its = np.array([s[0] for s in steps])
            capped = np.mean([s[0] >= s[1] * s[2] for s in steps])
            used = [s[3] for _, frame_steps in played for s in frame_steps]
            kinds = ", ".join(f"{k} {used.count(k)}" for k in sorted(set(used)))
            print(f"round {r + 1} {preset or 'default material':16s} ({tets} tets) | "
                  f"{np.median([ms for ms, _ in awake]):6.1f} ms/frame (median of the {len(awake)} awake frames of "
                  f"2-{args.frames}) | CG iterations a step median {np.median(its):.0f}, max {its.max()}, all solves "
                  f"at the cap in {100 * capped:.0f} % of steps | steps by {kinds} | load "
                  f"{load:.2f}-{os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
