"""`make demo`: build the extension for this machine, install it into a throwaway Blender, simulate and render demo_out/."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import build

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "demo_out")
SCENE_SCRIPT = os.path.join(REPO, "scripts", "demo_scene.py")


def run_scene(zip_path):
    """Run scripts/demo_scene.py in a fresh bpy process with a throwaway user dir; return its JSON result."""
    with tempfile.TemporaryDirectory(prefix="softfem_demo_user_") as user:
        env = dict(os.environ, HOME=os.path.join(user, "home"), BLENDER_USER_RESOURCES=os.path.join(user, "res"))
        env.pop("NUMBA_CACHE_DIR", None)  # as in a user's Blender: the add-on picks its own cache folder
        os.makedirs(env["HOME"])
        proc = subprocess.Popen([sys.executable, SCENE_SCRIPT, zip_path, OUT], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, bufsize=1)
        result = None
        for line in proc.stdout:
            if line.startswith("SOFTFEM_DEMO_RESULT="):
                result = json.loads(line.split("=", 1)[1])
            elif not any(k in line for k in ("Fra:", "Saved:", "Video append", "Time:")):  # per-frame chatter
                print("  | " + line, end="", flush=True)
        proc.wait()
    if proc.returncode != 0 or result is None:
        sys.exit(f"demo scene failed (exit code {proc.returncode}); see the output above")
    return result


def main():
    """Build, install, simulate, render; print the figures and exit 1 if any part is missing or failed."""
    start = time.perf_counter()
    shutil.rmtree(OUT, ignore_errors=True)  # no stale frame or cache of an earlier run may be shown
    print("== building the extension for this platform", flush=True)
    t = time.perf_counter()
    (zip_path,) = build.build([build.host_platform()])
    print(f"   {zip_path} ({os.path.getsize(zip_path) / 1e6:.1f} MB) in {time.perf_counter() - t:.1f} s")
    print("== installing it into a throwaway Blender, building, baking and rendering the scene", flush=True)
    result = run_scene(zip_path)

    print("== results in", OUT)
    if result.get("blend"):
        print(f"   blend:  {result['blend']}")
    if result["renders"]:
        print(f"   frames: {len(result['renders'])} PNG (the video's, half size) in {os.path.join(OUT, 'frames')}"
              f" ({result['render_seconds_per_frame']} s/frame)")
    if result.get("stills"):
        print(f"   stills: {len(result['stills'])} PNG at full size, both cameras, in {os.path.join(OUT, 'stills')}"
              f" ({result['still_seconds_each']} s each)")
    if result.get("video"):
        print(f"   video:  {result['video']} (encoded in {result['encode_seconds']} s)")
    if result.get("strain_video"):
        print(f"   strain: {result['strain_video']}: the close-up of the landing, the bodies coloured by their "
              f"softfem_strain ({len(result['strain_renders'])} frames in {os.path.join(OUT, 'strain')}, "
              f"{result['strain_seconds_per_frame']} s/frame)")
    if "bake_seconds" in result:
        print(f"   bake:   {result['bake_seconds']} s")
    if "measure_seconds" in result:
        print(f"   measuring: {result['measure_seconds']} s")
    if result["simulated"]:
        for name, figures in result["bodies"].items():
            print(f"   {name}: {json.dumps(figures)}")
    print(f"   total:  {time.perf_counter() - start:.1f} s")
    if not result["simulated"]:
        shown = "; the PNG shows the scene's start frame only" if result["renders"] else ""
        print(f"== INCOMPLETE: nothing was simulated{shown}. Missing:")
        for item in result["missing"] + result["problems"]:
            print(f"   - {item}")
        sys.exit(1)
    if result["missing"] or result["problems"]:
        print("== SIMULATED WITH PROBLEMS (the renders show what the simulation did):")
        for item in result["missing"] + result["problems"]:
            print(f"   - {item}")
        sys.exit(1)
    print("== done")


if __name__ == "__main__":
    main()
