"""Inside of an open mesh with large holes: voxelize the surface, close holes up to a radius, flood from outside."""
import numpy as np
from scipy import ndimage

# Voxels along the longest bounding-box side (unit coordinates: longest side 1).
VOXELS = 96
# Holes narrower than 2 x this radius (fraction of the longest side) are closed: a car's windows and wheel arches,
# not a bowl's or an open box's mouth (those the winding number decides).
CLOSING_RADIUS = 0.12
# A solid must hold voxels farther than this many voxels from the surface (a sheet or a thin bowl holds none).
_DEPTH = 1.5


def _surface_samples(v, tris, h):
    """Points on every triangle, spaced at most h/2 apart (a barycentric lattice per triangle, grouped by its size)."""
    p = v[tris]
    longest = np.max(np.linalg.norm(p - p[:, [1, 2, 0]], axis=2), axis=1)
    n = np.maximum(1, np.ceil(longest / (0.5 * h)).astype(np.int64))
    out = [v[np.unique(tris)]]
    for k in np.unique(n):
        if k == 1:
            continue
        i, j = np.meshgrid(np.arange(k + 1), np.arange(k + 1), indexing="ij")
        inner = (i + j) <= k
        u, w = i[inner] / k, j[inner] / k
        q = p[n == k]
        out.append((q[:, None, 0] * (1 - u - w)[None, :, None] + q[:, None, 1] * u[None, :, None]
                    + q[:, None, 2] * w[None, :, None]).reshape(-1, 3))
    return np.concatenate(out)


class ClosedHoles:
    """The solid an open surface (unit coordinates) bounds once its holes narrower than 2 x `radius` are closed:
    voxels the surface touches are dilated by `radius`, the outside is flooded from the border, the flood grows
    back by `radius` (a morphological closing); the voxels it never reaches are solid."""

    def __init__(self, v, tris, voxels=VOXELS, radius=CLOSING_RADIUS):
        self.h = 1.0 / voxels
        r = radius / self.h
        pad = int(np.ceil(r)) + 2
        lo = v.min(axis=0)
        dims = np.ceil((v.max(axis=0) - lo) / self.h).astype(np.int64) + 1 + 2 * pad
        self.origin = lo - pad * self.h
        surf = np.zeros(dims, bool)
        ijk = np.floor((_surface_samples(v, tris, self.h) - self.origin) / self.h).astype(np.int64)
        surf[ijk[:, 0], ijk[:, 1], ijk[:, 2]] = True
        to_surface = ndimage.distance_transform_edt(~surf)
        labels, _ = ndimage.label(to_surface > r)
        outside = labels == labels[0, 0, 0]
        reached = ndimage.distance_transform_edt(~outside) <= r + 0.5
        self.solid = ~reached
        self.surface = surf
        self.deep = self.solid & (to_surface > _DEPTH)

    def volume_unit(self):
        """Volume of the solid (unit coordinates)."""
        return float(self.solid.sum()) * self.h ** 3

    def deep_volume_unit(self):
        """Volume of the solid farther than a voxel and a half from the surface (zero for a sheet)."""
        return float(self.deep.sum()) * self.h ** 3

    def __call__(self, points, near_surface=None):
        """1.0 at points (k,3) in the solid, 0.0 elsewhere. In the voxels the surface crosses (half in, half out)
        `near_surface(points)` decides instead when given (the winding number, which crosses 1/2 at the surface):
        counted solid there, a car's 1 m shell weighed 6 % more than its box."""
        points = np.asarray(points, np.float64).reshape(-1, 3)
        ijk = np.floor((points - self.origin) / self.h).astype(np.int64)
        ok = np.flatnonzero(np.all((ijk >= 0) & (ijk < np.array(self.solid.shape)), axis=1))
        out = np.zeros(len(ijk))
        out[ok] = self.solid[ijk[ok, 0], ijk[ok, 1], ijk[ok, 2]]
        if near_surface is not None:
            near = ok[self.surface[ijk[ok, 0], ijk[ok, 1], ijk[ok, 2]]]
            if len(near):
                out[near] = near_surface(points[near])
        return out
