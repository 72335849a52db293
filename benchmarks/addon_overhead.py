"""Per-frame cost of the add-on beyond core's World.step on the vs_blender_softbody scene (2562-vertex icosphere).

The scene of benchmarks/vs_blender_softbody.py (icosphere dropped 2 m on a Collision plane, add-on defaults, frames
by scene.frame_set). World.step is wrapped with a timer; per simulated frame it prints medians of: the frame_set
wall time, the frame handler's time, the sum of World.step in the frame, and their differences (the add-on's own
work, and Blender's outside the handler). Blender's floor: frame_set of an empty scene, and of the same scene with
no soft body. Rounds alternate with fresh scenes. `--profile` adds a cProfile of the simulated frames (one round).
Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/addon_overhead.py [--rounds N] [--profile]
"""
import cProfile
import os
import pstats
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
import vs_blender_softbody as vs  # noqa: E402  (sets the throwaway Blender user folder before bpy is imported)
from addon_testing import MODULE  # noqa: E402

FRAMES = vs.FRAMES


def median_ms(samples):
    return 1e3 * statistics.median(samples)


def floor_ms(with_objects):
    """Median frame_set ms over frames 2..FRAMES: an empty scene, or the ball and plane with no soft body."""
    if with_objects:
        bpy, scene, _plane, _ball = vs.blender_scene()
    else:
        import bpy
        bpy.ops.wm.read_factory_settings(use_empty=True)
        vs.link_and_enable()
        scene = bpy.context.scene
        scene.frame_start, scene.frame_end = 1, FRAMES
    out = []
    for f in range(1, FRAMES + 1):
        t0 = time.perf_counter()
        scene.frame_set(f)
        out.append(time.perf_counter() - t0)
    return median_ms(out[1:])


PARTS = {}   # part name -> seconds per frame (lists), when --parts


def _timed(owner, attr, name):
    """Replace owner.attr by a wrapper adding its time to PARTS[name] for the current frame; returns the undo."""
    real = getattr(owner, attr)

    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            PARTS.setdefault(name, [0.0])[-1] += time.perf_counter() - t0
    setattr(owner, attr, wrapper)
    return lambda: setattr(owner, attr, real)


def _wrap_parts(addon):
    """Timers on the frame handler's parts (outer ones include inner ones)."""
    s = addon.session
    return [_timed(s, "signature", "signature (fresh hashes)"),
            _timed(s.Session, "goto", "goto"),
            _timed(s.Session, "_simulate", "_simulate (incl. steps)"),
            _timed(addon.colliders, "frame_targets", "  colliders.frame_targets"),
            _timed(s.Session, "_store", "  _store (memory + file)"),
            _timed(addon.cache_files, "write_frame", "    cache_files.write_frame"),
            _timed(s.Session, "_show", "_show"),
            _timed(addon.runtime_body.Body, "render_positions", "  render_positions"),
            _timed(addon.bridge, "write_local_positions", "  bridge.write_local_positions")]


def addon_round(profile=None, parts=False, no_solver=False):
    """One fresh add-on scene played frames 1..FRAMES: per-frame lists (frame_set, handler, steps) in seconds, and
    the same frames stepped by core alone. `no_solver`: World.step does nothing after frame 2 (the ball hangs in
    the air), which leaves the add-on's own work without the solver's cache pollution."""
    bpy, scene, _plane, ball = vs.blender_scene()
    bpy.ops.object.select_all(action='DESELECT')
    ball.select_set(True)
    bpy.context.view_layer.objects.active = ball
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    softfem = sys.modules[MODULE]
    core = softfem.addon.dependencies.load_core()
    real_step = core.World.step
    steps = []

    def timed_step(self, dt):
        t0 = time.perf_counter()
        try:
            return None if no_solver and scene.frame_current > 2 else real_step(self, dt)
        finally:
            steps.append(time.perf_counter() - t0)
    core.World.step = timed_step
    undo = _wrap_parts(softfem.addon) if parts else []
    total, handler, stepped = [], [], []
    try:
        scene.frame_set(1)
        scene.frame_set(2)   # builds the World (and loads the kernels on the first round)
        sess = softfem.addon.session.existing(scene)
        for f in range(3, FRAMES + 1):
            steps.clear()
            for v in PARTS.values():
                v.append(0.0)
            if profile is not None:
                profile.enable()
            t0 = time.perf_counter()
            scene.frame_set(f)
            t1 = time.perf_counter()
            if profile is not None:
                profile.disable()
            assert sess.error is None, sess.error
            total.append(t1 - t0)
            handler.append(sess.last_frame_seconds)
            stepped.append(sum(steps))
        core_alone = [] if no_solver else _core_alone(softfem.addon, scene, sess, real_step)
    finally:
        core.World.step = real_step
        for u in undo:
            u()
    return total, handler, stepped, core_alone


