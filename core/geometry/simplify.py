"""Vertex-clustering simplification of a triangle mesh (before fTetWild, whose time grows with the input's size)."""
import numpy as np

# Inputs above this many triangles are simplified to about this many before conforming tetrahedralization: fTetWild
# took 87 s on the bunny clustered to 18,485 triangles (quality min 0.05), 12.5 s at 3,867 (quality 0.31), on 2
# busy cores; spot and cow (5.8k) are meshed as they are.
MAX_TRIANGLES = 6_000


def cluster_simplify(vertices, triangles, cell):
    """Merge the vertices in each grid cell of edge `cell` into their mean; drop triangles that collapse and
    duplicates. Returns (vertices (k,3), triangles (m,3))."""
    v = np.asarray(vertices, np.float64)
    key = np.floor((v - v.min(axis=0)) / cell).astype(np.int64)
    _, cluster, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    cluster = cluster.reshape(-1)
    out = np.zeros((len(counts), 3))
    np.add.at(out, cluster, v)
    out /= counts[:, None]
    t = cluster[np.asarray(triangles, np.int64)]
    t = t[(t[:, 0] != t[:, 1]) & (t[:, 1] != t[:, 2]) & (t[:, 2] != t[:, 0])]
    # one copy of each triangle (same vertex set and orientation)
    roll = np.argmin(t, axis=1)
    canon = np.stack([t[np.arange(len(t)), (roll + k) % 3] for k in range(3)], axis=1)
    _, first = np.unique(canon, axis=0, return_index=True)
    t = t[np.sort(first)]
    used, t = np.unique(t, return_inverse=True)
    return out[used], t.reshape(-1, 3)


def simplify_to(vertices, triangles, target=MAX_TRIANGLES):
    """The mesh itself if it has at most `target` triangles, else a vertex-clustered one with about that many:
    the cell edge is sized from the surface area (an equilateral triangle of edge c has area 0.433 c^2), then grown
    until the count fits. Returns (vertices, triangles, cell or None)."""
    t = np.asarray(triangles, np.int64)
    if len(t) <= target:
        return np.asarray(vertices, np.float64), t, None
    p = np.asarray(vertices, np.float64)[t]
    area = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1).sum()
    cell = np.sqrt(area / (0.433 * target)) * 0.7
    for _ in range(12):
        v, s = cluster_simplify(vertices, t, cell)
        if len(s) <= target:
            break
        cell *= 1.15
    return v, s, cell
