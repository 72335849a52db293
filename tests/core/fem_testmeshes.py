"""Tet meshes for the simulator-core tests: boxes of cubes split into 6 tets, and a single tet."""
import numpy as np

import core


def box(nx, ny, nz, lx=1.0, ly=1.0, lz=1.0, origin=(0.0, 0.0, 0.0)):
    """TetMesh of the box [0,lx]×[0,ly]×[0,lz] (+origin), nx×ny×nz cubes, 6 tets per cube (Kuhn split)."""
    xs, ys, zs = (np.linspace(0.0, l, n + 1) for l, n in ((lx, nx), (ly, ny), (lz, nz)))
    X, Y, Z = np.meshgrid(xs, ys, zs, indexing="ij")
    nodes = np.c_[X.ravel(), Y.ravel(), Z.ravel()] + np.asarray(origin)
    i, j, k = np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij")
    i, j, k = i.ravel(), j.ravel(), k.ravel()

    def idx(a, b, c):
        return ((i + a) * (ny + 1) + (j + b)) * (nz + 1) + (k + c)

    c = [idx(a, b, d) for a in (0, 1) for b in (0, 1) for d in (0, 1)]
    tets = np.concatenate([np.stack(t, axis=1) for t in (
        (c[0], c[1], c[3], c[7]), (c[0], c[1], c[5], c[7]), (c[0], c[2], c[3], c[7]),
        (c[0], c[2], c[6], c[7]), (c[0], c[4], c[5], c[7]), (c[0], c[4], c[6], c[7]))])
    return core.TetMesh(nodes, tets)


def single_tet():
    """One well-shaped tet (positively oriented)."""
    nodes = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.3, 0.9, 0.0], [0.35, 0.3, 0.8]])
    return core.TetMesh(nodes, np.array([[0, 1, 2, 3]]))


def rotation(axis, angle):
    """Rotation matrix about `axis` by `angle` (Rodrigues)."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