def _core_alone(addon, scene, sess, real_step):
    """The same frames stepped by core alone: a World built afresh at the start frame (as the session builds it),
    the preconditioner reset and chosen per frame as the session does; seconds of the steps per frame."""
    import bpy
    sess._build_world(scene, bpy.context.evaluated_depsgraph_get())
    world = sess.world
    n = scene.softfem.substeps
    dt = scene.render.fps_base / (scene.render.fps * n) * scene.softfem.time_scale
    out = []
    for _f in range(2, FRAMES + 1):
        world.reset_preconditioner()
        core = addon.dependencies.load_core()
        world.settings.preconditioner = addon.scene_settings.preconditioner(core, sess.bodies, dt)
        t0 = time.perf_counter()
        for _ in range(n):
            real_step(world, dt)
        out.append(time.perf_counter() - t0)
    sess.signature = None   # the session's World was replaced: rebuild on the next frame
    return out[1:]


def main():
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    addon_round()   # warm-up: kernels loaded, first World built
    rows = []
    for _ in range(rounds):
        empty = floor_ms(False)
        scene_only = floor_ms(True)
        idle = addon_round(no_solver=True)[0]
        total, handler, stepped, alone = addon_round()
        rows.append((empty, scene_only, median_ms(idle), median_ms(total), median_ms(handler), median_ms(stepped),
                     median_ms(alone),
                     median_ms([t - s for t, s in zip(total, stepped)]),
                     median_ms([h - s for h, s in zip(handler, stepped)]),
                     median_ms([t - h for t, h in zip(total, handler)])))
    names = ("empty scene frame_set", "ball+plane, no soft body", "add-on, World.step a no-op", "add-on frame_set", "  frame handler",
             "  sum of World.step", "core alone, same steps", "frame_set - steps", "handler - steps (ours)", "frame_set - handler (Blender)")
    print(f"ms per frame, median of frames 3..{FRAMES} per round, {rounds} rounds (load "
          f"{open('/proc/loadavg').read().split()[0]})")
    for i, name in enumerate(names):
        values = [r[i] for r in rows]
        print(f"{name:32}{statistics.median(values):8.3f}   rounds: " + " ".join(f"{v:.3f}" for v in values))
    if "--parts" in sys.argv:
        for no_solver in (True, False):
            PARTS.clear()
            total, handler, stepped, _alone = addon_round(parts=True, no_solver=no_solver)
            n = len(total)
            per = {k: v[-n:] for k, v in PARTS.items()}
            per["World.step (sum)"] = stepped
            per["_simulate - steps"] = [a - b for a, b in zip(per["_simulate (incl. steps)"], stepped)]
            per["handler - goto (depsgraph.update...)"] = [a - b for a, b in zip(handler, per["goto"])]
            per["goto - _simulate - _show - signature"] = [
                g - a - b - c for g, a, b, c in zip(per["goto"], per["_simulate (incl. steps)"], per["_show"],
                                                    per["signature (fresh hashes)"])]
            print(f"parts, ms per frame (median of frames 3..{FRAMES}, one round{', World.step a no-op' * no_solver}"
                  f", load {open('/proc/loadavg').read().split()[0]})")
            for k, v in per.items():
                print(f"  {k:40}{median_ms(v):8.3f}")
    if "--profile" in sys.argv:
        prof = cProfile.Profile()
        addon_round(prof)
        stats = pstats.Stats(prof)
        stats.sort_stats("cumulative").print_callees("_simulate|goto|frame_changed|_show|_store")
        stats.sort_stats("tottime").print_stats("addon|bridge|cache_files|numpy|built-in", 25)


if __name__ == "__main__":
    main()
