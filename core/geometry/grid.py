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


# Barycentric margin above which a point is strictly inside its tet, far beyond the overlap slack.
_STRICT_MARGIN = 1e-6


class Grid:
    """A regular grid of `dims` cubes of edge `h` from `origin`, covering points with a margin of >= h/2."""

    def __init__(self, lo, hi, resolution):
        ext = hi - lo
        self.h = float(ext.max()) / resolution
        self.dims = (np.ceil(ext / self.h - 1e-9).astype(np.int64) + 1)
        self.origin = 0.5 * (lo + hi) - 0.5 * self.h * self.dims

    @property
    def num_cells(self):
        """Number of cubes."""
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
        """Positions of every grid node, in flat id order."""
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


@njit(cache=True)
def inside_tets(node_w, dims, templates, threshold):
    """Mask over all grid tets (cell * 5 + local) whose corners' mean |winding| exceeds threshold."""
    nx, ny, nz = dims[0], dims[1], dims[2]
    out = np.zeros(nx * ny * nz * 5, np.bool_)
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                par = (i + j + k) & 1
                cell = i + nx * (j + ny * k)
                for loc in range(5):
                    s = 0.0
                    for c in range(4):
                        corner = templates[par, loc, c]
                        s += node_w[(i + (corner & 1)) + (nx + 1) * ((j + ((corner >> 1) & 1))
                                                                     + (ny + 1) * (k + ((corner >> 2) & 1)))]
                    out[cell * 5 + loc] = s > 4.0 * threshold
    return out


@njit(cache=True)
def _separated(ax, ay, az, tri, tet, eps):
    """True if triangle and tet projections on axis (ax, ay, az) are disjoint by more than eps (unit axis)."""
    ln = np.sqrt(ax * ax + ay * ay + az * az)
    if ln < 1e-30:
        return False
    ax, ay, az = ax / ln, ay / ln, az / ln
    pmin, pmax = 1e300, -1e300
    for i in range(3):
        d = tri[i, 0] * ax + tri[i, 1] * ay + tri[i, 2] * az
        pmin, pmax = min(pmin, d), max(pmax, d)
    qmin, qmax = 1e300, -1e300
    for i in range(4):
        d = tet[i, 0] * ax + tet[i, 1] * ay + tet[i, 2] * az
        qmin, qmax = min(qmin, d), max(qmax, d)
    return pmax < qmin - eps or qmax < pmin - eps


@njit(cache=True)
def tri_tet_overlap(tri, tet, eps):
    """Separating-axis test of triangle tri (3,3) against tet (4,3); touching (within eps) counts as overlap."""
    e0x, e0y, e0z = tri[1, 0] - tri[0, 0], tri[1, 1] - tri[0, 1], tri[1, 2] - tri[0, 2]
    e1x, e1y, e1z = tri[2, 0] - tri[0, 0], tri[2, 1] - tri[0, 1], tri[2, 2] - tri[0, 2]
    if _separated(e0y * e1z - e0z * e1y, e0z * e1x - e0x * e1z, e0x * e1y - e0y * e1x, tri, tet, eps):
        return False
    for f in range(4):
        i, j, k = (f + 1) % 4, (f + 2) % 4, (f + 3) % 4
        ax, ay, az = tet[j, 0] - tet[i, 0], tet[j, 1] - tet[i, 1], tet[j, 2] - tet[i, 2]
        bx, by, bz = tet[k, 0] - tet[i, 0], tet[k, 1] - tet[i, 1], tet[k, 2] - tet[i, 2]
        if _separated(ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx, tri, tet, eps):
            return False
    for te in range(3):
        ux = tri[(te + 1) % 3, 0] - tri[te, 0]
        uy = tri[(te + 1) % 3, 1] - tri[te, 1]
        uz = tri[(te + 1) % 3, 2] - tri[te, 2]
        for i in range(4):
            for j in range(i + 1, 4):
                vx, vy, vz = tet[j, 0] - tet[i, 0], tet[j, 1] - tet[i, 1], tet[j, 2] - tet[i, 2]
                if _separated(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx, tri, tet, eps):
                    return False
    return True


@njit(cache=True)
def _plane_hits_box(tri, x0, y0, z0, h, eps):
    """False if the whole cube [x0, x0+h]x[y0, y0+h]x[z0, z0+h] lies on one side of the triangle's plane."""
    e0x, e0y, e0z = tri[1, 0] - tri[0, 0], tri[1, 1] - tri[0, 1], tri[1, 2] - tri[0, 2]
    e1x, e1y, e1z = tri[2, 0] - tri[0, 0], tri[2, 1] - tri[0, 1], tri[2, 2] - tri[0, 2]
    nx, ny, nz = e0y * e1z - e0z * e1y, e0z * e1x - e0x * e1z, e0x * e1y - e0y * e1x
    ln = np.sqrt(nx * nx + ny * ny + nz * nz)
    if ln < 1e-30:
        return True
    nx, ny, nz = nx / ln, ny / ln, nz / ln
    d = nx * (x0 + 0.5 * h - tri[0, 0]) + ny * (y0 + 0.5 * h - tri[0, 1]) + nz * (z0 + 0.5 * h - tri[0, 2])
    return abs(d) <= 0.5 * h * (abs(nx) + abs(ny) + abs(nz)) + eps


