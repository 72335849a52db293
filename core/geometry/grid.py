"""The background grid of the cage: cubes split into 5 tets with alternating parity, triangle-tet overlap, point location."""
import numpy as np

from ..jit import njit, prange
from .embedding import barycentric

# Cube corner c = dx + 2*dy + 4*dz. Even cells (i+j+k even) use the central tet on the odd corners,
# odd cells the mirrored split, so the face diagonals of neighbouring cubes match.
_CORNERS = np.array([[(c >> 0) & 1, (c >> 1) & 1, (c >> 2) & 1] for c in range(8)], dtype=np.float64)


def _oriented(tets):
    out = []
    for t in tets:
        p = _CORNERS[list(t)]
        if np.linalg.det(np.array([p[1] - p[0], p[2] - p[0], p[3] - p[0]])) < 0:
            t = (t[0], t[1], t[3], t[2])
        out.append(t)
    return out


TEMPLATES = np.array([
    _oriented([(0, 1, 2, 4), (3, 1, 2, 7), (5, 1, 4, 7), (6, 2, 4, 7), (1, 2, 4, 7)]),
    _oriented([(1, 0, 3, 5), (2, 0, 3, 6), (4, 0, 5, 6), (7, 3, 5, 6), (0, 3, 5, 6)]),
], dtype=np.int64)  # (parity, local tet, corner) -> cube corner


