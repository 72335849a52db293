"""The solver's readiness: its kernels compiled (or loaded from numba's cache) in the background when the add-on
is enabled, the progress line shown meanwhile, and waiting for it where blocking is right.

On a cold cache the compiling happens in child processes (core/warmup_child.py, one per part of the warm-up, on
the same source files and NUMBA_CACHE_DIR), since numba compiling in a thread of Blender's process holds the
interpreter for seconds at a time; a background thread waits for them, then loads the kernels from the cache.
If a child cannot start or fails, the thread compiles the kernels itself (slower, and Blender may pause).

While the thread runs, the main thread must never call a kernel: numba compiles under one global lock, so
a kernel called from the main thread would wait for (or do) compilation and freeze Blender. Everything that
needs the simulator asks `ready()` first (or `wait()` on its blocking paths).

Blocking policy: in Blender's UI nothing waits (operators report that the solver is being prepared, frames
show the unsimulated mesh until it is ready). In background mode (`blender -b`, the bpy module: farm bakes,
renders, scripts) there is no UI to freeze, so operators and frame changes wait for the solver; the
environment variable SOFTFEM_WAIT_FOR_SOLVER=0 or 1 overrides either default.
"""
import atexit
import importlib
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import bpy

from . import dependencies

_lock = threading.Lock()
_thread = None
_state = {"ready": False, "error": None, "cold": None, "prebuilt": False, "started": None, "seconds": None,
          "total": 0, "compiled": set()}   # kernels in core; kernels the children have compiled so far
_children = []
_POLL = 0.5  # seconds between progress updates in the UI


def start():
    """Start preparing the solver in a background thread (once per Blender session); no-op if already done."""
    global _thread
    with _lock:
        if _thread is None and not dependencies.problem():
            _state["started"] = time.perf_counter()
            _thread = threading.Thread(target=_prepare, name="SoftFEM solver preparation", daemon=True)
            _thread.start()
    if _thread is not None and not bpy.app.background and not _state["ready"] and not bpy.app.timers.is_registered(_tick):
        bpy.app.timers.register(_tick, first_interval=_POLL, persistent=True)


def stop_showing():
    """The add-on is disabled: no more progress updates (the preparation itself runs on, for a re-enable)."""
    if bpy.app.timers.is_registered(_tick):
        bpy.app.timers.unregister(_tick)


def _prepare():
    try:
        core = dependencies.load_core()
    except RuntimeError as exc:  # a one-line reason, shown by the panel and the operators
        _state["error"] = str(exc)
        return
    try:
        warmup = importlib.import_module(core.__name__ + ".warmup")
        _state["prebuilt"] = importlib.import_module(core.__name__ + ".prebuilt_cache").install(
            dependencies.PREBUILT_FOLDER)
        _state["cold"] = warmup.cold()
        if _state["cold"]:
            _compile_in_children(core, warmup.PARTS)
        warmup.run()   # loads what the children compiled; compiles whatever is still missing
    except Exception as exc:  # the warm-up only saves time: kernels it missed compile when first called
        print(f"SoftFEM warning: the solver's warm-up stopped early ({type(exc).__name__}: {exc})".splitlines()[0])
    _state["seconds"] = time.perf_counter() - _state["started"]
    _state["ready"] = True


def _compile_in_children(core, parts):
    """Compile core's kernels into numba's cache in one child process per part of the warm-up; if a child cannot
    start or fails, say so on one line (this thread then compiles what is missing itself)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # Blender's and the extensions'
    script = os.path.join(os.path.dirname(core.__file__), "warmup_child.py")
    children = []
    try:
        for part in parts:
            children.append(subprocess.Popen(
                [sys.executable, script, core.__name__, part], env=env, text=True, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0)))   # no console window on Windows
            _children.append(children[-1])
        with ThreadPoolExecutor(len(children)) as pool:
            failures = [why for why in pool.map(_follow, children) if why]
    except (OSError, ValueError) as exc:
        failures = [f"{type(exc).__name__}: {exc}"]
        for child in children:   # started before one failed to: not needed now (this thread compiles)
            child.kill()
            child.wait()
            child.stdout.close()
    if failures:
        print(f"SoftFEM: compiling the solver in Blender instead (a separate process failed: {failures[0]})")


def _follow(child):
    """Read a child's report into the progress; returns None, or the line saying why it failed."""
    last = ""
    with child.stdout:
        for line in child.stdout:
            word, _, rest = line.strip().partition(" ")
            if word == "kernel":
                _state["compiled"].add(rest)
            elif word == "total" and rest.isdigit():
                _state["total"] = int(rest)
            elif line.strip():
                last = line.strip()
    code = child.wait()
    return None if code == 0 and last == "done" else (last or f"exit code {code}")


