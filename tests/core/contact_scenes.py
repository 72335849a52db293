"""Small meshes and measurements shared by the contact tests (icosphere, tet cubes, enclosed volume)."""
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