class Grid:
    """A regular grid of `dims` cubes of edge `h` from `origin`, covering points with a margin of >= h/2."""

    def __init__(self, lo, hi, resolution):
        ext = hi - lo
        self.h = float(ext.max()) / resolution
        self.dims = (np.ceil(ext / self.h - 1e-9).astype(np.int64) + 1)
        self.origin = 0.5 * (lo + hi) - 0.5 * self.h * self.dims

    @property
    def num_cells(self):
        return int(np.prod(self.dims))

    def node_positions(self, node_ids):
        """Positions of grid nodes given their flat ids (i + (nx+1)*(j + (ny+1)*k))."""
        nx, ny = self.dims[0] + 1, self.dims[1] + 1
        ijk = np.stack([node_ids % nx, (node_ids // nx) % ny, node_ids // (nx * ny)], axis=1)
        return self.origin + self.h * ijk

    def tet_nodes(self, tet_ids):
        """Grid node ids (k,4) of tets given their flat ids (cell * 5 + local)."""
        return _tet_nodes(np.asarray(tet_ids, np.int64), self.dims, TEMPLATES)

    def all_node_positions(self):
        return self.node_positions(np.arange(int(np.prod(self.dims + 1)), dtype=np.int64))


@njit(cache=True)
def _tet_nodes(tet_ids, dims, templates):
    nx, ny = dims[0], dims[1]
    out = np.empty((len(tet_ids), 4), np.int64)
    for r in range(len(tet_ids)):
        cell = tet_ids[r] // 5
        loc = tet_ids[r] % 5
        i = cell % nx
        j = (cell // nx) % ny
        k = cell // (nx * ny)
        par = (i + j + k) & 1
        for c in range(4):
            corner = templates[par, loc, c]
            out[r, c] = (i + (corner & 1)) + (nx + 1) * ((j + ((corner >> 1) & 1)) + (ny + 1) * (k + ((corner >> 2) & 1)))
    return out


@njit(cache=True, inline="always")
def _separated(axis_x, axis_y, axis_z, p, n_p, q, n_q, eps):
    """True if the projections of point sets p[:n_p] and q[:n_q] on the axis are disjoint by more than eps."""
    lp = np.sqrt(axis_x * axis_x + axis_y * axis_y + axis_z * axis_z)
    if lp < 1e-30:
        return False
    pmin, pmax = 1e300, -1e300
    for i in range(n_p):
        d = (p[i, 0] * axis_x + p[i, 1] * axis_y + p[i, 2] * axis_z) / lp
        pmin, pmax = min(pmin, d), max(pmax, d)
    qmin, qmax = 1e300, -1e300
    for i in range(n_q):
        d = (q[i, 0] * axis_x + q[i, 1] * axis_y + q[i, 2] * axis_z) / lp
        qmin, qmax = min(qmin, d), max(qmax, d)
    return pmax < qmin - eps or qmax < pmin - eps


@njit(cache=True)
def convex_overlap(p, n_p, q, n_q, eps):
    """Separating-axis test between a triangle or tet p and a triangle or tet q (touching counts as overlap)."""
    # candidate axes: face normals of both, cross products of all edge pairs
    ep = np.empty((6, 3))
    eq = np.empty((6, 3))
    nep = 0
    for i in range(n_p):
        for j in range(i + 1, n_p):
            ep[nep] = p[j] - p[i]
            nep += 1
    neq = 0
    for i in range(n_q):
        for j in range(i + 1, n_q):
            eq[neq] = q[j] - q[i]
            neq += 1
    for s in range(2):
        pts = p if s == 0 else q
        n_pts = n_p if s == 0 else n_q
        for i in range(n_pts):
            for j in range(i + 1, n_pts):
                for k in range(j + 1, n_pts):
                    a = pts[j] - pts[i]
                    b = pts[k] - pts[i]
                    if _separated(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0],
                                  p, n_p, q, n_q, eps):
                        return False
    for i in range(nep):
        for j in range(neq):
            a = ep[i]
            b = eq[j]
            if _separated(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0],
                          p, n_p, q, n_q, eps):
                return False
    return True


@njit(cache=True, parallel=True)
def _tri_tet_pairs(verts, tris, origin, h, dims, templates, eps, counts, out_tet, offsets, fill):
    """For every triangle, the grid tets it overlaps (count pass when fill is False)."""
    nx, ny, nz = dims[0], dims[1], dims[2]
    for t in prange(len(tris)):
        tri = np.empty((3, 3))
        tet = np.empty((4, 3))
        lo = np.empty(3, np.int64)
        hi = np.empty(3, np.int64)
        for d in range(3):
            mn, mx = 1e300, -1e300
            for c in range(3):
                tri[c, d] = verts[tris[t, c], d]
                mn = min(mn, tri[c, d])
                mx = max(mx, tri[c, d])
            lo[d] = max(0, int(np.floor((mn - eps - origin[d]) / h)))
            hi[d] = min(dims[d] - 1, int(np.floor((mx + eps - origin[d]) / h)))
        n = 0
        pos = offsets[t] if fill else 0
        for k in range(lo[2], hi[2] + 1):
            for j in range(lo[1], hi[1] + 1):
                for i in range(lo[0], hi[0] + 1):
                    par = (i + j + k) & 1
                    cell = i + nx * (j + ny * k)
                    for loc in range(5):
                        for c in range(4):
                            corner = templates[par, loc, c]
                            tet[c, 0] = origin[0] + h * (i + (corner & 1))
                            tet[c, 1] = origin[1] + h * (j + ((corner >> 1) & 1))
                            tet[c, 2] = origin[2] + h * (k + ((corner >> 2) & 1))
                        if convex_overlap(tri, 3, tet, 4, eps):
                            if fill:
                                out_tet[pos + n] = cell * 5 + loc
                            n += 1
        if not fill:
            counts[t] = n


def triangle_tet_pairs(grid, verts, tris, eps):
    """(tet id, triangle id) pairs of overlapping grid tets and triangles, sorted by tet then triangle."""
    counts = np.zeros(len(tris), np.int64)
    dummy = np.zeros(0, np.int64)
    _tri_tet_pairs(verts, tris, grid.origin, grid.h, grid.dims, TEMPLATES, eps, counts, dummy, dummy, False)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    out_tet = np.empty(offsets[-1], np.int64)
    _tri_tet_pairs(verts, tris, grid.origin, grid.h, grid.dims, TEMPLATES, eps, counts, out_tet, offsets, True)
    out_tri = np.repeat(np.arange(len(tris), dtype=np.int64), counts)
    order = np.lexsort((out_tri, out_tet))
    return out_tet[order], out_tri[order]


@njit(cache=True, parallel=True)
def _locate(points, origin, h, dims, templates):
    n = len(points)
    tet_ids = np.empty(n, np.int64)
    nx, ny = dims[0], dims[1]
    for p in prange(n):
        ijk = np.empty(3, np.int64)
        f = np.empty(3)
        cp = np.empty((4, 3))
        w = np.empty(4)
        for d in range(3):
            x = (points[p, d] - origin[d]) / h
            c = min(max(int(np.floor(x)), 0), dims[d] - 1)
            ijk[d] = c
            f[d] = x - c
        par = (ijk[0] + ijk[1] + ijk[2]) & 1
        best, best_loc = -1e300, 0
        for loc in range(5):
            for c in range(4):
                corner = templates[par, loc, c]
                for d in range(3):
                    cp[c, d] = (corner >> d) & 1
            barycentric(f, cp[0], cp[1], cp[2], cp[3], w)
            m = min(min(w[0], w[1]), min(w[2], w[3]))
            if m > best:
                best, best_loc = m, loc
        tet_ids[p] = (ijk[0] + nx * (ijk[1] + ny * ijk[2])) * 5 + best_loc
    return tet_ids


def locate(grid, points):
    """Grid tet id containing each point (the best-containing one of its cell's 5 tets)."""
    return _locate(np.ascontiguousarray(points, np.float64), grid.origin, grid.h, grid.dims, TEMPLATES)
