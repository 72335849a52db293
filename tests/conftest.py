"""Test-wide setup: the repo root on sys.path so `import core` works as a plain package; in a whole-suite run,
core's kernels compiled for the core tests in a background child while the Blender tests run."""
import os
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)

_warmup = []


def pytest_collection_finish(session):
    """With both the Blender and the core tests collected (the Blender ones run first and mostly leave one core
    idle), compile core's kernels under the name the core tests import it by (`core`; Blender's is another, so
    numba keeps separate kernels) in a child at the lowest priority: the core tests then load them instead of
    compiling each on first call. Harmless when the cache is warm (the child only loads)."""
    tests = os.path.dirname(os.path.abspath(__file__))
    folders = {os.path.relpath(str(item.path), tests).split(os.sep)[0] for item in session.items}
    if {"blender", "core"} <= folders and os.environ.get("NUMBA_CACHE_DIR"):
        _warmup.append(subprocess.Popen(
            [sys.executable, os.path.join(REPO_ROOT, "core", "warmup_child.py"), "core"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=lambda: os.nice(19)))


def pytest_sessionfinish(session, exitstatus):
    for child in _warmup:
        if child.poll() is None:
            child.kill()
        child.wait()
