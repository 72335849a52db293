"""Optional dependencies: numba's cache folder, and a lazy import of the simulator that reports what is missing."""
import importlib
import importlib.util
import json
import os
import shutil
import sys

# The extension's root package ("bl_ext.user_default.softfem" inside Blender); core is its subpackage.
ROOT_PACKAGE = __package__.rpartition(".")[0]
_REQUIRED = ("numpy", "scipy", "numba")
# The kernels the build compiled for this platform (only in a package built on it; see core/prebuilt_cache.py).
PREBUILT_FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "prebuilt_kernels")

_core = None
_load_error = None
_own_cache = None   # numba's cache folder when the add-on chose it (not a developer's NUMBA_CACHE_DIR)


def configure_numba_cache():
    """Point numba's on-disk cache at the extension's writable user folder, before numba is imported; and when the
    package has prebuilt kernels, have numba target the CPU they were built for (a generic one) so they load.

    An NUMBA_CACHE_DIR already set in the environment (developers, CI) is kept, and the prebuilt kernels unused.
    """
    if "NUMBA_CACHE_DIR" in os.environ:
        return os.environ["NUMBA_CACHE_DIR"]
    _target_prebuilt_cpu()
    try:
        import bpy
        base = bpy.utils.extension_path_user(ROOT_PACKAGE, create=True)
    except (ValueError, AttributeError, KeyError):
        import tempfile
        base = os.path.join(tempfile.gettempdir(), "softfem")
    global _own_cache
    folder = os.path.join(base, "numba_cache")
    os.makedirs(folder, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = folder
    _own_cache = folder
    return folder


def _target_prebuilt_cpu():
    """NUMBA_CPU_NAME set to the prebuilt kernels' CPU when they were built for this package name (the repository
    Blender installed the extension into is part of it) and numba is not imported yet (else they cannot load, and
    the kernels compiled on first use must match the numba already running, so nothing is set)."""
    try:
        with open(os.path.join(PREBUILT_FOLDER, "prebuilt.json"), encoding="utf-8") as fh:   # core.prebuilt_cache
            marker = json.load(fh)
        cpu_name, package = marker.get("cpu_name"), marker.get("package")
    except (OSError, ValueError, AttributeError):
        return
    if cpu_name and package == ROOT_PACKAGE + ".core" and "numba" not in sys.modules:
        os.environ.setdefault("NUMBA_CPU_NAME", cpu_name)


def prune_stale_caches(folder, current):
    """Delete the compiled kernels of other versions of core from numba's cache `folder` (core keeps each
    version's in a subfolder softfem-<fingerprint>, `current` being this one's), so updates do not pile up."""
    keep = os.path.basename(os.path.normpath(current))
    for name in os.listdir(folder):
        if name.startswith("softfem-") and name != keep:
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)


def missing_modules():
    """Names of the required third-party modules that cannot be found (without importing them)."""
    return [name for name in _REQUIRED if importlib.util.find_spec(name) is None]


def problem():
    """One line saying what keeps the simulator from loading, or None when it loads (or has not been tried)."""
    missing = missing_modules()
    if missing:
        return (f"SoftFEM needs {', '.join(missing)}, which could not be found: "
                "reinstall the extension for this platform")
    return _load_error


def loaded_core():
    """The simulator package if it has been loaded, else None (never imports it)."""
    return _core


def load_core():
    """Import and return the simulator package; raise RuntimeError with a one-line message if it cannot load."""
    global _core, _load_error
    message = problem()
    if message:
        raise RuntimeError(message)
    if _core is None:
        try:
            _core = importlib.import_module(ROOT_PACKAGE + ".core")
        except Exception as exc:  # an import error deep in numba/scipy must not escape as a traceback
            _load_error = f"SoftFEM's simulator could not be loaded: {type(exc).__name__}: {exc}".splitlines()[0]
            raise RuntimeError(_load_error) from None
    # On every call (a listdir): the first load now happens in the solver's preparation thread, at enable time.
    if _own_cache is not None:
        import numba
        try:
            prune_stale_caches(_own_cache, numba.config.CACHE_DIR)
        except OSError:   # an unreadable cache folder costs disk space, nothing else
            pass
    return _core


def ftetwild_found():
    """Whether the pytetwild package (fTetWild, for Conforming mode) is installed; cheap enough for a panel."""
    import importlib.util
    try:
        return importlib.util.find_spec("pytetwild") is not None
    except (ImportError, ValueError):
        return False
