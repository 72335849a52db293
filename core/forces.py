"""Force fields on soft-body nodes: wind, force (radial), vortex and turbulence, as accelerations (N/kg).

Each field is a row of plain arrays (no bpy), read after Blender's force field conventions:
  origin (3,), axis (3,) unit: the field object's location and Z axis;
  kind: WIND (along the axis), FORCE (away from the origin; negative strength attracts), VORTEX (around the
  axis, counter-clockwise seen from +axis), TURBULENCE (a smooth pseudo-random direction field of cell `size`);
  shape: POINT (distance to the origin) or PLANE (distance to the plane through the origin normal to the axis);
  strength (m/s²), flow (1/s): an air-drag rate pulling the node's velocity towards strength/flow along the
  field's direction (the steady drift of a free body in wind is strength / flow);
  falloff (Blender's sphere falloff): weight 1 / (1 + d - d_min)^power for d_min <= d <= d_max, 1 below d_min,
  0 beyond d_max (d_min, d_max only when enabled: pass 0 and inf otherwise).
The acceleration of a node is Σ weight · falloff · (strength · direction − flow · v).
"""
import numpy as np

from .errors import InvalidInputError
from .jit import njit, prange

WIND, FORCE, VORTEX, TURBULENCE = 0, 1, 2, 3
POINT, PLANE = 0, 1
KINDS = {"WIND": WIND, "FORCE": FORCE, "VORTEX": VORTEX, "TURBULENCE": TURBULENCE}
SHAPES = {"POINT": POINT, "PLANE": PLANE}


class ForceFields:
    """A set of fields as structure-of-arrays; `acceleration(x, v)` gives every node's (N,3) acceleration."""

    def __init__(self):
        self._rows = []

    def add(self, kind, origin, axis, strength, flow=0.0, shape="POINT", power=0.0, d_min=0.0,
            d_max=np.inf, size=1.0, seed=0, weight=1.0):
        """Add one field (see the module's docstring); kind and shape are names ("WIND", "PLANE", ...)."""
        if kind not in KINDS:
            raise InvalidInputError(f"unknown force field kind {kind!r} (one of {sorted(KINDS)})")
        if shape not in SHAPES:
            raise InvalidInputError(f"unknown force field shape {shape!r} (one of {sorted(SHAPES)})")
        axis = np.asarray(axis, np.float64)
        norm = np.linalg.norm(axis)
        values = np.array([strength, flow, power, d_min, d_max, size, weight], np.float64)
        if norm == 0 or not np.all(np.isfinite(axis)) or not np.all(np.isfinite(origin)) \
                or np.any(np.isnan(values)) or not np.all(np.isfinite(values[[0, 1, 2, 3, 5, 6]])):
            raise InvalidInputError("force field: origin, axis and settings must be finite (axis non-zero)")
        if flow < 0 or size <= 0 or d_max < d_min:
            raise InvalidInputError("force field: flow must be >= 0, size > 0 and d_max >= d_min")
        self._rows.append((KINDS[kind], SHAPES[shape], np.asarray(origin, np.float64), axis / norm, values,
                           int(seed)))

    def __len__(self):
        return len(self._rows)

    def acceleration(self, x, v):
        """(N,3) acceleration of nodes at positions x, velocities v (world space)."""
        x = np.ascontiguousarray(x, np.float64)
        v = np.ascontiguousarray(v, np.float64)
        out = np.zeros_like(x)
        if not self._rows:
            return out
        kinds = np.array([r[0] for r in self._rows], np.int64)
        shapes = np.array([r[1] for r in self._rows], np.int64)
        origins = np.array([r[2] for r in self._rows])
        axes = np.array([r[3] for r in self._rows])
        values = np.array([r[4] for r in self._rows])
        phases = np.array([_phases(r[5]) for r in self._rows])
        _accelerate(x, v, kinds, shapes, origins, axes, values, phases, out)
        return out


def _phases(seed):
    """Turbulence: three random unit wave vectors and phases per component (9 waves), fixed by the seed."""
    rng = np.random.default_rng(seed)
    k = rng.normal(size=(9, 3))
    k /= np.linalg.norm(k, axis=1)[:, None]
    return np.concatenate([k.ravel(), rng.uniform(0, 2 * np.pi, 9)])


@njit(cache=True, parallel=True)
def _accelerate(x, v, kinds, shapes, origins, axes, values, phases, out):
    n = x.shape[0]
    for i in prange(n):
        for f in range(kinds.shape[0]):
            strength, flow, power = values[f, 0], values[f, 1], values[f, 2]
            d_min, d_max, size, weight = values[f, 3], values[f, 4], values[f, 5], values[f, 6]
            r0 = x[i, 0] - origins[f, 0]
            r1 = x[i, 1] - origins[f, 1]
            r2 = x[i, 2] - origins[f, 2]
            a0, a1, a2 = axes[f, 0], axes[f, 1], axes[f, 2]
            along = r0 * a0 + r1 * a1 + r2 * a2
            if shapes[f] == PLANE:
                d = abs(along)
            else:
                d = np.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
            if d > d_max:
                continue
            fall = 1.0 if d < d_min else (1.0 + d - d_min) ** (-power)
            kind = kinds[f]
            if kind == WIND:
                e0, e1, e2 = a0, a1, a2
            elif kind == FORCE:
                e0, e1, e2 = r0, r1, r2
                norm = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
                if norm > 0:
                    e0, e1, e2 = e0 / norm, e1 / norm, e2 / norm
            elif kind == VORTEX:   # axis × r: tangential around the axis
                e0 = a1 * r2 - a2 * r1
                e1 = a2 * r0 - a0 * r2
                e2 = a0 * r1 - a1 * r0
                norm = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
                if norm > 0:
                    e0, e1, e2 = e0 / norm, e1 / norm, e2 / norm
            else:   # TURBULENCE: each component a sum of three plane waves of wavelength ~ size
                e0 = e1 = e2 = 0.0
                for c in range(3):
                    s = 0.0
                    for w in range(3):
                        k = 3 * c + w
                        s += np.sin((phases[f, 3 * k] * r0 + phases[f, 3 * k + 1] * r1 + phases[f, 3 * k + 2] * r2)
                                    * (2.0 * np.pi / size) + phases[f, 27 + k])
                    if c == 0:
                        e0 = s / 3.0
                    elif c == 1:
                        e1 = s / 3.0
                    else:
                        e2 = s / 3.0
            g = weight * fall
            out[i, 0] += g * (strength * e0 - flow * v[i, 0])
            out[i, 1] += g * (strength * e1 - flow * v[i, 1])
            out[i, 2] += g * (strength * e2 - flow * v[i, 2])
