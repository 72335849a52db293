"""Build the SoftFEM extension zips: bundle the dependency wheels per platform, compile the kernels for this
platform's package (its prebuilt cache), run Blender's blender_ext.py build."""
import argparse
import glob
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(REPO, "build")
WHEEL_CACHE = os.path.join(BUILD, "wheels")
STAGE = os.path.join(BUILD, "stage")
DIST = os.path.join(REPO, "dist")
PACKAGE_PATHS = ("__init__.py", "blender_manifest.toml", "core", "addon", "operators", "panels")
BUNDLED = ("scipy", "numba", "llvmlite", "pytetwild")  # never numpy: Blender ships it
PREBUILT = "prebuilt_kernels"   # the package's prebuilt kernel cache (core/prebuilt_cache.py)
# The name Blender imports an extension installed from a file under: numba's cached kernels import their module by
# this name, so the prebuilt ones are compiled under it (installed elsewhere, the add-on compiles its own).
INSTALLED_PACKAGE = "bl_ext.user_default.softfem"
PYTHON_VERSION = "3.11"  # Blender 4.2-5.0

# Blender platform -> pip `--platform` tags. pip also accepts older manylinux/macOS tags than the ones given.
PLATFORM_TAGS = {
    "linux-x64": ("manylinux_2_28_x86_64",),
    "windows-x64": ("win_amd64",),
    "macos-x64": ("macosx_11_0_x86_64",),
    # scipy 1.17 ships macOS arm64 wheels for 12.0+ (OpenBLAS) and 14.0+ (Accelerate): take the 12.0 one.
    "macos-arm64": ("macosx_12_0_arm64",),
}
# pytetwild's Linux wheels carry the manylinux2014 (2_17) tag, which pip does not take for 2_28; it publishes no
# macOS wheels: there the package goes without it (Conforming mode says it needs fTetWild, Cage mode works).
EXTRA_TAGS = {"pytetwild": {"linux-x64": ("manylinux_2_17_x86_64",)}}
OPTIONAL = ("pytetwild",)
# numba stopped publishing Intel-macOS wheels after 0.62.1 (llvmlite after 0.45.1): the nearest working pair.
PIN_OVERRIDES = {
    "macos-x64": {"numba": "0.62.1", "llvmlite": "0.45.1"},
}


def dev_pins():
    """The versions of the bundled packages pinned in requirements-dev.txt (what the tests run)."""
    pins = {}
    with open(os.path.join(REPO, "requirements-dev.txt"), encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"^\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s#;]+)", line)
            if m and m.group(1).lower() in BUNDLED:
                pins[m.group(1).lower()] = m.group(2)
    missing = [name for name in BUNDLED if name not in pins]
    if missing:
        sys.exit(f"requirements-dev.txt pins no version for: {', '.join(missing)}")
    return pins


def host_platform():
    """This machine's platform in Blender's naming (linux-x64, windows-x64, macos-x64, macos-arm64)."""
    system = {"darwin": "macos"}.get(platform.system().lower(), platform.system().lower())
    machine = platform.machine().lower()
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(machine, machine)
    name = f"{system}-{machine}"
    if name not in PLATFORM_TAGS:
        sys.exit(f"no SoftFEM package for this platform ({name}); supported: {', '.join(PLATFORM_TAGS)}")
    return name


def blender_ext_script():
    """Path of blender_ext.py, Blender's extension tool, shipped inside the bpy module (not imported)."""
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("the bpy module is not installed: run `make venv` (or scripts/venv.sh) first")
    root = list(spec.submodule_search_locations)[0]
    found = sorted(glob.glob(os.path.join(root, "*", "scripts", "addons_core", "bl_pkg", "cli", "blender_ext.py")))
    if not found:
        sys.exit(f"blender_ext.py not found inside {root}")
    return found[-1]


def wheels_for(plat, pins):
    """Download (or reuse from the cache) the unmodified cp311 wheels for one platform; return their paths."""
    versions = {**pins, **PIN_OVERRIDES.get(plat, {})}
    folder = os.path.join(WHEEL_CACHE, plat)
    os.makedirs(folder, exist_ok=True)
    paths = []
    for name in BUNDLED:
        pattern = os.path.join(folder, f"{name}-{versions[name]}-cp311-cp311-*.whl")
        found = glob.glob(pattern)
        if not found:
            cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--no-deps",
                   "--python-version", PYTHON_VERSION, "--implementation", "cp", "--abi", "cp311", "-d", folder]
            for tag in PLATFORM_TAGS[plat] + EXTRA_TAGS.get(name, {}).get(plat, ()):
                cmd += ["--platform", tag]
            cmd.append(f"{name}=={versions[name]}")
            print(f"  downloading {name}=={versions[name]} for {plat}", flush=True)
            done = subprocess.run(cmd, check=name not in OPTIONAL)
            found = glob.glob(pattern)
            if done.returncode != 0 and name in OPTIONAL:
                print(f"  no {name} wheel for {plat}: packaged without it", flush=True)
                continue
        if len(found) != 1:
            sys.exit(f"expected one wheel matching {pattern}, found {found}")
        paths.append(found[0])
    return paths


