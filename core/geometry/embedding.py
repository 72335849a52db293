"""Points embedded in a tet mesh: containing tet + barycentric weights, and the fast map from node to point positions."""
import numpy as np

from ..errors import InvalidInputError
from ..jit import njit, prange


@njit(cache=True)
def _det3(ax, ay, az, bx, by, bz, cx, cy, cz):
    return ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)


@njit(cache=True)
def barycentric(p, a, b, c, d, out):
    """Barycentric coordinates of p in tet (a, b, c, d) written to out[0:4] (ratios of signed sub-volumes)."""
    vol = _det3(b[0] - a[0], b[1] - a[1], b[2] - a[2], c[0] - a[0], c[1] - a[1], c[2] - a[2],
                d[0] - a[0], d[1] - a[1], d[2] - a[2])
    out[1] = _det3(p[0] - a[0], p[1] - a[1], p[2] - a[2], c[0] - a[0], c[1] - a[1], c[2] - a[2],
                   d[0] - a[0], d[1] - a[1], d[2] - a[2]) / vol
    out[2] = _det3(b[0] - a[0], b[1] - a[1], b[2] - a[2], p[0] - a[0], p[1] - a[1], p[2] - a[2],
                   d[0] - a[0], d[1] - a[1], d[2] - a[2]) / vol
    out[3] = _det3(b[0] - a[0], b[1] - a[1], b[2] - a[2], c[0] - a[0], c[1] - a[1], c[2] - a[2],
                   p[0] - a[0], p[1] - a[1], p[2] - a[2]) / vol
    out[0] = 1.0 - out[1] - out[2] - out[3]


@njit(cache=True)
def barycentric_in_tets(points, tet_of_point, nodes, tets):
    """(n,4) barycentric weights of each point in its given tet."""
    n = len(points)
    w = np.empty((n, 4))
    for i in range(n):
        t = tets[tet_of_point[i]]
        barycentric(points[i], nodes[t[0]], nodes[t[1]], nodes[t[2]], nodes[t[3]], w[i])
    return w


@njit(cache=True, parallel=True)
def _interpolate(nodes, tets, tet, weights):
    n = len(tet)
    out = np.empty((n, 3))
    for i in prange(n):
        t = tets[tet[i]]
        for d in range(3):
            out[i, d] = (weights[i, 0] * nodes[t[0], d] + weights[i, 1] * nodes[t[1], d]
                         + weights[i, 2] * nodes[t[2], d] + weights[i, 3] * nodes[t[3], d])
    return out


