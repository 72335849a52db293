"""Run as a script in a child process (python core/warmup_child.py PACKAGE [PART [PREBUILT]]): core's warm-up.

The add-on starts it so that numba compiles outside Blender's process: it loads this folder's core under the
name it has in Blender (PACKAGE, e.g. bl_ext.user_default.softfem.core) from the same source files, so the
kernels it writes to numba's disk cache are the ones Blender's process then loads; it runs
the warm-up and prints "total N", then "kernel NAME" for each kernel once it is compiled or loaded, then "done".
It never imports bpy; NUMBA_CACHE_DIR comes from the parent's environment. With PREBUILT (scripts/build.py, once
the cache is complete), it then lays out the cache as a package's prebuilt one in that folder, and fails if the
warm-up had to compile anything (the cache would be incomplete).
"""
import importlib
import importlib.util
import os
import sys
import threading
import types


def _load_core(package):
    """This folder imported as the package `package`, the name it has in the parent process (numba's cached
    kernels import their module by name when loaded); the packages above it are left empty (the add-on's own
    __init__ imports bpy). Core's own modules must not be top-level ones: the script's folder leaves the path."""
    folder = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != folder]
    parts = package.split(".")
    for i in range(1, len(parts)):
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i]))).__path__ = []
    spec = importlib.util.spec_from_file_location(package, os.path.join(folder, "__init__.py"),
                                                  submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)
    return module


def _report(warmup, finished):
    """Print each kernel's name once it has a compiled overload (polled: numba has no per-kernel hook)."""
    seen = set()
    while True:
        last = finished.wait(0.2)
        for kernel in warmup.kernels():
            name = f"{kernel.py_func.__module__}.{kernel.py_func.__qualname__}"
            if kernel.overloads and name not in seen:
                seen.add(name)
                print("kernel", name.partition(".")[2], flush=True)
        if last:
            return


def main(package, part="all", prebuilt=None):
    core = _load_core(package)
    warmup = importlib.import_module(core.__name__ + ".warmup")
    print("total", len(warmup.kernels()), flush=True)
    finished = threading.Event()
    reporter = threading.Thread(target=_report, args=(warmup, finished), daemon=True)
    reporter.start()
    try:
        warmup.run(part)
    finally:
        finished.set()
        reporter.join()
    if prebuilt:
        if warmup.compiled_here():
            sys.exit(f"the cache was incomplete: {warmup.compiled_here()} kernels compiled here")
        importlib.import_module(core.__name__ + ".prebuilt_cache").write(prebuilt)
    print("done", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
