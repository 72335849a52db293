"""Run in a fresh process: install a built SoftFEM zip into bpy as a user would and print what happened as JSON.

Usage: python extension_install_probe.py ZIP  (with HOME and BLENDER_USER_RESOURCES pointing at a fresh
temp dir). The last stdout line is `SOFTFEM_PROBE_RESULT=<json>`; tests/blender/test_extension_install.py
asserts on it. scipy/numba/llvmlite of the development venv are hidden, as in a real Blender (which ships
numpy only), so they can only come from the wheels bundled in the zip.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import pkgutil
import sys
import traceback

BUNDLED = ("scipy", "numba", "llvmlite")
MODULE = "bl_ext.user_default.softfem"
UI_PACKAGES = ("addon", "operators", "panels")  # core never defines bpy classes
RNA_OWNERS = ("Object", "Scene", "Mesh", "WindowManager", "World", "Collection")


class HideDevPackages(importlib.abc.MetaPathFinder):
    """Import the bundled packages only from sys.path entries other than the venv folders holding them."""

    def __init__(self, names):
        self.names = set(names)
        self.hidden = set()
        for name in names:
            spec = importlib.util.find_spec(name)
            if spec is not None and spec.submodule_search_locations:
                for loc in spec.submodule_search_locations:
                    self.hidden.add(os.path.realpath(os.path.dirname(loc)))

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.names:
            return None
        paths = [p for p in sys.path if os.path.realpath(p or ".") not in self.hidden]
        spec = importlib.machinery.PathFinder.find_spec(fullname, paths)
        if spec is None:
            raise ModuleNotFoundError(f"No module named {fullname!r} (development copy hidden)", name=fullname)
        return spec


def importable(name):
    """Whether a top-level module can be found (after hiding the development copies)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def handler_counts(bpy):
    """Length of every bpy.app.handlers list."""
    handlers = bpy.app.handlers
    return {n: len(getattr(handlers, n)) for n in dir(handlers) if isinstance(getattr(handlers, n), list)}


def rna_props(bpy):
    """Property identifiers of the ID types an add-on typically extends."""
    return {t: sorted(p.identifier for p in getattr(bpy.types, t).bl_rna.properties) for t in RNA_OWNERS}


def package_classes(bpy, package_name):
    """Every registrable bpy class defined in the installed package's addon/operators/panels modules."""
    found = {}
    for sub in UI_PACKAGES:
        names = [f"{package_name}.{sub}"]
        subpkg = importlib.import_module(names[0])
        names += [m.name for m in pkgutil.walk_packages(subpkg.__path__, prefix=names[0] + ".")]
        for name in names:
            module = importlib.import_module(name)
            for obj in vars(module).values():
                if not (isinstance(obj, type) and issubclass(obj, bpy.types.bpy_struct)):
                    continue
                if obj.__module__ != module.__name__:
                    continue
                if issubclass(obj, bpy.types.Operator) and not getattr(obj, "bl_idname", ""):
                    continue  # a mixin/base operator, never registered itself
                if issubclass(obj, bpy.types.Panel) and not getattr(obj, "bl_label", ""):
                    continue  # a mixin/base panel
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def class_report(bpy, classes):
    """For each class: kind, idname, whether it is registered."""
    report = {}
    for name, cls in classes.items():
        kind = next((k for k in ("Operator", "Panel", "Menu", "UIList", "PropertyGroup", "AddonPreferences")
                     if issubclass(cls, getattr(bpy.types, k))), "Other")
        report[name] = {"kind": kind, "idname": getattr(cls, "bl_idname", ""), "registered": bool(cls.is_registered)}
    return report


def softfem_ops(bpy):
    """Operator names registered under bpy.ops.softfem."""
    return sorted(dir(bpy.ops.softfem))


