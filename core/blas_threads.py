"""OpenBLAS's own thread count, held at one while a step runs. Woken by a LAPACK call (the multigrid's coarsest
inverse) or a long dot product, OpenBLAS's threads spin for ~0.1 s beside numba's on a 2-core machine: the 20k-tet
Rubber beam's steps ran twice as slow for five steps after each multigrid rebuild (measured), and its multigrid step
took 0.72 against 0.45 µs/tet with OPENBLAS_NUM_THREADS=1. numpy and scipy each bundle an OpenBLAS (their wheels'
.libs or .dylibs folders), whose setters are found by name; where none is found (another BLAS), nothing is done."""
import contextlib
import ctypes
import glob
import os

import numpy
import scipy

_NAMES = [(f"{prefix}_get_num_threads{suffix}", f"{prefix}_set_num_threads{suffix}")
          for prefix in ("openblas", "scipy_openblas") for suffix in ("", "64_")]


def _controls():
    """(get, set) of each OpenBLAS library numpy and scipy ship."""
    found = []
    for package in (numpy, scipy):
        root = os.path.dirname(package.__file__)
        for folder in (root + ".libs", os.path.join(root, ".libs"), os.path.join(root, ".dylibs")):
            for path in sorted(glob.glob(os.path.join(folder, "*openblas*"))):
                try:
                    library = ctypes.CDLL(path)
                except OSError:
                    continue
                for get_name, set_name in _NAMES:
                    get, put = getattr(library, get_name, None), getattr(library, set_name, None)
                    if get is not None and put is not None:
                        get.restype, put.argtypes = ctypes.c_int, [ctypes.c_int]
                        found.append((get, put))
                        break
    return found


_CONTROLS = _controls()


def blas_threads():
    """Each OpenBLAS library's thread count (for tests)."""
    return [get() for get, _ in _CONTROLS]


@contextlib.contextmanager
def one_blas_thread():
    """Run the enclosed code with every OpenBLAS library on one thread (then restore)."""
    saved = [(put, get()) for get, put in _CONTROLS]
    for put, _ in saved:
        put(1)
    try:
        yield
    finally:
        for put, count in saved:
            put(count)
