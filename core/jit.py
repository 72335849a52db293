"""The one place core imports numba from: compiled kernels are cached on disk, keyed by core's sources."""
import contextlib
import hashlib
import os

# Idle OpenMP threads spin briefly, then sleep. Spinning without end made 2-thread kernels ~20x slower than 1 thread on
# a busy machine (Blender's own threads, other processes: measured), so the waiters are passive; but waking a sleeping
# thread costs ~40 us a kernel launch (measured), more than a mid-size kernel's whole work. 20,000 spins (libgomp's
# count) keep a waiter awake ~0.5 ms, across the gaps between a step's kernels, so a launch costs ~2 us; an idle pool
# then sleeps.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("GOMP_SPINCOUNT", "20000")

import numba  # noqa: E402
from numba import get_num_threads, njit, prange  # noqa: E402,F401  (re-exported for the kernels)
from numba.core import caching  # noqa: E402

from .blas_threads import one_blas_thread  # noqa: E402

__all__ = ["FAST_SUMS", "get_num_threads", "njit", "prange", "solver_threads", "threads_for"]

# fastmath flags of the sparse block products: multiply-adds fused and sums taken in any order (the 20k-tet beam's
# matrix product 15-20 % faster, measured), but not "nnan"/"ninf": the solvers' NaN tests must stay.
FAST_SUMS = {"contract", "reassoc"}

# A step's element kernels (rotations, forces, assembly) get a thread per this many tets, up to all of them: each
# writes per tet or per node, in an order no thread count changes, so the motion is the same bit for bit on any
# number of threads. Through the add-on on 2 cores, the 5.9k-tet icosphere drop (benchmarks/vs_blender_softbody.py)
# took 0.69-0.79x the time a frame on 2 threads as on 1 (benchmarks/RESULTS.md).
TETS_PER_THREAD = 2500


@contextlib.contextmanager
def threads_for(num_tets):
    """Run the enclosed kernels on a thread per TETS_PER_THREAD tets (all at most), and OpenBLAS on one thread
    (core.blas_threads) (then restore)."""
    before = numba.get_num_threads()
    numba.set_num_threads(max(1, min(num_tets // TETS_PER_THREAD, numba.config.NUMBA_NUM_THREADS)))
    try:
        with one_blas_thread():
            yield
    finally:
        numba.set_num_threads(before)


# Below this many tets the CG's iterations and the contact stage run on one thread even where the element kernels
# (rotations, forces, assembly) use more: they launch many short parallel loops a step (three a CG iteration), on one
# thread the CG's product reads half the matrix (core.fem.block_sparse.upper_product), and its sums do not depend on
# the machine's thread count.
# The icosphere drop (the add-on's defaults but finer cages) took 0.65-0.69x the time at 13k and 25k tets with them
# on one thread, the same at 65k (benchmarks/RESULTS.md, FEM step).
PARALLEL_MIN_SOLVE_TETS = 50000


@contextlib.contextmanager
def solver_threads(num_tets):
    """Run the enclosed CG or contact kernels on one thread below PARALLEL_MIN_SOLVE_TETS, else as they were (then
    restore)."""
    before = numba.get_num_threads()
    if num_tets < PARALLEL_MIN_SOLVE_TETS:
        numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


_ROOT = os.path.dirname(os.path.abspath(__file__))


class CoreCacheLocator(getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator):
    """Core's kernels cached in CACHE_DIR under their folder's path inside core, where numba would use a hash of
    its absolute path: a cache compiled elsewhere (the prebuilt one a package ships) is found wherever core is
    installed. Functions outside core are left to numba's own locators."""

    @classmethod
    def get_suitable_cache_subpath(cls, py_file):
        folder = os.path.relpath(os.path.dirname(os.path.abspath(py_file)), _ROOT)
        return "core" if folder == os.curdir else "core_" + folder.replace(os.sep, "_")

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.abspath(py_file).startswith(_ROOT + os.sep):
            return None
        return super().from_function(py_func, py_file)


_locators = (getattr(caching, "CacheImpl", None) or caching._CacheImpl)._locator_classes
if not any(getattr(c, "__module__", None) == __name__ for c in _locators):
    _locators.insert(0, CoreCacheLocator)


def sources_fingerprint():
    """A hash of core's package name and of every core source file: numba's cache only checks the file a kernel
    is defined in, so a changed kernel that another module's kernel calls would otherwise keep its stale machine
    code; and a cached kernel imports its module by name when loaded, so core imported under another name (the
    tests' `core`, Blender's `bl_ext.user_default.softfem.core`) needs kernels of its own."""
    root = _ROOT
    digest = hashlib.sha1(__name__.encode())
    for folder, subfolders, files in os.walk(root):
        subfolders.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                digest.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as source:
                    digest.update(source.read())
    return digest.hexdigest()[:16]


# Only when a cache folder is configured (NUMBA_CACHE_DIR: the add-on's user folder, .numba_cache in
# development); kernels read numba.config.CACHE_DIR when they are decorated, i.e. after this line.
if numba.config.CACHE_DIR:
    numba.config.CACHE_DIR = os.path.join(numba.config.CACHE_DIR, "softfem-" + sources_fingerprint())