def write_stage_manifest(platforms, wheel_names):
    """Copy the committed manifest into the stage with `platforms` and `wheels` added to its top-level table."""
    with open(os.path.join(REPO, "blender_manifest.toml"), encoding="utf-8") as fh:
        lines = fh.read().splitlines(keepends=True)
    first_table = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines))
    added = ["# Added by scripts/build.py\n",
             "platforms = [" + ", ".join(f'"{p}"' for p in platforms) + "]\n",
             "wheels = [\n", *[f'  "./wheels/{w}",\n' for w in wheel_names], "]\n", "\n"]
    text = "".join(lines[:first_table] + added + lines[first_table:])
    manifest = tomllib.loads(text)
    assert manifest["platforms"] == list(platforms) and len(manifest["wheels"]) == len(wheel_names)
    with open(os.path.join(STAGE, "blender_manifest.toml"), "w", encoding="utf-8") as fh:
        fh.write(text)


def stage(platforms, wheel_paths):
    """Lay out build/stage: the package sources, the wheels, and the manifest that lists them."""
    shutil.rmtree(STAGE, ignore_errors=True)
    os.makedirs(os.path.join(STAGE, "wheels"))
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for rel in PACKAGE_PATHS:
        src, dst = os.path.join(REPO, rel), os.path.join(STAGE, rel)
        if rel == "blender_manifest.toml":
            continue
        if os.path.isdir(src):
            shutil.copytree(src, dst, ignore=ignore)
        else:
            shutil.copy2(src, dst)
    names = []
    for path in wheel_paths:
        name = os.path.basename(path)
        dst = os.path.join(STAGE, "wheels", name)
        try:
            os.link(path, dst)
        except OSError:
            shutil.copy2(path, dst)
        names.append(name)
    write_stage_manifest(platforms, sorted(names))


def prebuild_kernels():
    """Compile core's kernels into build/stage/prebuilt_kernels for a generic CPU of this platform, as the installed
    add-on's core: the add-on's warm-up children (core/warmup_child.py, under the installed package name, in
    parallel), then one more that must find everything cached and lays the cache out with its marker."""
    child = [sys.executable, os.path.join(STAGE, "core", "warmup_child.py"), INSTALLED_PACKAGE + ".core"]
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, NUMBA_CPU_NAME="generic")
        env.pop("NUMBA_CPU_FEATURES", None)   # generic's default: none, so the kernels run on any CPU of the platform
        parts = ("all", "simulation")
        compiling = [subprocess.Popen(child + [part], env=env, stdout=subprocess.DEVNULL) for part in parts]
        if any(p.wait() for p in compiling):
            sys.exit("compiling the prebuilt kernels failed")
        subprocess.run(child + ["all", os.path.join(STAGE, PREBUILT)], env=env, stdout=subprocess.DEVNULL, check=True)


def build_one(plat, pins, tool):
    """Stage and build one platform's zip into dist/ (with prebuilt kernels when it is this machine's platform and
    its numba is the one installed here); return its path."""
    stage([plat], wheels_for(plat, pins))
    if plat == host_platform() and plat not in PIN_OVERRIDES:
        start = time.perf_counter()
        prebuild_kernels()
        print(f"  prebuilt kernels for {plat} in {time.perf_counter() - start:.0f} s", flush=True)
    with open(os.path.join(STAGE, "blender_manifest.toml"), "rb") as fh:
        manifest = tomllib.load(fh)
    path = os.path.join(DIST, f"{manifest['id']}-{manifest['version']}-{plat.replace('-', '_')}.zip")
    if os.path.exists(path):
        os.remove(path)
    subprocess.run([sys.executable, tool, "build", "--source-dir", STAGE, "--output-dir", DIST, "--split-platforms"],
                   check=True)
    if not os.path.isfile(path):
        sys.exit(f"blender_ext.py build did not write {path}")
    subprocess.run([sys.executable, tool, "validate", path], check=True, stdout=subprocess.DEVNULL)
    return path


def build(platforms):
    """Build one zip per platform into dist/; return their paths."""
    pins = dev_pins()
    os.makedirs(DIST, exist_ok=True)
    tool = blender_ext_script()
    return [build_one(plat, pins, tool) for plat in platforms]


def parse_platforms(value):
    """Platform list from the --platform argument (host, all, or one Blender platform name)."""
    if value == "host":
        return [host_platform()]
    if value == "all":
        return list(PLATFORM_TAGS)
    return [value]


def main(argv=None):
    """Command line: build the requested platform packages and print their paths and sizes."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--platform", default="host", choices=["host", "all", *PLATFORM_TAGS],
                        help="which platform package(s) to build (default: this machine's)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    zips = build(parse_platforms(args.platform))
    for path in zips:
        print(f"{path}  ({os.path.getsize(path) / 1e6:.1f} MB)")
    print(f"built {len(zips)} package(s) in {time.perf_counter() - start:.1f} s")
    return zips


if __name__ == "__main__":
    main()
