"""A prebuilt kernel cache (core/prebuilt_cache.py, laid out by core/warmup_child.py as scripts/build.py does) is
loaded, not compiled again, by core installed at another path with an empty cache folder; and refused when it was
built for another numba or CPU."""
import json
import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORE = os.path.join(REPO, "core")


def _run(args, env, cwd=REPO, timeout=1800):
    proc = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def _prebuilt(tmp_path):
    """The simulation part's kernels laid out as a prebuilt cache (compiled into the development cache first)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", os.path.join(REPO, ".numba_cache")),
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    child = [sys.executable, os.path.join(CORE, "warmup_child.py"), "core", "simulation"]
    _run(child, env)
    folder = tmp_path / "prebuilt"
    assert _run(child + [str(folder)], env).splitlines()[-1] == "done"
    return folder, env


def _elsewhere(tmp_path, env, folder):
    """In a fresh process, core copied to another folder with an empty cache: (installed, kernels used, compiled)."""
    site = tmp_path / "site"
    shutil.copytree(CORE, site / "core", ignore=shutil.ignore_patterns("__pycache__"))
    check = ("import sys; from core import prebuilt_cache, warmup; "
             f"installed = prebuilt_cache.install({str(folder)!r}); warmup.run('simulation'); "
             "print(int(installed), sum(1 for k in warmup.kernels() if k.overloads), warmup.compiled_here())")
    env = dict(env, NUMBA_CACHE_DIR=str(tmp_path / "empty_cache"))
    return tuple(map(int, _run([sys.executable, "-c", check], env, cwd=str(site)).split()))


def test_a_prebuilt_cache_loads_wherever_core_is_installed_and_compiles_nothing(tmp_path):
    folder, env = _prebuilt(tmp_path)
    marker = json.loads((folder / "prebuilt.json").read_text())
    assert marker["package"] == "core" and (folder / marker["folder"]).is_dir()
    installed, used, compiled = _elsewhere(tmp_path, env, folder)
    assert installed == 1 and used > 20 and compiled == 0


def test_a_prebuilt_cache_for_another_cpu_is_not_installed(tmp_path):
    folder, env = _prebuilt(tmp_path)
    marker = json.loads((folder / "prebuilt.json").read_text())
    marker["magic"][1] = "some-other-cpu"
    (folder / "prebuilt.json").write_text(json.dumps(marker))
    check = ("from core import prebuilt_cache; import numba, os; "
             f"print(int(prebuilt_cache.install({str(folder)!r})), int(prebuilt_cache.cold()))")
    env = dict(env, NUMBA_CACHE_DIR=str(tmp_path / "empty_cache"))
    assert _run([sys.executable, "-c", check], env).split() == ["0", "1"]