@njit(cache=True)
def _overlapping_tets(tri, origin, h, dims, templates, eps, out):
    """Count the grid tets that triangle `tri` (3,3) overlaps, writing the first len(out) of them to out."""
    nx, ny = dims[0], dims[1]
    tet = np.empty((4, 3))
    lo = np.empty(3, np.int64)
    hi = np.empty(3, np.int64)
    for d in range(3):
        mn = min(tri[0, d], min(tri[1, d], tri[2, d]))
        mx = max(tri[0, d], max(tri[1, d], tri[2, d]))
        lo[d] = max(0, int(np.floor((mn - eps - origin[d]) / h)))
        hi[d] = min(dims[d] - 1, int(np.floor((mx + eps - origin[d]) / h)))
    n = 0
    for k in range(lo[2], hi[2] + 1):
        for j in range(lo[1], hi[1] + 1):
            for i in range(lo[0], hi[0] + 1):
                par = (i + j + k) & 1
                cell = i + nx * (j + ny * k)
                if not _plane_hits_box(tri, origin[0] + h * i, origin[1] + h * j, origin[2] + h * k, h, eps):
                    continue
                for loc in range(5):
                    for c in range(4):
                        corner = templates[par, loc, c]
                        tet[c, 0] = origin[0] + h * (i + (corner & 1))
                        tet[c, 1] = origin[1] + h * (j + ((corner >> 1) & 1))
                        tet[c, 2] = origin[2] + h * (k + ((corner >> 2) & 1))
                    if tri_tet_overlap(tri, tet, eps):
                        if n < len(out):
                            out[n] = cell * 5 + loc
                        n += 1
    return n


@njit(cache=True, parallel=True)
def _tri_tet_pairs(verts, tris, vertex_tet, vertex_margin, origin, h, dims, templates, eps, first):
    """For every triangle, the number of grid tets it overlaps, the first first.shape[1] of them stored in first.
    A triangle whose three vertices lie strictly inside one tet overlaps only that tet (common for fine meshes)."""
    counts = np.empty(len(tris), np.int64)
    nchunks = (len(tris) + 255) // 256
    for ch in prange(nchunks):
        tri = np.empty((3, 3))
        for t in range(ch * 256, min(len(tris), (ch + 1) * 256)):
            a, b, c = tris[t, 0], tris[t, 1], tris[t, 2]
            if vertex_tet[a] == vertex_tet[b] and vertex_tet[a] == vertex_tet[c] and \
                    min(vertex_margin[a], min(vertex_margin[b], vertex_margin[c])) > _STRICT_MARGIN:
                first[t, 0] = vertex_tet[a]
                counts[t] = 1
                continue
            for v in range(3):
                for d in range(3):
                    tri[v, d] = verts[tris[t, v], d]
            counts[t] = _overlapping_tets(tri, origin, h, dims, templates, eps, first[t])
    return counts


@njit(cache=True)
def _gather_pairs(verts, tris, origin, h, dims, templates, eps, first, counts, offsets):
    out = np.empty(offsets[-1], np.int64)
    for t in range(len(tris)):
        if counts[t] <= first.shape[1]:
            out[offsets[t]:offsets[t + 1]] = first[t, :counts[t]]
        else:
            tri = np.empty((3, 3))
            for v in range(3):
                for d in range(3):
                    tri[v, d] = verts[tris[t, v], d]
            _overlapping_tets(tri, origin, h, dims, templates, eps, out[offsets[t]:offsets[t + 1]])
    return out


def triangle_tet_pairs(grid, verts, tris, vertex_tet, vertex_margin, eps):
    """(tet id, triangle id) pairs of overlapping grid tets and triangles, sorted by tet then triangle."""
    first = np.empty((len(tris), 8), np.int64)
    args = (verts, tris, vertex_tet, vertex_margin, grid.origin, grid.h, grid.dims, TEMPLATES, eps)
    counts = _tri_tet_pairs(*args, first)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    out_tet = _gather_pairs(verts, tris, grid.origin, grid.h, grid.dims, TEMPLATES, eps, first, counts, offsets)
    out_tri = np.repeat(np.arange(len(tris), dtype=np.int64), counts)
    order = np.lexsort((out_tri, out_tet))
    return out_tet[order], out_tri[order]


@njit(cache=True)
def _locate(points, origin, h, dims, templates):
    n = len(points)
    tet_ids = np.empty(n, np.int64)
    margin = np.empty(n)
    nx, ny = dims[0], dims[1]
    for p in range(n):
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
        margin[p] = best
    return tet_ids, margin


def locate(grid, points):
    """Grid tet id containing each point (the best-containing one of its cell's 5 tets) and the point's smallest
    barycentric coordinate in it (its margin)."""
    return _locate(np.ascontiguousarray(points, np.float64), grid.origin, grid.h, grid.dims, TEMPLATES)
