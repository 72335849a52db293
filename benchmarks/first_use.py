"""First use after install, cold numba cache: time from enabling the add-on to a ready solver, from Add Soft Body
to the first simulated frame, and the longest time the main (UI) thread is blocked.

A child process gets a fresh user folder (temp HOME and BLENDER_USER_RESOURCES) and no NUMBA_CACHE_DIR, so the
add-on compiles its kernels into its own user folder as after a user's install. It runs the UI's policy
(SOFTFEM_WAIT_FOR_SOLVER=0: nothing waits for the solver): enable, a Collision plane and an icosphere, Add Soft
Body at once, frames shown while the solver is prepared, then play from the start frame once it is ready. The
main thread is "blocked" for the length of each call it makes into Blender and for any gap in a 10 ms heartbeat
loop it runs meanwhile (the background compilation holding the interpreter).
Run: .venv/bin/python benchmarks/first_use.py [--zip dist/softfem-....zip] [--json] [--timeout 900]
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = "bl_ext.user_default.softfem"
RESULT = "SOFTFEM_FIRST_USE="


class Clock:
    """Main-thread block accounting: timed calls and a heartbeat loop."""

    def __init__(self):
        self.longest = 0.0
        self.longest_what = ""

    def call(self, what, func, *args, **kwargs):
        t = time.perf_counter()
        result = func(*args, **kwargs)
        self._block(what, time.perf_counter() - t)
        return result

    def _block(self, what, seconds):
        if seconds > self.longest:
            self.longest, self.longest_what = seconds, what

    def pump(self, seconds, until=None):
        """Heartbeat for up to `seconds` (or until until() is true); gaps beyond the 10 ms sleep count as blocks."""
        end = time.perf_counter() + seconds
        last = time.perf_counter()
        while time.perf_counter() < end and not (until is not None and until()):
            time.sleep(0.01)
            now = time.perf_counter()
            self._block("heartbeat gap (interpreter held by the background thread)", now - last - 0.01)
            last = now


def _install(bpy, zip_path, out):
    """The add-on as a user gets it: the built zip installed (with Blender unpacking its bundled wheels, timed as
    out["wheels_s"]: Blender's install step, before the add-on runs), or the source checkout linked as the
    extension."""
    import addon_utils
    out["wheels_s"] = 0.0
    if zip_path:
        bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=False)
        t = time.perf_counter()
        addon_utils.extensions_refresh(ensure_wheels=True, addon_modules_pending=[MODULE])
        out["wheels_s"] = time.perf_counter() - t
    else:
        extensions = bpy.utils.user_resource('EXTENSIONS', path="user_default", create=True)
        os.symlink(REPO, os.path.join(extensions, "softfem"))
    return lambda: addon_utils.enable(MODULE, default_set=True, handle_error=None)


def _rest_and_shown(bpy, obj):
    """(max distance of the shown mesh from the modelled one, whether an output attribute is written)."""
    import numpy as np
    deps = bpy.context.evaluated_depsgraph_get()
    mesh = obj.evaluated_get(deps).to_mesh()
    shown = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", shown)
    obj.evaluated_get(deps).to_mesh_clear()
    rest = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.vertices.foreach_get("co", rest)
    return float(np.abs(shown - rest).max()), obj.data.attributes.get("softfem_position") is not None


def _gc_timer(out):
    """Record the longest cyclic garbage collection (it holds the interpreter, whichever thread triggers it)."""
    import gc
    started = {}

    def callback(phase, info):
        if phase == "start":
            started["t"] = time.perf_counter()
        elif "t" in started:
            seconds = time.perf_counter() - started.pop("t")
            if seconds > out["longest_gc_s"]:
                out["longest_gc_s"], out["longest_gc_generation"] = seconds, info["generation"]
    out["longest_gc_s"], out["longest_gc_generation"] = 0.0, None
    gc.callbacks.append(callback)


def _children_cpu():
    """CPU seconds of this process's finished (waited-for) child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def child(zip_path, timeout, report_path):
    """Runs in the fresh process: the measured first use. Prints RESULT + JSON."""
    out = {"load": open("/proc/loadavg").read().split()[:3]}
    _gc_timer(out)
    clock = Clock()
    t0 = time.perf_counter()
    import bpy
    out["import_bpy_s"] = time.perf_counter() - t0
    bpy.ops.wm.read_factory_settings(use_empty=True)
    enable = _install(bpy, zip_path, out)
    t_enable, cpu_enable, cpu_children = time.perf_counter(), time.process_time(), _children_cpu()
    clock.call("enable the add-on", enable)
    out["enable_call_s"] = time.perf_counter() - t_enable
    softfem = sys.modules[MODULE]
    readiness = softfem.addon.readiness
    bpy.ops.mesh.primitive_plane_add(size=10.0, location=(0.0, 0.0, 0.0))
    bpy.ops.object.modifier_add(type='COLLISION')
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=3, radius=0.5, location=(0.0, 0.0, 2.0))
    ball = bpy.context.active_object
    scene = bpy.context.scene
    scene.softfem.cache_directory = tempfile.mkdtemp(prefix="softfem_first_use_cache_") + os.sep
    scene.frame_set(1)

    # Operator reports go to stdout in background mode: catch them around the call.
    t_add = time.perf_counter()
    with open(report_path, "w+") as capture:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(capture.fileno(), 1)
        try:
            out["add_result"] = sorted(clock.call("Add Soft Body", bpy.ops.softfem.add_soft_body))
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        capture.seek(0)
        out["add_report"] = capture.read().strip()
    out["add_call_s"] = time.perf_counter() - t_add
    out["soft_body_enabled"] = bool(ball.softfem.enabled)
    out["ready_after_add"] = readiness.ready()
    out["message_after_add"] = readiness.message()

    frames_before = []   # frames shown while the solver is prepared: (frame, ready, distance from rest, written)
    for frame in (1, 2, 3, 2, 1):
        if readiness.ready():
            break
        clock.call(f"frame_set({frame}) while preparing", scene.frame_set, frame)
        frames_before.append((frame, readiness.ready()) + _rest_and_shown(bpy, ball))
        clock.pump(1.0)
    out["frames_while_preparing"] = frames_before
    out["message_preparing"] = readiness.message()
    progress = []
    while not readiness.ready() and readiness.error() is None and time.perf_counter() - t_enable < timeout:
        progress.append((round(time.perf_counter() - t_enable, 1), readiness.percent()))
        clock.pump(2.0, until=readiness.ready)
    out["progress"] = progress[::max(1, len(progress) // 12)]
    out["error"] = readiness.error()
    if not readiness.ready():
        out["ready"] = False
        print(RESULT + json.dumps(out), flush=True)
        return
    t_ready = time.perf_counter()
    out["ready"] = True
    out["enable_to_ready_s"] = t_ready - t_enable
    out["enable_to_ready_cpu_s"] = time.process_time() - cpu_enable   # all threads: load-independent
    out["enable_to_ready_children_cpu_s"] = _children_cpu() - cpu_children   # the compiling child processes
    out["prepare_thread_s"] = readiness.seconds()
    out["kernels_compiled_in_blender"] = sys.modules[MODULE + ".core.warmup"].compiled_here()
    # Play from the start frame, as a user does once the status line says the solver is ready.
    clock.call("frame_set(1) first simulated", scene.frame_set, 1)
    clock.call("frame_set(2) first simulated", scene.frame_set, 2)
    t_first = time.perf_counter()
    out["first_frame_moved_m"], out["first_frame_written"] = _rest_and_shown(bpy, ball)
    out["add_to_first_frame_s"] = t_first - t_add
    out["enable_to_first_frame_s"] = t_first - t_enable
    out["ready_to_first_frame_s"] = t_first - t_ready
    out["cage_tets"] = ball.softfem.cage_tets
    for frame in range(3, 13):
        clock.call(f"frame_set({frame})", scene.frame_set, frame)
    sess = softfem.addon.session.existing(scene)
    out["kernels_compiled_in_blender_by_frame_12"] = sys.modules[MODULE + ".core.warmup"].compiled_here()
    out["session_error"] = sess.error if sess else None
    out["frames_cached"] = len(sess.cached_frames()) if sess else 0
    out["longest_block_s"] = clock.longest
    out["longest_block_what"] = clock.longest_what
    print(RESULT + json.dumps(out), flush=True)


def run(zip_path=None, timeout=900.0, keep_kernels_in=None):
    """Run the child in a fresh user folder with no NUMBA_CACHE_DIR; return its JSON result (None if it failed).
    With `keep_kernels_in` (a NUMBA_CACHE_DIR), the kernels the child compiled are copied there, for versions of
    core it has none of: the test suite's Blender session then loads what this cold run compiled."""
    home = tempfile.mkdtemp(prefix="softfem_first_use_")
    env = dict(os.environ, HOME=home, BLENDER_USER_RESOURCES=os.path.join(home, "blender"),
               SOFTFEM_WAIT_FOR_SOLVER="0")
    env.pop("NUMBA_CACHE_DIR", None)
    os.makedirs(env["BLENDER_USER_RESOURCES"])
    try:
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "--timeout", str(timeout)]
                              + (["--zip", os.path.abspath(zip_path)] if zip_path else []) +
                              ["--report", os.path.join(home, "report.txt")],
                              env=env, capture_output=True, text=True, timeout=timeout + 120)
        if keep_kernels_in and proc.returncode == 0:
            _copy_new_versions(home, keep_kernels_in)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT):
            return json.loads(line[len(RESULT):])
    sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
    return None


