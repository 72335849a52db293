"""Small meshes and measurements shared by the contact tests (icosphere, tet cubes, enclosed volume, depth inside)."""
import numpy as np

import core
from core.geometry.primitives import box_surface, icosphere  # noqa: F401 (the scenes' surfaces)


def soft_ball(subdivisions, radius, centre, resolution):
    """A cage-mode ball (render surface embedded, with its triangles) and its render triangles."""
    v, f = icosphere(subdivisions, radius, centre)
    tm = core.tetrahedralize(v, f, resolution=resolution, mode="cage")
    tm.embedding.triangles = f
    return tm, f


def tet_box(n, size, origin):
    """A box of n[0] x n[1] x n[2] cubes (6 tets each) with corner `origin` and edge lengths `size`."""
    n = np.broadcast_to(n, 3)
    size = np.broadcast_to(np.asarray(size, float), 3)
    axes = [np.linspace(0, size[k], n[k] + 1) for k in range(3)]
    X, Y, Z = np.meshgrid(*axes, indexing="ij")
    nodes = np.stack([X.ravel(), Y.ravel(), Z.ravel()], 1) + origin
    idx = np.arange(len(nodes)).reshape(n[0] + 1, n[1] + 1, n[2] + 1)
    corners = np.stack([idx[a:a + n[0], b:b + n[1], d:d + n[2]].ravel()
                        for a in (0, 1) for b in (0, 1) for d in (0, 1)], axis=1)
    split = np.array([[0, 1, 3, 7], [0, 1, 5, 7], [0, 2, 3, 7], [0, 2, 6, 7], [0, 4, 5, 7], [0, 4, 6, 7]])
    return core.TetMesh(nodes, corners[:, split].reshape(-1, 4))


def plane(half=2.0, z=0.0):
    """An open two-triangle square plane at height z."""
    v = np.array([[-half, -half, z], [half, -half, z], [half, half, z], [-half, half, z]])
    return v, np.array([[0, 1, 2], [0, 2, 3]])


def enclosed_volume(vertices, triangles):
    """Divergence-theorem volume of a closed triangle mesh (independent of core)."""
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->", a, np.cross(b, c)) / 6.0)


def turn(axis, angle):
    """The rotation by angle (radians) about the x or y axis."""
    c, s = np.cos(angle), np.sin(angle)
    return {"x": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]), "y": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])}[axis]


def winding(points, v, t):
    """Generalised winding number of points about the closed surface (v, t): ~1 inside, ~0 outside."""
    a, b, c = (v[t[:, k]][None] - points[:, None] for k in range(3))
    la, lb, lc = (np.linalg.norm(x, axis=2) for x in (a, b, c))
    det = np.einsum("pij,pij->pi", a, np.cross(b, c))
    den = (la * lb * lc + lc * np.einsum("pij,pij->pi", a, b) + la * np.einsum("pij,pij->pi", b, c)
           + lb * np.einsum("pij,pij->pi", c, a))
    return (2 * np.arctan2(det, den)).sum(axis=1) / (4 * np.pi)


def samples_on(v, t, n):
    """Points on every triangle of (v, t), n + 1 to a side."""
    return np.concatenate([v[t[:, 0]] * (1 - i / n - j / n) + v[t[:, 1]] * i / n + v[t[:, 2]] * j / n
                           for i in range(n + 1) for j in range(n + 1 - i)])


def depth_inside(pa, pb, t):
    """How deep the surface of a (dense samples) is inside the closed, near-convex surface b: a sample inside is as
    deep as its distance to the nearest of b's triangles' planes (exact for a convex b)."""
    s = samples_on(pa, t, 12)
    inside = s[winding(s, pb, t) > 0.5]
    if not len(inside):
        return 0.0
    a, b, c = pb[t[:, 0]], pb[t[:, 1]], pb[t[:, 2]]
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1)[:, None]
    return float(np.abs(np.einsum("tk,ptk->pt", n, inside[:, None] - a[None])).min(axis=1).max())
