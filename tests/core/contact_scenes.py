"""Small meshes and measurements shared by the contact tests (icosphere, tet cubes, enclosed volume)."""
import numpy as np

import core


def icosphere(subdivisions, radius, centre=(0.0, 0.0, 0.0)):
    """Vertices (n,3) and outward triangles (m,3) of an icosphere."""
    t = (1 + 5 ** 0.5) / 2
    v = np.array([[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t], [0, -1, -t], [0, 1, -t],
                  [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]], float)
    f = np.array([[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2],
                  [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5],
                  [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]])
    for _ in range(subdivisions):
        e = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
        uniq, inv = np.unique(e, axis=0, return_inverse=True)
        mid = len(v) + inv.reshape(3, -1).T
        v = np.vstack([v, (v[uniq[:, 0]] + v[uniq[:, 1]]) / 2])
        a, b, c = f.T
        ab, bc, ca = mid.T
        f = np.concatenate([np.stack([a, ab, ca], 1), np.stack([b, bc, ab], 1), np.stack([c, ca, bc], 1),
                            np.stack([ab, bc, ca], 1)])
    v = v / np.linalg.norm(v, axis=1, keepdims=True) * radius + centre
    return v, f


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


def box_surface(lo, hi):
    """Closed outward-oriented triangle box (8 vertices, 12 triangles)."""
    v = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])], float)
    t = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return v, t


def plane(half=2.0, z=0.0):
    """An open two-triangle square plane at height z."""
    v = np.array([[-half, -half, z], [half, -half, z], [half, half, z], [-half, half, z]])
    return v, np.array([[0, 1, 2], [0, 2, 3]])


def enclosed_volume(vertices, triangles):
    """Divergence-theorem volume of a closed triangle mesh (independent of core)."""
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->", a, np.cross(b, c)) / 6.0)
