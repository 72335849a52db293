"""The one place core imports numba from: compiled kernels are cached on disk (NUMBA_CACHE_DIR)."""
import os

# Idle OpenMP threads must sleep, not spin: on a busy machine (Blender's own threads, other
# processes) spinning waiters made 2-thread kernels ~20x slower than 1 thread (measured).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from numba import njit, prange  # noqa: E402,F401  (re-exported for the kernels)

__all__ = ["njit", "prange"]
