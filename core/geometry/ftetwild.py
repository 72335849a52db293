"""fTetWild (pytetwild) in a child process: a time limit, progress while it runs, one-line errors."""
import hashlib
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from ..errors import InvalidInputError

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ftetwild_child.py")
# Seconds fTetWild may take before it is stopped (the object is left as it was).
TIME_LIMIT = 120.0
NEEDS_FTETWILD = ("conforming mode needs fTetWild (the pytetwild package), which could not be loaded; "
                  "cage mode does not need it")
_available = None
# fTetWild is not deterministic (wildmeshing/fTetWild#72: not its threads, nor address randomisation, nor Python's
# hash seed, measured here): the meshes of the last few inputs are kept, so one input gives one mesh in a session.
_MEMO = {}
_MEMO_SIZE = 8


def _memo_key(v, t, *params):
    digest = hashlib.sha1(np.ascontiguousarray(v).tobytes())
    digest.update(np.ascontiguousarray(t).tobytes())
    digest.update(repr(params).encode())
    return digest.hexdigest()


def available():
    """Whether pytetwild's fTetWild wrapper loads (checked once, in a child process)."""
    global _available
    if _available is None:
        try:
            _available = subprocess.run([sys.executable, CHILD, "--probe"], capture_output=True,
                                        timeout=60).returncode == 0
        except (OSError, subprocess.SubprocessError):
            _available = False
    return _available


def _last_line(text):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "no message"


def ftetwild(vertices, triangles, edge, epsilon, time_limit=TIME_LIMIT, progress=None, threads=1, iterations=20,
             remember=True):
    """Tet mesh (nodes (n,3), tets (m,4) int64) of a triangle soup by fTetWild: target edge length `edge` (world
    units), envelope `epsilon` (a fraction of the bounding-box diagonal). Runs in a child process with the same
    interpreter, stopped after `time_limit` seconds; `progress(seconds)` is called about 5 times a second while it
    runs. With `remember`, an input meshed before in this session gets the same mesh again (copies of it).
    Raises InvalidInputError with one line."""
    v = np.asarray(vertices, np.float64)
    t = np.asarray(triangles, np.int64)
    if len(v) == 0 or len(t) == 0 or not np.all(np.isfinite(v)):
        raise InvalidInputError("fTetWild needs a non-empty mesh with finite coordinates")
    if not available():
        raise InvalidInputError(NEEDS_FTETWILD)
    key = _memo_key(v, t, float(edge), float(epsilon), int(threads), int(iterations))
    if remember and key in _MEMO:
        return _MEMO[key][0].copy(), _MEMO[key][1].copy()
    with tempfile.TemporaryDirectory(prefix="softfem_ftetwild_") as tmp:
        inp, out = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(inp, vertices=v, triangles=t, edge=float(edge), epsilon=float(epsilon), threads=int(threads),
                 iterations=int(iterations))
        with open(os.path.join(tmp, "err.txt"), "w+", encoding="utf-8", errors="replace") as err:
            # in the temporary folder: fTetWild writes a __tracked_surface.stl into its working directory
            child = subprocess.Popen([sys.executable, CHILD, inp, out], stdout=subprocess.DEVNULL, stderr=err,
                                     cwd=tmp)
            t0 = time.perf_counter()
            try:
                while child.poll() is None:
                    elapsed = time.perf_counter() - t0
                    if elapsed > time_limit:
                        raise InvalidInputError(f"fTetWild took longer than {time_limit:g} s and was stopped; "
                                                f"try a larger envelope, a lower resolution, or cage mode")
                    if progress is not None:
                        progress(elapsed)
                    time.sleep(0.2)
            finally:
                if child.poll() is None:
                    child.kill()
                    child.wait()
            err.seek(0)
            message = err.read()
        if child.returncode != 0 or not os.path.exists(out):
            raise InvalidInputError(f"fTetWild failed (exit code {child.returncode}): {_last_line(message)}")
        data = np.load(out)
        nodes, tets = data["nodes"], data["tets"]
    if len(tets) == 0:
        raise InvalidInputError("fTetWild returned no tets: the mesh encloses no volume it could find")
    if remember:
        while len(_MEMO) >= _MEMO_SIZE:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = nodes.copy(), tets.copy()
    return nodes, tets