@atexit.register
def _stop_children():
    """Blender is quitting: the compile it no longer needs stops too (the next session starts it again)."""
    for child in _children:
        if child.poll() is None:
            child.kill()


def ready():
    """True once every kernel is compiled or loaded (the simulator can run without compiling)."""
    return _state["ready"]


def error():
    """One line saying why the solver could not be prepared, or None."""
    return _state["error"] or dependencies.problem()


def prebuilt():
    """Whether the kernels were copied from the package's prebuilt cache (nothing compiled on first use)."""
    return _state["prebuilt"]


def seconds():
    """Seconds the preparation took (None until ready)."""
    return _state["seconds"]


def percent():
    """Share of core's kernels compiled or loaded so far (0-100)."""
    if _state["ready"]:
        return 100
    warmup = getattr(dependencies.loaded_core(), "warmup", None)
    done, total = warmup.progress() if warmup is not None else (0, 0)
    done = max(done, len(_state["compiled"]))   # the children's count until this process has loaded the kernels
    return min(99, int(100 * done / max(total, _state["total"], 1)))


def message():
    """The status line while preparing, e.g. "SoftFEM: preparing the solver (first run after install), 37 %"."""
    if error():
        return error()
    if _state["ready"]:
        return "SoftFEM: solver ready"
    why = " (first run after install or update)" if _state["cold"] else ""
    return f"SoftFEM: preparing the solver{why}, {percent()} %"


def blocking():
    """Whether the simulator's users wait for readiness (background mode) rather than return at once (the UI)."""
    override = os.environ.get("SOFTFEM_WAIT_FOR_SOLVER")
    if override in ("0", "1"):
        return override == "1"
    return bool(bpy.app.background)


def wait(timeout=None, report=print, every=10.0):
    """Block until the solver is ready, calling report(message) every `every` seconds; True when ready.

    Starts the preparation if it has not started. Raises RuntimeError with a one-line message if it failed.
    """
    start()
    began = last = time.perf_counter()
    while not _state["ready"]:
        if error():
            raise RuntimeError(error())
        now = time.perf_counter()
        if timeout is not None and now - began > timeout:
            return False
        if report is not None and now - last >= every:
            report(message())
            last = now
        time.sleep(0.05)
    return True


def require():
    """None when the simulator may run now (waiting first under the blocking policy), else the one-line
    message an operator reports (still preparing, or the reason it cannot be prepared)."""
    if not _state["ready"] and not error() and blocking():
        try:
            wait()
        except RuntimeError:
            pass
    if _state["ready"]:
        return None
    return error() or message() + ": try again in a moment"


def _tick():
    """UI timer: show the progress in the status bar and panels; once ready, show the current frame simulated."""
    try:
        return _show_progress()
    except Exception as exc:  # a timer must never raise at the user
        print("SoftFEM:", exc)
        return None


def _show_progress():
    done = _state["ready"] or error() is not None
    text = None if done else message()
    for workspace in bpy.data.workspaces:
        try:
            workspace.status_text_set_internal(text)
        except (AttributeError, RuntimeError):
            break
    for window in bpy.context.window_manager.windows:
        for area in window.screen.areas:
            if area.type in ('VIEW_3D', 'PROPERTIES'):
                area.tag_redraw()
    if not done:
        return _POLL
    if _state["ready"]:
        scene = bpy.context.scene
        if scene is not None and any(o.type == 'MESH' and o.softfem.enabled for o in scene.objects):
            scene.frame_set(scene.frame_current)
    return None
