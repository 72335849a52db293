"""A bake killed mid-way and baked again from its cache in a new Blender process ends as an uninterrupted bake, bit for
bit (each in a child process: bake_child.py)."""
import glob
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bake_child.py")
END = 200          # the last frame baked (8.3 s at 24 fps: the balls land on each other by frame ~40, then rest)
KILLED_AT = 40     # the bake is killed once its cache holds this frame
TIMEOUT = 1800.0   # s for a child (a cold numba cache compiles the solver first: minutes on a busy machine)


def _start(mode, blend, *flags):
    return subprocess.Popen([sys.executable, CHILD, mode, blend, str(END), *flags], env=dict(os.environ),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _bake(mode, blend, *flags):
    """Bake in a child to the end; returns its seconds."""
    started = time.perf_counter()
    proc = _start(mode, blend, *flags)
    out, _ = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, out[-3000:]
    return time.perf_counter() - started


def _frame_file(folder, frame):
    found = glob.glob(os.path.join(folder, "cache", f"*_{frame:06d}.sfc"))
    return found[0] if found else None


def _frame(softfem, folder, frame):
    """(x, v) of every body at `frame` from the folder's cache file."""
    _frame_, _sig, bodies, carried = softfem.addon.cache_files.read_frame(_frame_file(folder, frame))
    assert carried or frame == 1                      # this version caches what the World carries on
    return np.concatenate([b[1] for b in bodies]), np.concatenate([b[2] for b in bodies])


def _kill_once_cached(blend, frame):
    """Start a bake in a child and kill it (SIGKILL) as soon as its cache holds `frame`."""
    proc = _start("new", blend)
    folder = os.path.dirname(blend)
    deadline = time.monotonic() + TIMEOUT
    try:
        while _frame_file(folder, frame) is None:
            assert proc.poll() is None, f"the bake ended before frame {frame}: {proc.stdout.read()[-3000:]}"
            assert time.monotonic() < deadline, f"no frame {frame} in {TIMEOUT} s"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()


def test_a_bake_killed_and_baked_again_in_a_new_process_ends_as_an_uninterrupted_one(softfem, tmp_path):
    killed, whole, before = (tmp_path / name for name in ("killed", "whole", "before"))
    for folder in (killed, whole):
        folder.mkdir()
    _kill_once_cached(str(killed / "balls.blend"), KILLED_AT)
    cached = sorted(int(p[-10:-4]) for p in glob.glob(str(killed / "cache" / "*.sfc")))
    assert cached[0] == 1 and KILLED_AT <= cached[-1] < END   # killed mid-way, its frames up to there kept
    shutil.copytree(killed, before)                          # (the .blend's cache folder is relative: "//cache/")
    resumed_seconds = _bake("open", str(killed / "balls.blend"))
    whole_seconds = _bake("new", str(whole / "balls.blend"))
    x, v = _frame(softfem, str(whole), END)
    x_resumed, v_resumed = _frame(softfem, str(killed), END)
    x_first, _ = _frame(softfem, str(whole), 1)
    assert np.abs(x - x_first).max() > 0.3                   # the balls fell
    assert np.array_equal(x_resumed, x) and np.array_equal(v_resumed, v), \
        f"{np.linalg.norm(x_resumed - x, axis=1).max():.3g} m apart"
    # The test measures something: resumed from x, v and motion alone (as before the carried state was cached), the
    # same bake ends elsewhere.
    _bake("open", str(before / "balls.blend"), "--forget-carried")
    x_before, _ = _frame(softfem, str(before), END)
    apart = np.linalg.norm(x_before - x, axis=1).max()
    assert apart > 0.0
    print(f"\nframe {END}: resumed {np.linalg.norm(x_resumed - x, axis=1).max():.3g} m, resumed without the carried "
          f"state {apart:.3g} m from the uninterrupted bake (bakes: {whole_seconds:.0f} s whole, {resumed_seconds:.0f} s "
          f"resumed after frame {cached[-1]}; frame {END}'s file {os.path.getsize(_frame_file(str(whole), END)) / 1e3:.1f} "
          f"kB)")
