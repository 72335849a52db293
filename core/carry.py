"""Carried state: reading back, checked, the arrays World.carried() hands out (what one step leaves for the next)."""
import numpy as np

from .errors import InvalidInputError

_KINDS = {np.bool_: "b", np.int8: "biu", np.int64: "biu", np.float64: "biuf"}


def take(carried, name, shape, dtype):
    """carried[name] as a new array of `dtype` with `shape` (None: any length on that axis); InvalidInputError in one
    line if it is missing, has another shape or kind, or (floats) is not finite."""
    if name not in carried:
        raise InvalidInputError(f"the carried state has no '{name}'")
    a = np.asarray(carried[name])
    if a.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, a.shape)):
        want = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        raise InvalidInputError(f"the carried '{name}' has shape {a.shape}, this world needs {want}")
    if a.dtype.kind not in _KINDS[dtype]:
        raise InvalidInputError(f"the carried '{name}' holds {a.dtype}, not {np.dtype(dtype)}")
    out = np.array(a, dtype=dtype)
    if out.dtype.kind == "f" and not np.all(np.isfinite(out)):
        raise InvalidInputError(f"the carried '{name}' contains NaN or infinite values")
    return out
