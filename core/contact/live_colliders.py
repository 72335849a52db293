"""The active colliders that have triangles, as one triangle set: its arrays, BVH, positions and feature edges."""
import numpy as np

from .bvh import BVH
from .detect import triangle_normals
from .edge_rows import ColliderEdges


class LiveColliders:
    """The active colliders of `colliders` that have triangles (live), their triangles numbered over their concatenated
    vertices (tris) with per triangle: collider index, μ, thickness, one-sidedness, group (−1: no body) and
    normal (at the positions last refit for); the reach cache (see row_sets.triangle_reach) and the BVH (None:
    no collider has triangles)."""

    def __init__(self, colliders):
        live = [c for c in colliders if len(c.triangles) and c.active]
        self.live = live
        self.bvh = None
        self._edges = None
        if not live:
            return
        voffs = np.concatenate([[0], np.cumsum([len(c.start) for c in live])])
        counts = [len(c.triangles) for c in live]
        self.tris = np.concatenate([c.triangles + voffs[i] for i, c in enumerate(live)]).astype(np.int64)
        self.index = np.repeat([c.index for c in live], counts)
        self.mu = np.repeat([c.friction for c in live], counts).astype(np.float64)
        self.thick = np.repeat([c.thickness for c in live], counts).astype(np.float64)
        self.onesided = np.repeat([c.one_sided for c in live], counts).astype(np.bool_)
        self.group = np.full(len(self.tris), -1, np.int64)
        self.reach = {}
        self._fit = None     # the positions and pads the BVH was last refit for
        self.normal = np.empty((len(self.tris), 3))
        self._positions, self._ends = {}, []
        self.bvh = BVH(np.concatenate([c.start for c in live]), self.tris)

    def positions(self, frac):
        """The live colliders' vertices at `frac` of their motion (not to be written to: kept while the colliders'
        start and end arrays are the same objects; move_collider and finish_step replace them)."""
        ends = [(c.start, c.end) for c in self.live]
        if any(a is not b for pair, known in zip(ends, self._ends) for a, b in zip(pair, known)):
            self._positions.clear()
        self._ends = ends
        if frac not in self._positions:
            self._positions[frac] = np.ascontiguousarray(np.concatenate([(1.0 - frac) * a + frac * b
                                                                         for a, b in ends]))
        return self._positions[frac]

    def refit(self, c0, c1, pad):
        """Refit the BVH (grown by pad, per triangle) and the triangles' normals for the motion c0 -> c1, unless it
        was last refit for the same."""
        last = self._fit
        moved0 = last is None or not (last[0] is c0 or np.array_equal(last[0], c0))
        moved1 = last is None or not (last[1] is c1 or np.array_equal(last[1], c1))
        if moved0 or moved1 or last[2] is not pad:
            self.bvh.refit(c0, c1, pad)
            if moved0:
                triangle_normals(c0, self.tris, self.normal)
            self._fit = (c0, c1, pad)

    def feature_edges(self):
        """The live colliders' ColliderEdges, found again when a collider's shape changed (a deforming collider's
        sharp edges change)."""
        if self._edges is None or self._edges.reshaped(self.live):
            self._edges = ColliderEdges(self.live)
        return self._edges
