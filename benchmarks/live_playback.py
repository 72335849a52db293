"""Live playback in headless Blender: the stanford bunny (cage, add-on defaults) dropped 30 cm on a Collision plane, ms
per frame, timed through the landing.

The frames are driven as live playback drives them: scene.frame_set(f) for f = 1..N, nothing cached, the
frame handler simulating each frame and writing it back. Prints the median and 90th percentile per frame of
the whole frame_set, World.step (the solver) split into FEM and contact parts, and the add-on's own work.
Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/live_playback.py [--frames 60] [--substeps N] [--resolution N] [--fixed]
     [--damping S] [--profile]
"""
import argparse
import cProfile
import collections
import os
import pstats
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "blender"))
import conftest  # noqa: E402  (sets the throwaway Blender user folder before bpy is imported)
import bpy  # noqa: E402
import numpy as np  # noqa: E402
from addon_testing import link_and_enable  # noqa: E402
from part_timers import Timers  # noqa: E402

BUNNY = os.path.join(REPO, "..", "shared", "models", "stanford-bunny.obj")
SIZE = 0.5    # m, the bunny's longest side
GAP = 0.30    # m, between the bunny's lowest vertex and the plane's outer thickness (it lands at frame 7, timed)
WARMUP = 12   # frames played (and freed) before the timed pass, which simulates them again


