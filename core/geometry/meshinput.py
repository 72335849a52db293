"""Validation and normalisation of a surface mesh given to tetrahedralize (vertices (n,3), triangles (m,3))."""
import numpy as np

from ..errors import InvalidInputError
from .winding import WindingNumber

_SNAP = 2.0 ** 32
# (a Solidify modifier left live comes after SoftFEM's in the stack: it thickens the simulated sheet, which has none)
NO_VOLUME = ("no volume: SoftFEM simulates solids; give the mesh thickness (extrude it, or add a Solidify modifier "
             "and apply it)")


class SurfaceMesh:
    """A checked triangle mesh plus its similarity normalisation: `unit_vertices` = (vertices - origin) / scale,
    so the longest bounding-box side is 1 and every tolerance downstream is scale-free (relative error <= 2^-33)."""

    def __init__(self, vertices, triangles):
        v = np.asarray(vertices)
        t = np.asarray(triangles)
        if v.ndim != 2 or v.shape[1] != 3 or len(v) == 0:
            raise InvalidInputError(f"vertices must have shape (n, 3) with n > 0, got {v.shape}")
        if t.ndim != 2 or t.shape[1] != 3 or len(t) == 0:
            raise InvalidInputError(f"triangles must have shape (m, 3) with m > 0, got {t.shape}"
                                    " (triangulate quads and n-gons first)")
        if not np.issubdtype(v.dtype, np.number) or not np.issubdtype(t.dtype, np.integer):
            raise InvalidInputError("vertices must be numbers and triangles integer indices")
        v = np.array(v, dtype=np.float64)
        if not np.all(np.isfinite(v)):
            raise InvalidInputError("vertices contain NaN or infinite coordinates")
        t = np.array(t, dtype=np.int64)
        if t.min() < 0 or t.max() >= len(v):
            raise InvalidInputError(f"triangles index vertices out of range [0, {len(v) - 1}]")
        self.vertices = v
        self.triangles = np.ascontiguousarray(t)
        lo, hi = v.min(axis=0), v.max(axis=0)
        self.scale = float((hi - lo).max())
        if not self.scale > 0.0:
            raise InvalidInputError(NO_VOLUME)
        self.origin = lo
        # snapped to a 2^-32 lattice: rounding noise of a scaled or moved copy of the mesh vanishes, so every
        # decision downstream (and the cage) is the same at any scale or position
        self.unit_vertices = np.ascontiguousarray(np.round((v - lo) / self.scale * _SNAP) / _SNAP)
        self._welded = None
        self._winding = None
        self._closed = None

    @property
    def welded_triangles(self):
        """Triangles re-indexed so vertices at the same position share one index."""
        if self._welded is None:
            self._welded = welded_triangles(self.vertices, self.triangles)
        return self._welded

    def winding(self):
        """The winding-number tree of the surface in unit coordinates (built once: Auto builds several cages)."""
        if self._winding is None:
            self._winding = WindingNumber(self.unit_vertices, self.triangles)
        return self._winding

    def is_closed(self):
        """True if the welded mesh is watertight and consistently oriented (see `edges_balanced`)."""
        if self._closed is None:
            self._closed = edges_balanced(self.welded_triangles)
        return self._closed

    def enclosed_volume_unit(self):
        """Signed divergence-theorem volume in unit coordinates (meaningful when the mesh is closed)."""
        p = self.unit_vertices[self.triangles]
        return float(np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6.0)


def welded_triangles(vertices, triangles):
    """Triangles re-indexed so vertices at the same position share one index."""
    v = vertices
    order = np.lexsort((v[:, 2], v[:, 1], v[:, 0]))
    new = np.concatenate([[True], np.any(v[order[1:]] != v[order[:-1]], axis=1)])
    ids = np.empty(len(v), np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids[triangles]


def open_edges(triangles):
    """Directed open edges (k,2) of a welded triangle mesh: a→b used more often than b→a (degenerate triangles
    ignored); a consistently oriented surface's boundary runs a→b with the surface on its left."""
    t = _nondegenerate(triangles)
    if len(t) == 0:
        return np.zeros((0, 2), np.int64)
    a = np.concatenate([t[:, 0], t[:, 1], t[:, 2]])
    b = np.concatenate([t[:, 1], t[:, 2], t[:, 0]])
    n = int(max(a.max(), b.max())) + 1
    keys, counts = np.unique(a * n + b, return_counts=True)
    reverse = (keys % n) * n + keys // n
    at = np.minimum(np.searchsorted(keys, reverse), len(keys) - 1)
    rev_count = np.where(keys[at] == reverse, counts[at], 0)
    k = keys[counts > rev_count]
    return np.stack([k // n, k % n], axis=1)


def edges_balanced(triangles):
    """True if every edge is used as often in one direction as in the other (degenerate triangles ignored):
    watertight and consistently oriented, so the divergence-theorem volume is the enclosed volume."""
    return len(_nondegenerate(triangles)) > 0 and len(open_edges(triangles)) == 0


def _nondegenerate(triangles):
    """The triangles with three distinct vertex indices."""
    t = triangles
    return t[(t[:, 0] != t[:, 1]) & (t[:, 1] != t[:, 2]) & (t[:, 2] != t[:, 0])]
