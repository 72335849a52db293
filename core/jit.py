"""The one place core imports numba from: compiled kernels are cached on disk, keyed by core's sources."""
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

# OpenMP first (read at the first parallel launch): Blender ships TBB, which numba otherwise prefers, and TBB's work
# stealing sums a parallel loop's terms in a different order each run. Through the add-on, five stacked cubes (55k
# tets: the CG on two threads) then differed from run to run from the first contact on (a CG replayed on the same input
# gave 18 different results in 300), and a pile of ten ended differently each time (0.64 m apart at frame 48). With
# OpenMP's static schedule a count of threads always sums in the same order; the ball drop's frames took the same time.
numba.config.THREADING_LAYER_PRIORITY = ["omp", "tbb", "workqueue"]

__all__ = ["FAST_SUMS", "get_num_threads", "njit", "prange"]

# fastmath flags of the sparse block products: multiply-adds fused and sums taken in any order (the 20k-tet beam's
# matrix product 15-20 % faster, measured), but not "nnan"/"ninf": the solvers' NaN tests must stay.
FAST_SUMS = {"contract", "reassoc"}

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