def build_scene(softfem, substeps=None, damping=None, resolution=None, fixed=False):
    """Factory scene: a 10 m Collision plane and the bunny (longest side SIZE) made a soft body by the operator."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    link_and_enable()
    scene = bpy.context.scene
    scene.softfem.cache_directory = tempfile.mkdtemp(prefix="softfem_live_") + os.sep
    if substeps is not None:
        scene.softfem.substeps = substeps
    scene.softfem.adaptive_substeps = not fixed
    bpy.ops.mesh.primitive_plane_add(size=10.0, location=(0, 0, 0))
    plane = bpy.context.active_object
    plane.name = "Floor"
    plane.modifiers.new("Collision", 'COLLISION')
    bpy.ops.wm.obj_import(filepath=BUNNY)
    bunny = bpy.context.selected_objects[0]
    bunny.name = "Bunny"
    co = softfem.addon.bridge.read_vertices(bunny.data) @ np.array(bunny.matrix_world)[:3, :3].T
    lo, hi = co.min(axis=0), co.max(axis=0)
    s = SIZE / float((hi - lo).max())
    bunny.scale = (s * bunny.scale[0], s * bunny.scale[1], s * bunny.scale[2])
    centre = 0.5 * (lo + hi) * s
    bunny.location = (-centre[0], -centre[1], -lo[2] * s + plane.collision.thickness_outer + GAP)
    bpy.ops.object.select_all(action='DESELECT')
    bunny.select_set(True)
    bpy.context.view_layer.objects.active = bunny
    if resolution is not None:
        bunny.softfem.resolution = resolution
    t = time.perf_counter()
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    if damping is not None:
        bunny.softfem.damping = damping
    print(f"bunny: {len(bunny.data.vertices)} vertices, {len(bunny.data.polygons)} faces; cage "
          f"{bunny.softfem.cage_nodes} nodes, {bunny.softfem.cage_tets} tets (resolution {bunny.softfem.resolution or 'Auto'}, "
          f"add_soft_body {time.perf_counter() - t:.1f} s); {'fixed' if fixed else 'adaptive, at most'} {scene.softfem.substeps} substeps at "
          f"{scene.render.fps} fps, E = {bunny.softfem.youngs_modulus:g} Pa")
    return scene, bunny


def instrument(softfem, timers):
    """Time the solver's phases and contact parts and the add-on's parts (class/module attributes; parts the
    current core does not have are skipped, so the script follows the solver as it changes)."""
    core, addon = softfem.core, softfem.addon
    world_module = sys.modules[core.World.__module__]
    stage = sys.modules[core.World.__module__.rpartition(".")[0] + ".contact.stage"]
    problem = sys.modules[core.World.__module__.rpartition(".")[0] + ".contact.problem"]

    parts = [
        (core.World, "step", ": other (copies, checks)", lambda: "step"),
        (world_module, "implicit_step", ": FEM (Newton + CG)", lambda: "implicit solve"),
        (stage.ContactStage, "problem", ": contact rows other", lambda: "contact rows"),
        (stage.ContactStage, "_gather", ": contact detection", None),
        (problem.ContactProblem, "solve", ": contact solve", None),
        (stage.ContactStage, "resist_rolling", ": rolling resistance", lambda: "rolling"),
        (addon.session, "signature", "add-on: signature", None),
        (addon.animated_shape, "frame_targets", "add-on: pin targets", None),
        (addon.colliders, "frame_targets", "add-on: collider read", None),
        (addon.session.Session, "_show", "add-on: write-back", None),
        (addon.session.Session, "_store", "add-on: cache write", None),
        (addon.frame_handler, "frame_changed", "add-on: other", None),
    ]
    for owner, name, label, phase in parts:
        if hasattr(owner, name):
            timers.wrap(owner, name, label, phase)
        else:
            print(f"(not timed: {getattr(owner, '__name__', owner)}.{name} does not exist in this version)")


def main():
    """Build the scene, play it frame by frame, print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--substeps", type=int, default=None, help="Substeps (default: the add-on's default)")
    parser.add_argument("--damping", type=float, default=None, help="Damping in s (default: the add-on's default)")
    parser.add_argument("--resolution", type=int, default=None, help="Resolution (default: the add-on's, Auto)")
    parser.add_argument("--fixed", action="store_true", help="every substep every frame (Adaptive off)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of the played frames")
    args = parser.parse_args()
    softfem = link_and_enable()
    scene, bunny = build_scene(softfem, args.substeps, args.damping, args.resolution, args.fixed)
    scene.frame_start, scene.frame_end = 1, args.frames + 1
    timers = Timers()
    instrument(softfem, timers)
    t = time.perf_counter()
    for f in range(1, WARMUP + 1):  # through the landing: numba compiles (or loads) every kernel on first use
        scene.frame_set(f)
    print(f"warm-up, frames 1-{WARMUP} (numba compile/load, world build): {time.perf_counter() - t:.2f} s")
    assert softfem.addon.session.existing(scene).error is None, softfem.addon.session.existing(scene).error
    assert bpy.ops.softfem.free_bake() == {'FINISHED'}   # frees the cache: the timed pass simulates again
    scene.frame_set(1)
    scene.frame_set(2)
    sess = softfem.addon.session.existing(scene)
    rows = collections.defaultdict(list)
    frames_parts = []
    profile = cProfile.Profile() if args.profile else None
    lowest, stats = [], []
    for f in range(3, args.frames + 2):
        timers.seconds.clear()
        t0 = time.perf_counter()
        if profile:
            profile.enable()
        scene.frame_set(f)
        if profile:
            profile.disable()
        wall = time.perf_counter() - t0
        assert sess.error is None and sess.current == f, sess.error
        parts = dict(timers.seconds)
        solver = sum(v for k, v in parts.items() if k.startswith("solver"))
        contact = sum(v for k, v in parts.items() if k.startswith("solver") and ("contact" in k.split(":")[1]
                      or k.startswith("solver rolling")))
        addon_time = sum(v for k, v in parts.items() if k.startswith("add-on"))
        rows["frame_set (wall: everything)"].append(wall)
        rows["World.step (solver)"].append(solver)
        rows["  of which contact"].append(contact)
        rows["  of which FEM and the rest"].append(solver - contact)
        rows["add-on (frame handler minus World.step)"].append(addon_time)
        rows["Blender (depsgraph, handlers' caller)"].append(wall - solver - addon_time)
        frames_parts.append(parts)
        lowest.append(float(sess.positions(scene, bunny.name, f)[:, 2].min()))
        stats.append((sess.world.stats.get("contacts", 0), sess.world.stats.get("cg_iterations", 0)))
    for k in sorted(set().union(*frames_parts)):
        rows["    " + k] = [p.get(k, 0.0) for p in frames_parts]
    n = args.frames - 1
    body = sess.bodies[0]
    volume = body.tm.volumes(sess.world.bodies[0].x).sum() / body.tm.volumes(sess.state(1)[0][0]).sum()
    top = bpy.data.objects["Floor"].collision.thickness_outer
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {n} simulated frames "
          f"(frames 3-{args.frames + 1}); lowest render vertex vs the plane's outer thickness: "
          f"{1000 * (min(lowest) - top):+.1f} mm at worst, {1000 * (lowest[-1] - top):+.1f} mm at the end; "
          f"cage volume at the end {100 * volume:.1f} %; median over frames of the last step's contacts "
          f"{np.median([c for c, _ in stats]):.0f} and CG iterations {np.median([i for _, i in stats]):.0f}")
    print(f"{'part':58s} {'median ms':>10s} {'p90 ms':>8s}")
    for k, v in rows.items():
        ms = 1000.0 * np.asarray(v)
        print(f"{k:58s} {np.median(ms):10.1f} {np.percentile(ms, 90):8.1f}")
    wall = 1000.0 * np.asarray(rows["frame_set (wall: everything)"])
    print(f"playback: {1000.0 / np.median(wall):.1f} frames per second (median frame), "
          f"{1000.0 / np.percentile(wall, 90):.1f} at the 90th percentile; target 30")
    if profile:
        listing = pstats.Stats(profile)
        listing.sort_stats("tottime").print_stats(25)
        listing.sort_stats("cumulative").print_stats("core", 25)


if __name__ == "__main__":
    main()
