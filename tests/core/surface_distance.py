"""Exact point-to-triangle-mesh distances (numpy, brute force in chunks) and area-uniform surface samples, for tests."""
import numpy as np


def _segment_distance(p, a, b):
    d = b - a
    s = np.clip(np.einsum("pti,ti->pt", p[:, None] - a[None], d) / np.maximum((d * d).sum(-1), 1e-300), 0, 1)
    return np.linalg.norm(p[:, None] - (a[None] + s[..., None] * d[None]), axis=-1)


def distance_to_mesh(points, vertices, triangles, chunk=256):
    """Distance (k,) from each point to the nearest triangle (in the plane inside the triangle, else to an edge)."""
    a, b, c = (vertices[triangles[:, i]] for i in range(3))
    n = np.cross(b - a, c - a)
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
    out = np.empty(len(points))
    for s in range(0, len(points), chunk):
        p = points[s:s + chunk]
        h = np.einsum("pti,ti->pt", p[:, None] - a[None], n)
        q = p[:, None] - h[..., None] * n[None]
        inside = np.ones(h.shape, bool)
        for u, v in ((a, b), (b, c), (c, a)):
            inside &= np.einsum("pti,ti->pt", np.cross((v - u)[None], q - u[None]), n) >= 0
        d = np.where(inside, np.abs(h), np.inf)
        d = np.minimum(d, np.minimum(_segment_distance(p, a, b), np.minimum(_segment_distance(p, b, c),
                                                                           _segment_distance(p, c, a))))
        out[s:s + chunk] = d.min(axis=1)
    return out


def surface_samples(vertices, triangles, count, seed=0):
    """`count` points spread over the triangles by area (plus the vertices, which must be on the surface too)."""
    rng = np.random.default_rng(seed)
    p = vertices[triangles]
    area = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
    pick = rng.choice(len(p), count, p=area / area.sum())
    r1, r2 = rng.random(count), rng.random(count)
    flip = r1 + r2 > 1
    r1[flip], r2[flip] = 1 - r1[flip], 1 - r2[flip]
    q = p[pick]
    return q[:, 0] + r1[:, None] * (q[:, 1] - q[:, 0]) + r2[:, None] * (q[:, 2] - q[:, 0])


def boundary_triangles(tets):
    """The tet mesh's boundary faces (faces of one tet only) as triangles."""
    from core.geometry.faces import OPPOSITE, matched_faces
    boundary = matched_faces(tets)[2]
    return tets[:, OPPOSITE][boundary]
