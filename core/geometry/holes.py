"""Inside of an open mesh with large holes: each hole's boundary loop capped by a fan, the winding number of the result.

Why loop caps and not a morphological closing. A closing (dilate the surface voxels by a radius, flood the outside,
erode back) is topology-free but fills every concavity narrower than the radius, holes or not (Suzanne's), and its
caps sag: a ball of radius r still reaches r - sqrt(r² - (d/2)²) through a hole d wide, a large share of a car's
window height. A boundary loop is exactly where a hole is, so capping the loops changes the mesh there and nowhere
else, and a planar loop's cap is flat. (A loop with no reverse edges because the surface is inconsistently oriented
is capped too; the winding number's magnitude is used, as for uncapped meshes.)

How. The open edges are the welded directed edges whose reverse is missing (an edge used twice one way and never the
other counts once). They are grouped into loops (connected components of the open-edge graph, so a figure-eight
boundary is one loop); each loop gets a vertex at its length-weighted centre and one triangle per open edge a→b,
(b, a, centre): oriented like the surface around it whatever the loop's order, so no loop is ever traversed.
The capped mesh's generalized winding number is ~1 inside and ~0 outside, as a closed mesh's.

Which holes. A loop is capped only if it is a hole, not the rim of a sheet or a bowl's mouth: narrower than
2 x CAP_RADIUS of the longest side (its second principal extent: a car's windows, wheel arches, a slot in its floor;
not a bowl's rim nor an open box's missing lid) and its cap smaller than CAP_AREA of the mesh's area (not a ribbon's
or a sheet's outline, which bounds the whole sheet).
"""
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from .meshinput import edges_balanced, open_edges
from .winding import WindingNumber

# Holes narrower than 2 x this radius (fraction of the longest side) are capped.
CAP_RADIUS = 0.12
# A loop whose cap would exceed this fraction of the surface's area outlines a sheet, not a hole.
CAP_AREA = 0.25


class HoleCaps:
    """The caps of an open mesh's holes (unit coordinates: longest side 1): `vertices`, `triangles` (the input's
    followed by one centre per capped loop, and the input's triangles followed by the caps'), `loops` (number of
    boundary loops), `capped` (number capped), `cap_area_unit` (their area), `closed` (every loop capped and the
    result watertight and consistently oriented) and `volume_unit` (the capped mesh's enclosed volume when closed,
    else None)."""

    def __init__(self, v, tris, radius=CAP_RADIUS, max_area=CAP_AREA):
        v = np.asarray(v, np.float64)
        tris = np.asarray(tris, np.int64)
        _, first, weld = np.unique(v, axis=0, return_index=True, return_inverse=True)
        weld = weld.reshape(-1)
        edges = open_edges(weld[tris])                       # welded ids; first[id] is an input vertex there
        self.loops, self.capped, self.cap_area_unit = 0, 0, 0.0
        self.vertices, self.triangles = v, tris
        self.closed, self.volume_unit = False, None
        if len(edges) == 0:
            return
        nw = len(first)
        graph = coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(nw, nw))
        _, label = connected_components(graph, directed=False)
        loop_ids, loop_of = np.unique(label[edges[:, 0]], return_inverse=True)
        nloops = len(loop_ids)
        pa, pb = v[first[edges[:, 0]]], v[first[edges[:, 1]]]
        mid, length = 0.5 * (pa + pb), np.linalg.norm(pb - pa, axis=1)
        total = np.bincount(loop_of, length, nloops)
        safe = np.where(total > 0, total, 1.0)
        centre = np.stack([np.bincount(loop_of, length * mid[:, i], nloops) for i in range(3)], 1) / safe[:, None]
        # second principal extent of each loop (its width): the covariance of its edges' midpoints, length-weighted
        d = mid - centre[loop_of]
        cov = np.zeros((nloops, 3, 3))
        np.add.at(cov, loop_of, length[:, None, None] * d[:, :, None] * d[:, None, :])
        _, axes = np.linalg.eigh(cov / safe[:, None, None])
        along = np.einsum("ij,ij->i", d, axes[loop_of, :, 1])
        width = np.zeros(nloops)
        np.maximum.at(width, loop_of, along)
        low = np.zeros(nloops)
        np.minimum.at(low, loop_of, along)
        width -= low
        area = np.bincount(loop_of, 0.5 * np.linalg.norm(np.cross(pa - centre[loop_of], pb - centre[loop_of]), axis=1),
                           nloops)
        p = v[tris]
        surface_area = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1).sum()
        cap = (width < 2.0 * radius) & (area < max_area * surface_area) & (total > 0)
        self.loops, self.capped, self.cap_area_unit = nloops, int(cap.sum()), float(area[cap].sum())
        if not cap.any():
            return
        centre_id = np.full(nloops, -1, np.int64)
        centre_id[cap] = len(v) + np.arange(int(cap.sum()))
        e = cap[loop_of]
        caps = np.stack([first[edges[e, 1]], first[edges[e, 0]], centre_id[loop_of[e]]], axis=1)
        self.vertices = np.concatenate([v, centre[cap]])
        self.triangles = np.concatenate([tris, caps])
        welded_caps = np.stack([edges[e, 1], edges[e, 0], nw + centre_id[loop_of[e]] - len(v)], axis=1)
        self.closed = bool(cap.all()) and edges_balanced(np.concatenate([weld[tris], welded_caps]))
        if self.closed:
            q = self.vertices[self.triangles]
            self.volume_unit = float(np.einsum("ij,ij->i", q[:, 0], np.cross(q[:, 1], q[:, 2])).sum() / 6.0)


class CappedWinding:
    """The winding number of a mesh with its holes capped (`HoleCaps`), and segment crossings of the mesh itself
    (a cap is not a surface the material is split by): the `winding` argument of split_features."""

    def __init__(self, caps, surface_winding):
        self.caps = caps
        self._capped = WindingNumber(caps.vertices, caps.triangles)
        self._surface = surface_winding

    def __call__(self, points):
        """Winding numbers (k,) of the capped mesh at points (k,3)."""
        return self._capped(points)

    def crossings(self, starts, ends, margin=1e-6):
        """Segment crossings of the uncapped surface (see WindingNumber.crossings)."""
        return self._surface.crossings(starts, ends, margin)
