"""Contact samples on a coarse render surface: its triangles split (conformingly) until no edge is longer than the
cage's cells, the new vertices embedded in the cage, so contact forces spread over the cage like the surface does."""
import numpy as np

from ..geometry.embedding import barycentric_in_tets, embed_points
from .edges import edge_keys

MAX_PASSES = 12   # each pass halves the edges it splits: 2¹² covers a render edge 4096 cells long


def refine_to_length(rest, triangles, length):
    """Split the triangles (m,3) over points `rest` (n,3) until no edge is longer than `length`: each pass
    halves every too-long edge at its midpoint, shared by the triangles around it, and splits each triangle
    by how many of its edges were halved (1 → 2, 2 → 3, 3 → 4), so the result has no T-junctions and a
    closed, oriented surface stays closed and oriented. Returns the new points (k,3) (appended after
    `rest`), the parent edge (k,2) of each (indices into the points, new ones included), the triangles and the
    pieces (e,2) the input triangles' edges were split into (sorted pairs; an edge not split is its own piece)."""
    tris = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    points = np.asarray(rest, dtype=np.float64)
    n0 = len(points)
    parents = np.zeros((0, 2), np.int64)
    pieces = None
    for _ in range(MAX_PASSES):
        if not len(tris):
            break
        e = np.sort(np.stack([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]], axis=1), axis=2)   # (m,3,2)
        flat = e.reshape(-1, 2)
        uniq, inverse = np.unique(flat, axis=0, return_inverse=True)
        on = np.ones(len(uniq), bool) if pieces is None else np.isin(edge_keys(uniq), edge_keys(pieces))
        long = np.linalg.norm(points[uniq[:, 0]] - points[uniq[:, 1]], axis=1) > length
        long &= uniq[:, 0] != uniq[:, 1]
        if not long.any():
            pieces = uniq[on]
            break
        mid = np.full(len(uniq), -1, np.int64)
        mid[long] = len(points) + np.arange(int(long.sum()))
        points = np.concatenate([points, 0.5 * (points[uniq[long, 0]] + points[uniq[long, 1]])])
        parents = np.concatenate([parents, uniq[long]])
        tris = _split(tris, mid[inverse.reshape(-1, 3)])
        halved = on & long
        pieces = np.concatenate([uniq[on & ~long], np.stack([uniq[halved, 0], mid[halved]], axis=1),
                                 np.stack([mid[halved], uniq[halved, 1]], axis=1)])
        pieces.sort(axis=1)
    if pieces is None:
        pieces = np.zeros((0, 2), np.int64)
    return points[n0:], parents, tris, pieces[pieces[:, 0] != pieces[:, 1]]


def _split(tris, mid):
    """Triangles (a, b, c) with the midpoints mid (m,3) of their edges ab, bc, ca (−1: not split) split."""
    a, b, c = tris.T
    ab, bc, ca = mid.T
    split = mid >= 0
    count = split.sum(axis=1)
    out = [tris[count == 0]]
    # three halved edges: four triangles
    k = count == 3
    out += [np.stack(t, axis=1) for t in ((a[k], ab[k], ca[k]), (ab[k], b[k], bc[k]), (ca[k], bc[k], c[k]),
                                          (ab[k], bc[k], ca[k]))]
    # one or two: rotate each triangle so that its first halved edge (in order ab, bc, ca) is the first
    for n in (1, 2):
        k = np.flatnonzero(count == n)
        if not len(k):
            continue
        # the rotation r makes (v0, v1, v2) = (a, b, c) shifted by r, so that edge v0v1 is halved and, for two,
        # edge v1v2 is the other halved one (for two halved edges, the unhalved one is v2v0)
        if n == 1:
            r = np.argmax(split[k], axis=1)
        else:
            r = (np.argmin(split[k], axis=1) + 1) % 3
        rows = k[:, None]
        shift = (np.arange(3)[None, :] + r[:, None]) % 3
        v = tris[rows, shift]
        m = mid[rows, shift]
        if n == 1:
            out += [np.stack((v[:, 0], m[:, 0], v[:, 2]), axis=1), np.stack((m[:, 0], v[:, 1], v[:, 2]), axis=1)]
        else:
            out += [np.stack((v[:, 0], m[:, 0], v[:, 2]), axis=1), np.stack((m[:, 0], v[:, 1], m[:, 1]), axis=1),
                    np.stack((m[:, 0], m[:, 1], v[:, 2]), axis=1)]
    return np.ascontiguousarray(np.concatenate(out).astype(np.int64))


def embed_samples(nodes, tets, points, parents, point_tet):
    """Tet and barycentric weights of new surface points: the cage tet that holds each (embed_points), else (a
    point just outside every tet) its first parent's tet, with weights extrapolated (negative, as for render
    vertices outside the cage). point_tet: the tet of every point so far (render vertices first), extended as the
    new points are placed in order (a parent may itself be new)."""
    tet, weights = embed_points(nodes, tets, points)
    lost = np.flatnonzero(tet < 0)
    if len(lost):
        n0 = len(point_tet)
        tet_all = np.concatenate([point_tet, tet])
        for i in lost:   # few: only points outside every tet, where the surface leaves the cage
            tet_all[n0 + i] = tet_all[parents[i, 0]]
        tet = tet_all[n0:]
        weights[lost] = barycentric_in_tets(np.ascontiguousarray(points[lost]), tet[lost], nodes, tets)
    return tet, weights