def _copy_new_versions(home, cache_dir):
    """Copy each softfem-<fingerprint> kernel folder found under `home` into `cache_dir` unless it is there."""
    for parent, folders, _files in os.walk(home):
        if os.path.basename(parent) != "numba_cache":
            continue
        for name in folders:
            target = os.path.join(cache_dir, name)
            if name.startswith("softfem-") and not os.path.exists(target):
                shutil.copytree(os.path.join(parent, name), target + ".partial", dirs_exist_ok=True)
                os.replace(target + ".partial", target)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zip", help="a built extension zip (default: the source checkout linked as the extension)")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--json", action="store_true", help="print the raw result as JSON")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--report", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.zip, args.timeout, args.report)
        return
    result = run(args.zip, args.timeout)
    if result is None:
        sys.exit("first_use: the child process failed (output above)")
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"load average at start {' '.join(result['load'])}, now {' '.join(open('/proc/loadavg').read().split()[:3])}")
    if args.zip:
        print(f"Blender unpacking the bundled wheels at install: {result['wheels_s']:.1f} s (before the add-on runs)")
    print(f"Add Soft Body returned in {result['add_call_s']:.2f} s: {result['add_report']}")
    if not result["ready"]:
        sys.exit(f"solver not ready: {result['error'] or 'timed out'}")
    print(f"enabling -> solver ready:               {result['enable_to_ready_s']:.1f} s "
          f"({result['enable_to_ready_cpu_s']:.0f} s of CPU in Blender's process, "
          f"{result['enable_to_ready_children_cpu_s']:.0f} s in its child processes)")
    print(f"kernels compiled in Blender's process:  {result['kernels_compiled_in_blender']} by ready, "
          f"{result['kernels_compiled_in_blender_by_frame_12']} by frame 12 (the others loaded from numba's cache)")
    print(f"Add Soft Body -> first simulated frame: {result['add_to_first_frame_s']:.1f} s "
          f"(enabling -> first frame {result['enable_to_first_frame_s']:.1f} s)")
    print(f"longest main-thread block:              {result['longest_block_s']:.2f} s ({result['longest_block_what']}); "
          f"longest garbage collection {result['longest_gc_s']:.2f} s")


if __name__ == "__main__":
    main()
