"""The one place core imports numba from: compiled kernels are cached on disk (NUMBA_CACHE_DIR)."""
from numba import njit, prange  # noqa: F401  (re-exported for the kernels)

__all__ = ["njit", "prange"]
