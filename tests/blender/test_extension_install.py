"""The built extension zip installs, enables, disables and re-enables in bpy as a user's would; the source validates."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "extension_install_probe.py")
BUNDLED = ("scipy", "numba", "llvmlite")


def load_build_script():
    """scripts/build.py as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("softfem_build_script", os.path.join(REPO, "scripts", "build.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def under(path, folder):
    """Whether path lies inside folder."""
    return os.path.commonpath([os.path.realpath(path), os.path.realpath(folder)]) == os.path.realpath(folder)


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """Build this platform's zip, install it into a throwaway user dir in a fresh bpy process, return its report."""
    build = load_build_script()
    (zip_path,) = build.build([build.host_platform()])
    user = tmp_path_factory.mktemp("blender_user")
    env = dict(os.environ, HOME=str(user / "home"), BLENDER_USER_RESOURCES=str(user / "resources"))
    env.pop("NUMBA_CACHE_DIR", None)  # a user's Blender has no such variable: the add-on must choose the folder
    os.makedirs(env["HOME"])
    proc = subprocess.run([sys.executable, PROBE, zip_path], env=env, capture_output=True, text=True, timeout=600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("SOFTFEM_PROBE_RESULT=")]
    assert proc.returncode == 0 and lines, f"probe failed (rc={proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    result = json.loads(lines[-1].split("=", 1)[1])
    result["stderr"] = proc.stderr
    result["pins"] = build.dev_pins()
    return result


def test_source_tree_validates_with_blender_ext():
    build = load_build_script()
    proc = subprocess.run([sys.executable, build.blender_ext_script(), "validate", REPO],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


def test_zip_installs_and_enables_without_errors(probe):
    assert probe["install"] == ["FINISHED"]
    assert probe["enabled_after_install"]
    assert probe["errors"] == []
    assert "Traceback" not in probe["stderr"], probe["stderr"][-5000:]
    assert under(probe["extension_dir"], probe["user_dir"])


def test_bundled_wheels_are_installed_and_numba_runs_from_them(probe):
    # The development copies were hidden, so these can only come from the zip's wheels.
    assert probe["bundled_importable_before"] == {name: False for name in BUNDLED}
    for name in BUNDLED:
        assert name in probe["wheel_site_packages"]
        assert f"{name}-{probe['pins'][name]}.dist-info" in probe["wheel_site_packages"]
    assert under(probe["numba_file"], probe["user_dir"])
    assert under(probe["scipy_file"], probe["user_dir"])
    assert probe["numba_version"] == probe["pins"]["numba"]
    assert probe["njit_41_plus_1"] == 42
    assert under(probe["core_file"], probe["extension_dir"])
    assert abs(probe["core_unit_tet_volume"] - 1.0 / 6.0) < 1e-12


def test_the_package_prepares_the_solver_from_its_prebuilt_kernels_compiling_nothing(probe):
    # scripts/build.py compiles this platform's kernels into the zip; a fresh user folder gets them copied
    assert probe["solver_ready"] and probe["prebuilt_kernels_used"]
    assert probe["kernels_compiled_in_blender"] == 0
    print(f"solver ready {probe['solver_seconds']:.1f} s after enabling, from the prebuilt kernels")


def test_numba_cache_goes_to_the_user_folder_not_the_installed_extension(probe):
    assert probe["numba_cache_dir"], "numba's cache folder was left to its default (beside the installed sources)"
    assert under(probe["numba_cache_dir"], probe["user_dir"])
    assert not under(probe["numba_cache_dir"], probe["extension_dir"])


def test_loading_core_deletes_the_kernels_of_other_versions(probe):
    assert not probe["stale_kernels_left"]
    assert probe["kernel_folders"] == [probe["core_kernel_folder"]]    # this version's, kept
    assert probe["core_kernel_folder"].startswith("softfem-")


def test_every_operator_and_panel_class_is_registered(probe):
    classes = probe["classes_after_enable"]
    unregistered = [name for name, c in classes.items() if not c["registered"]]
    assert unregistered == []
    defined_ops = sorted(c["idname"].split(".", 1)[1] for c in classes.values()
                         if c["kind"] == "Operator" and c["idname"].startswith("softfem."))
    assert probe["ops_after_enable"] == defined_ops
    assert probe["ops_baseline"] == []


def test_disable_unregisters_everything_and_leaks_no_handlers(probe):
    assert not probe["enabled_after_disable"]
    assert [n for n, c in probe["classes_after_disable"].items() if c["registered"]] == []
    assert probe["ops_after_disable"] == []
    assert probe["handlers_after_disable"] == probe["handlers_baseline"]
    assert probe["rna_after_disable"] == probe["rna_baseline"]


def test_reenable_registers_once_again(probe):
    assert probe["enabled_after_reenable"]
    reenabled = probe["classes_after_reenable"]
    assert sorted(reenabled) == sorted(probe["classes_after_enable"])
    assert all(c["registered"] for c in reenabled.values())
    assert probe["ops_after_reenable"] == probe["ops_after_enable"]
    assert probe["handlers_after_reenable"] == probe["handlers_after_enable"]
    assert probe["rna_after_reenable"] == probe["rna_after_enable"]
    assert probe["handlers_after_second_disable"] == probe["handlers_baseline"]
    assert probe["ops_after_second_disable"] == []
