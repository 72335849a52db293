"""Procedural open meshes for the open-mesh tests: boxes with holes, a car-like shell, a sheet, a plane, a bowl, a ribbon."""
import numpy as np

from core.geometry.primitives import icosphere


def _grid_face(origin, du, dv, n, m):
    """A planar n x m quad grid from origin spanned by du, dv: vertices, quad cell (i, j) triangles, cell ids."""
    i, j = np.meshgrid(np.arange(n + 1), np.arange(m + 1), indexing="ij")
    v = np.asarray(origin, float) + (i.ravel() / n)[:, None] * du + (j.ravel() / m)[:, None] * dv
    idx = np.arange((n + 1) * (m + 1)).reshape(n + 1, m + 1)
    a, b, c, d = idx[:-1, :-1].ravel(), idx[1:, :-1].ravel(), idx[1:, 1:].ravel(), idx[:-1, 1:].ravel()
    tris = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
    ci, cj = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    cell_uv = np.tile(np.stack([(ci.ravel() + 0.5) / n, (cj.ravel() + 0.5) / m], 1), (2, 1))
    return v, tris, cell_uv


def _box_faces(size, n, keep):
    """Outward triangles of the box [0, size] meshed n cells per side; keep(face, uv) (face 0..5: -x,+x,-y,+y,-z,+z)
    says which grid cells stay."""
    sx, sy, sz = size
    ex, ey, ez = np.array([sx, 0, 0.]), np.array([0, sy, 0.]), np.array([0, 0, sz])
    faces = [((0, 0, 0), ez, ey), ((sx, 0, 0), ey, ez), ((0, 0, 0), ex, ez), ((0, sy, 0), ez, ex),
             ((0, 0, 0), ey, ex), ((0, 0, sz), ex, ey)]
    verts, tris, off = [], [], 0
    for f, (o, du, dv) in enumerate(faces):
        v, t, uv = _grid_face(o, du, dv, n, n)
        t = t[keep(f, uv)]
        verts.append(v)
        tris.append(t + off)
        off += len(v)
    v, t = np.concatenate(verts), np.concatenate(tris)
    # weld the shared edges
    _, first, inv = np.unique(np.round(v, 12), axis=0, return_index=True, return_inverse=True)
    return v[first], inv.reshape(-1)[t]


def open_box(size=(1.0, 1.0, 1.0), n=8):
    """A box whose top face (+z) is missing."""
    return _box_faces(size, n, lambda f, uv: np.full(len(uv), f != 5))


def box_with_hole(size=(1.0, 1.0, 1.0), n=10, fraction=0.3):
    """A closed box with a square hole of `fraction` of the top face's area cut in its centre."""
    half = 0.5 * np.sqrt(fraction)
    return _box_faces(size, n, lambda f, uv: (f != 5) | np.any(np.abs(uv - 0.5) > half, axis=1))


def car_shell(size=(4.0, 1.8, 1.4), n=20):
    """A car-like closed box with two opposite rectangular windows (70 % of the length, 50 % of the height) cut
    out of its long sides: its winding number at the centre hovers near 1/2."""
    return _box_faces(size, n, lambda f, uv: (f not in (2, 3)) | (np.abs(uv[:, 0 if f == 3 else 1] - 0.5) > 0.25)
                      | (np.abs(uv[:, 1 if f == 3 else 0] - 0.5) > 0.35))


def car_body(size=(4.0, 1.8, 1.4), n=20):
    """A car-like box shell open as a downloaded car body is: windows 84 % wide and 62 % of the height on all four
    sides, four wheel arches cut out of its lower edges (side and floor), a slot 30 % x 30 % in its floor between
    them. Its winding number at the centre is ~1/2; every hole is narrower than a quarter of its length."""
    size = np.asarray(size, float)
    return _box_faces(size, n, lambda f, uv: ~_car_body_hole(_face_point(f, uv, size) / size, f))


def _face_point(f, uv, size):
    """Position of the point uv on face f (as _box_faces lays the faces out) of the box [0, size]."""
    sx, sy, sz = size
    ex, ey, ez = np.array([sx, 0, 0.]), np.array([0, sy, 0.]), np.array([0, 0, sz])
    o, du, dv = [((0, 0, 0), ez, ey), ((sx, 0, 0), ey, ez), ((0, 0, 0), ex, ez), ((0, sy, 0), ez, ex),
                 ((0, 0, 0), ey, ex), ((0, 0, sz), ex, ey)][f]
    return np.asarray(o, float) + uv[:, :1] * du + uv[:, 1:] * dv


def _car_body_hole(p, f):
    """True where a point p (box coordinates in [0, 1]) of face f lies in one of car_body's holes."""
    x, y, z = p[:, 0], p[:, 1], p[:, 2]
    across = np.abs(x - 0.5) if f in (2, 3) else np.abs(y - 0.5)
    window = (f < 4) & (z > 0.3) & (z < 0.92) & (across < 0.42)
    arch = ((np.abs(x - 0.2) < 0.08) | (np.abs(x - 0.8) < 0.08)) & (z < 0.25) & ((y < 0.3) | (y > 0.7))
    slot = (f == 4) & (np.abs(x - 0.5) < 0.15) & (np.abs(y - 0.5) < 0.15)
    return window | arch | slot


def sheet(n=16):
    """A single curved open sheet 1 x 1."""
    v, t, _ = _grid_face((0, 0, 0), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), n, n)
    v[:, 2] = 0.15 * np.sin(3 * v[:, 0]) * np.cos(2 * v[:, 1])
    return v, t


def plane():
    """A flat square of two triangles."""
    return np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0.0]]), np.array([[0, 1, 2], [0, 2, 3]])


def bowl(subdivisions=3):
    """A thin open bowl: the lower half of a unit sphere, no thickness."""
    v, t = icosphere(subdivisions, 1.0)
    return v, t[v[t].mean(axis=1)[:, 2] < 0.0]


def ribbon(n=40):
    """A flat ribbon 2 m x 0.1 m, twisted half a turn along its length."""
    s = np.linspace(0, 2.0, n + 1)
    a = 0.5 * np.pi * s
    left = np.stack([s, 0.05 * np.cos(a), 0.05 * np.sin(a)], 1)
    v = np.concatenate([left, left * [1, -1, -1]])
    i = np.arange(n)
    t = np.concatenate([np.stack([i, i + 1, n + 1 + i], 1), np.stack([i + 1, n + 2 + i, n + 1 + i], 1)])
    return v, t