def main(zip_path):
    """Install, enable, inspect, disable, re-enable, disable; print the JSON report."""
    result = {"errors": []}
    sys.meta_path.insert(0, HideDevPackages(BUNDLED))
    import bpy
    import addon_utils

    def on_error(ex):
        result["errors"].append("".join(traceback.format_exception(ex)))

    user_dir = os.path.realpath(os.environ["BLENDER_USER_RESOURCES"])
    result["bundled_importable_before"] = {n: importable(n) for n in BUNDLED}
    result["handlers_baseline"] = handler_counts(bpy)
    result["rna_baseline"] = rna_props(bpy)
    result["ops_baseline"] = softfem_ops(bpy)

    result["install"] = sorted(bpy.ops.extensions.package_install_files(
        filepath=zip_path, repo="user_default", enable_on_install=True))
    result["enabled_after_install"] = MODULE in bpy.context.preferences.addons
    if not result["enabled_after_install"]:
        print("SOFTFEM_PROBE_RESULT=" + json.dumps(result))
        return
    ext_dir = os.path.realpath(os.path.dirname(sys.modules[MODULE].__file__))
    result["extension_dir"] = ext_dir
    result["user_dir"] = user_dir
    site = os.path.join(bpy.utils.user_resource("EXTENSIONS"), ".local", "lib",
                        "python{}.{}".format(*sys.version_info[:2]), "site-packages")
    result["wheel_site_packages"] = sorted(os.listdir(site)) if os.path.isdir(site) else []

    classes = package_classes(bpy, MODULE)
    result["classes_after_enable"] = class_report(bpy, classes)
    result["ops_after_enable"] = softfem_ops(bpy)
    result["handlers_after_enable"] = handler_counts(bpy)
    result["rna_after_enable"] = rna_props(bpy)

    import numba
    import scipy.sparse
    result["numba_file"] = os.path.realpath(numba.__file__)
    result["scipy_file"] = os.path.realpath(scipy.sparse.__file__)
    result["numba_version"] = numba.__version__
    result["njit_41_plus_1"] = int(numba.njit(lambda a: a + 1)(41))
    # the add-on's cache folder; core, once loaded (the solver's preparation thread loads it at enable), has
    # pointed numba at its version's subfolder softfem-<fingerprint> of it
    cache_root = numba.config.CACHE_DIR or ""
    if os.path.basename(os.path.normpath(cache_root)).startswith("softfem-"):
        cache_root = os.path.dirname(os.path.normpath(cache_root))
    result["numba_cache_dir"] = os.path.realpath(cache_root) if cache_root else ""
    stale = os.path.join(cache_root, "softfem-0123456789abcdef")   # an earlier version's kernels
    os.makedirs(stale, exist_ok=True)
    open(os.path.join(stale, "kernel.nbi"), "w").close()
    core = sys.modules[MODULE].addon.dependencies.load_core()  # the packaged simulator, on the bundled wheels
    result["stale_kernels_left"] = os.path.exists(stale)
    result["kernel_folders"] = sorted(os.listdir(result["numba_cache_dir"]))
    result["core_kernel_folder"] = os.path.basename(numba.config.CACHE_DIR)
    readiness = sys.modules[MODULE].addon.readiness
    result["solver_ready"] = readiness.wait(timeout=900, report=None)
    result["solver_seconds"] = readiness.seconds()
    result["prebuilt_kernels_used"] = readiness.prebuilt()
    result["kernels_compiled_in_blender"] = core.warmup.compiled_here()
    unit_tet = core.TetMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 1, 2, 3]])
    result["core_file"] = os.path.realpath(core.__file__)
    result["core_unit_tet_volume"] = float(unit_tet.volumes()[0])

    addon_utils.disable(MODULE, default_set=True, handle_error=on_error)
    result["enabled_after_disable"] = MODULE in bpy.context.preferences.addons
    result["classes_after_disable"] = class_report(bpy, classes)
    result["ops_after_disable"] = softfem_ops(bpy)
    result["handlers_after_disable"] = handler_counts(bpy)
    result["rna_after_disable"] = rna_props(bpy)

    addon_utils.enable(MODULE, default_set=True, handle_error=on_error)
    result["enabled_after_reenable"] = MODULE in bpy.context.preferences.addons
    result["classes_after_reenable"] = class_report(bpy, package_classes(bpy, MODULE))
    result["ops_after_reenable"] = softfem_ops(bpy)
    result["handlers_after_reenable"] = handler_counts(bpy)
    result["rna_after_reenable"] = rna_props(bpy)

    addon_utils.disable(MODULE, default_set=True, handle_error=on_error)
    result["handlers_after_second_disable"] = handler_counts(bpy)
    result["ops_after_second_disable"] = softfem_ops(bpy)
    print("SOFTFEM_PROBE_RESULT=" + json.dumps(result), flush=True)


if __name__ == "__main__":
    main(os.path.realpath(sys.argv[1]))
