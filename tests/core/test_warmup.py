"""The warm-up's child process (core/warmup_child.py): it reports each kernel on stdout, and what it compiles into
numba's disk cache is loaded, not compiled again, by another process."""
import os
import subprocess
import sys

import numpy as np

from core.geometry.primitives import icosphere
from core.warmup import _boxed

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORE = os.path.join(REPO, "core")


def test_boxed_embedding_reproduces_the_surface():
    v, f = icosphere(1, 0.25)
    mesh = _boxed(v, f)
    emb = mesh.embedding
    assert mesh.num_tets == 5 and np.all(mesh.volumes() > 0)
    assert np.allclose(mesh.volumes().sum(), np.prod(np.ptp(mesh.nodes, axis=0)))
    assert emb.weights.min() >= 0.0 and np.allclose(emb.weights.sum(axis=1), 1.0)
    assert np.allclose(np.einsum("pk,pkd->pd", emb.weights, mesh.nodes[mesh.tets[emb.tet]]), v, atol=1e-12)


def test_kernels_a_child_compiles_are_loaded_by_another_process():
    env = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", os.path.join(REPO, ".numba_cache")),
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    child = subprocess.run([sys.executable, os.path.join(CORE, "warmup_child.py"), "core", "simulation"], env=env,
                           capture_output=True, text=True, timeout=1800)
    lines = child.stdout.splitlines()
    assert child.returncode == 0 and lines[-1] == "done", child.stdout[-2000:] + child.stderr[-2000:]
    total = int(lines[0].split()[1])
    reported = {line.split()[1] for line in lines if line.startswith("kernel ")}
    assert 20 < len(reported) <= total
    # A fresh process, as Blender's after the child: numba keys its cache by source file, and a cached kernel
    # imports its module by name when loaded (so the child imports core under the parent's name).
    check = ("from core import warmup; warmup.run('simulation'); "
             "used = [k for k in warmup.kernels() if k.overloads]; "
             "print(len(used), warmup.compiled_here(), sum(sum(k.stats.cache_hits.values()) for k in used))")
    loaded = subprocess.run([sys.executable, "-c", check], env=env, cwd=REPO, capture_output=True, text=True,
                            timeout=600)
    # Kernels called only from other kernels are compiled into their callers, so fewer than the child reported
    # have an overload here; none may have been compiled.
    used, compiled, hits = map(int, loaded.stdout.split())
    assert 20 < used <= len(reported) and compiled == 0 and hits >= used, loaded.stdout + loaded.stderr[-2000:]