@njit(cache=True, parallel=True)
def _fastest_point(nodes, tets, tet, weights):
    """(the largest |Σ weights · nodes| over the embedded points, its point), without storing them: a chunk of points
    per thread, then the chunks' best."""
    n = len(tet)
    chunks = min(n, 64)
    best = np.zeros(chunks)
    where = np.zeros(chunks, np.int64)
    for k in prange(chunks):
        for i in range(k * n // chunks, (k + 1) * n // chunks):
            t = tets[tet[i]]
            sq = 0.0
            for d in range(3):
                c = (weights[i, 0] * nodes[t[0], d] + weights[i, 1] * nodes[t[1], d]
                     + weights[i, 2] * nodes[t[2], d] + weights[i, 3] * nodes[t[3], d])
                sq += c * c
            if sq > best[k]:
                best[k], where[k] = sq, i
    k = np.argmax(best)
    return np.sqrt(best[k]), where[k]


class Embedding:
    """Points (e.g. render vertices) carried by a tet mesh: `tet` (n,) int64 and barycentric `weights` (n,4);
    `triangles` (m,3), when given, is the embedded surface's connectivity (for contact with the render surface)."""

    def __init__(self, tets, tet, weights, triangles=None):
        self._tets = np.array(tets, dtype=np.int64)
        self.tet = np.ascontiguousarray(tet, dtype=np.int64)
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        self.triangles = None if triangles is None else np.asarray(triangles, dtype=np.int64)
        self._seen = self._spread = None     # for reaches(): the nodes the points hang on, their largest Σ|weight|
        self._witness = 0                    # ... and the point found fastest when last visited

    def __len__(self):
        return len(self.tet)

    @property
    def point_nodes(self):
        """(n,4): the nodes each point's weights are for, in their order. Not a TetMesh's tets[tet]: a TetMesh
        reorders a negatively oriented tet's nodes (a mirrored body's), the embedding keeps the order it was made in."""
        return self._tets[self.tet]

    def positions(self, nodes):
        """Embedded point positions (n,3) for node positions (N,3): sum_i weights[:, i] * nodes[tets[tet, i]]."""
        return _interpolate(np.ascontiguousarray(nodes, dtype=np.float64), self._tets, self.tet, self.weights)

    def reaches(self, nodes, limit):
        """Whether some embedded point's interpolated value of the per-node vectors (N,3) (e.g. a point's speed, for
        node velocities) has a norm of at least `limit`. Bounds settle most calls without visiting the points: from
        below, the point that was fastest when they last were visited; from above, the largest norm at the nodes the
        points hang on times the points' largest Σ|weight| (1 for points inside their tets)."""
        if len(self.tet) == 0:
            return False
        if self._seen is None:
            self._seen = np.unique(self._tets[self.tet])
            self._spread = float(np.abs(self.weights).sum(axis=1).max())
        nodes = np.ascontiguousarray(nodes, dtype=np.float64)
        if np.linalg.norm(self.weights[self._witness] @ nodes[self._tets[self.tet[self._witness]]]) >= limit:
            return True
        if self._spread * _largest_at(nodes, self._seen) < limit:
            return False
        fastest, self._witness = _fastest_point(nodes, self._tets, self.tet, self.weights)
        return fastest >= limit


@njit(cache=True)
def _largest_at(nodes, rows):
    """The largest norm of the rows `rows` of nodes (N,3)."""
    best = 0.0
    for r in rows:
        best = max(best, nodes[r, 0] * nodes[r, 0] + nodes[r, 1] * nodes[r, 1] + nodes[r, 2] * nodes[r, 2])
    return np.sqrt(best)


@njit(cache=True)
def _bin_tets(nodes, tets, lo, cell, dims):
    """CSR lists of the tets whose bounding box overlaps each cell of a uniform grid."""
    m = len(tets)
    ncell = dims[0] * dims[1] * dims[2]
    rng = np.empty((m, 6), np.int64)
    counts = np.zeros(ncell + 1, np.int64)
    for t in range(m):
        for d in range(3):
            mn, mx = 1e300, -1e300
            for c in range(4):
                x = nodes[tets[t, c], d]
                mn, mx = min(mn, x), max(mx, x)
            rng[t, d] = min(max(int((mn - lo[d]) / cell), 0), dims[d] - 1)
            rng[t, 3 + d] = min(max(int((mx - lo[d]) / cell), 0), dims[d] - 1)
        for k in range(rng[t, 2], rng[t, 5] + 1):
            for j in range(rng[t, 1], rng[t, 4] + 1):
                for i in range(rng[t, 0], rng[t, 3] + 1):
                    counts[1 + i + dims[0] * (j + dims[1] * k)] += 1
    start = np.cumsum(counts)
    fill = start[:-1].copy()
    items = np.empty(start[-1], np.int64)
    for t in range(m):
        for k in range(rng[t, 2], rng[t, 5] + 1):
            for j in range(rng[t, 1], rng[t, 4] + 1):
                for i in range(rng[t, 0], rng[t, 3] + 1):
                    c = i + dims[0] * (j + dims[1] * k)
                    items[fill[c]] = t
                    fill[c] += 1
    return start, items


@njit(cache=True, parallel=True)
def _locate_points(points, nodes, tets, lo, cell, dims, start, items, tol):
    n = len(points)
    tet = np.full(n, -1, np.int64)
    weights = np.zeros((n, 4))
    for i in prange(n):
        w = np.empty(4)
        inside = True
        idx = np.empty(3, np.int64)
        for d in range(3):
            x = (points[i, d] - lo[d]) / cell
            if x < 0.0 or x > dims[d]:
                inside = False
            idx[d] = min(max(int(x), 0), dims[d] - 1)
        if not inside:
            continue
        c = idx[0] + dims[0] * (idx[1] + dims[1] * idx[2])
        best = -1e300
        for r in range(start[c], start[c + 1]):
            t = items[r]
            barycentric(points[i], nodes[tets[t, 0]], nodes[tets[t, 1]], nodes[tets[t, 2]], nodes[tets[t, 3]], w)
            m = min(min(w[0], w[1]), min(w[2], w[3]))
            if m > best:
                best = m
                tet[i] = t
                weights[i] = w
        if best < -tol:
            tet[i] = -1
            weights[i] = 0.0
    return tet, weights


def embed_points(nodes, tets, points, tol=1e-9):
    """Locate points in a tet mesh: returns (tet (k,) int64, weights (k,4)); tet is -1 (weights 0) for points in
    no tet (barycentric tolerance `tol`). Builds a uniform grid of tet bounding boxes, then one O(1) lookup per point."""
    nodes = np.ascontiguousarray(nodes, np.float64)
    tets = np.ascontiguousarray(tets, np.int64)
    points = np.ascontiguousarray(points, np.float64).reshape(-1, 3)
    if len(tets) == 0 or not np.all(np.isfinite(points)):
        raise InvalidInputError("embed_points needs a non-empty tet mesh and finite points")
    lo = nodes.min(axis=0)
    ext = nodes.max(axis=0) - lo
    edge = np.linalg.norm(nodes[tets[:, 1]] - nodes[tets[:, 0]], axis=1).mean()
    cell = max(float(edge), float(ext.max()) / 256.0, np.finfo(float).tiny)
    dims = np.maximum(np.ceil(ext / cell).astype(np.int64), 1)
    start, items = _bin_tets(nodes, tets, lo, cell, dims)
    return _locate_points(points, nodes, tets, lo, cell, dims, start, items, tol)


def embed_points_nearest(nodes, tets, points, candidates=8):
    """Like embed_points, but a point in no tet (e.g. a render vertex just outside a conforming mesh's boundary,
    within its envelope) goes to the nearby tet it is least outside of, among the `candidates` tets with the nearest
    centroids; its weights there extrapolate (one or more slightly negative), so it keeps its rest position.
    Returns (tet, weights, distance): distance is 0 inside a tet, else an upper bound of the distance to it."""
    from scipy.spatial import cKDTree
    nodes = np.ascontiguousarray(nodes, np.float64)
    points = np.ascontiguousarray(points, np.float64).reshape(-1, 3)
    tet, weights = embed_points(nodes, tets, points)
    distance = np.zeros(len(points))
    out = np.flatnonzero(tet < 0)
    if len(out) == 0:
        return tet, weights, distance
    tets = np.asarray(tets, np.int64)
    k = min(candidates, len(tets))
    _, near = cKDTree(nodes[tets].mean(axis=1)).query(points[out], k=k)
    near = near.reshape(len(out), k)
    corners = nodes[tets[near]]                                            # (o, k, 4, 3)
    frame = np.swapaxes(corners[:, :, 1:] - corners[:, :, :1], 2, 3)       # columns b-a, c-a, d-a
    rhs = (points[out][:, None, :] - corners[:, :, 0])[..., None]
    lam = np.linalg.solve(frame, rhs)[..., 0]                              # (o, k, 3)
    w = np.concatenate([1.0 - lam.sum(axis=2, keepdims=True), lam], axis=2)
    best = np.argmax(w.min(axis=2), axis=1)
    rows = np.arange(len(out))
    w = w[rows, best]
    tet[out] = near[rows, best]
    weights[out] = w
    clamped = np.maximum(w, 0.0)
    clamped /= clamped.sum(axis=1, keepdims=True)
    distance[out] = np.linalg.norm(np.einsum("ij,ijk->ik", clamped, corners[rows, best]) - points[out], axis=1)
    return tet, weights, distance
