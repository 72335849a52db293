"""Tet meshes for the simulator-core tests: boxes of cubes split into 6 tets, BCC boxes, and a single tet."""
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


def bcc_box(lo, hi, resolution):
    """TetMesh of the box lo..hi on a body-centred cubic lattice (what conforming mode built before fTetWild): about
    `resolution` cells along the longest side; grid nodes, cell centres and boundary face centres; 4 tets around
    each face (two cell centres, or a cell centre and the face centre on the boundary, with each face edge)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    n = np.maximum(1, np.round((hi - lo) / ((hi - lo).max() / resolution)).astype(int))
    h = (hi - lo) / n
    gi = np.arange(np.prod(n + 1)).reshape(tuple(n + 1))
    ci = np.prod(n + 1) + np.arange(np.prod(n)).reshape(tuple(n))
    ijk = np.stack(np.meshgrid(*[np.arange(m + 1) for m in n], indexing="ij"), -1).reshape(-1, 3)
    cjk = np.stack(np.meshgrid(*[np.arange(m) for m in n], indexing="ij"), -1).reshape(-1, 3) + 0.5
    nodes = [lo + ijk * h, lo + cjk * h]
    count = np.prod(n + 1) + np.prod(n)
    tets = []
    for a in range(3):
        b, c = (a + 1) % 3, (a + 2) % 3
        perm = (a, b, c)
        g = np.transpose(gi, perm)            # g[x_a, x_b, x_c]
        cc = np.transpose(ci, perm)
        na, nb, nc = n[a], n[b], n[c]
        # face corners at a-index s, cell (j, k) in the b, c directions
        for s in range(na + 1):
            p = [g[s, :-1, :-1], g[s, 1:, :-1], g[s, 1:, 1:], g[s, :-1, 1:]]
            if 0 < s < na:
                u, w = cc[s - 1], cc[s]
            else:
                u = cc[0] if s == 0 else cc[na - 1]
                jj, kk = np.meshgrid(np.arange(nb) + 0.5, np.arange(nc) + 0.5, indexing="ij")
                fc = np.zeros((nb * nc, 3))
                fc[:, a] = s
                fc[:, b] = jj.ravel()
                fc[:, c] = kk.ravel()
                nodes.append(lo + fc * h)
                w = (count + np.arange(nb * nc)).reshape(nb, nc)
                count += nb * nc
            for e in range(4):
                tets.append(np.stack([u.ravel(), w.ravel(), p[e].ravel(), p[(e + 1) % 4].ravel()], 1))
    return core.TetMesh(np.concatenate(nodes), np.concatenate(tets))


def bcc_ball(centre, radius, resolution):
    """TetMesh of a ball: bcc_box of the cube [-1, 1]³ at `resolution` mapped onto the ball by the cube-to-sphere map
    x·√(1 − y²/2 − z²/2 + y²z²/3) (and its cyclic permutations), so its boundary nodes lie on the sphere (a conforming
    mesh without fTetWild; its tets flatten towards the cube's eight corners)."""
    cube = bcc_box((-1.0, -1.0, -1.0), (1.0, 1.0, 1.0), resolution)
    x2, y2, z2 = (cube.nodes ** 2).T
    stretch = np.sqrt(np.c_[1 - y2 / 2 - z2 / 2 + y2 * z2 / 3, 1 - z2 / 2 - x2 / 2 + z2 * x2 / 3,
                            1 - x2 / 2 - y2 / 2 + x2 * y2 / 3])
    return core.TetMesh(np.asarray(centre, float) + radius * cube.nodes * stretch, cube.tets)
