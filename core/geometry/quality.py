"""Tet quality measures: the normalised volume-to-rms-edge ratio (1 for a regular tet, 0 when flat), dihedral angles
and the mean edge."""
import numpy as np

from ..jit import njit

# Cage mode never creates a tet below this quality: the 5-tet cube split gives 0.7698 (corner tets) and 1.0
# (centre tet); relaxation rejects any move that would take a tet below the bound.
CAGE_QUALITY_BOUND = 0.3


@njit(cache=True)
def _quality(p0, p1, p2, p3):
    ax, ay, az = p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]
    bx, by, bz = p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]
    cx, cy, cz = p3[0] - p0[0], p3[1] - p0[1], p3[2] - p0[2]
    vol = (ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)) / 6.0
    s = 0.0
    for u in range(4):
        pu = p0 if u == 0 else (p1 if u == 1 else (p2 if u == 2 else p3))
        for v in range(u + 1, 4):
            pv = p0 if v == 0 else (p1 if v == 1 else (p2 if v == 2 else p3))
            s += (pu[0] - pv[0]) ** 2 + (pu[1] - pv[1]) ** 2 + (pu[2] - pv[2]) ** 2
    lrms3 = (s / 6.0) ** 1.5
    return 6.0 * np.sqrt(2.0) * vol / lrms3 if lrms3 > 0.0 else 0.0


@njit(cache=True)
def tet_quality_one(p0, p1, p2, p3):
    """Quality 6*sqrt(2)*V / l_rms^3 of one tet (signed: negative when inverted)."""
    return _quality(p0, p1, p2, p3)


@njit(cache=True)
def _qualities(nodes, tets):
    q = np.empty(len(tets))
    for t in range(len(tets)):
        q[t] = _quality(nodes[tets[t, 0]], nodes[tets[t, 1]], nodes[tets[t, 2]], nodes[tets[t, 3]])
    return q


def tet_quality(nodes, tets):
    """Quality 6*sqrt(2)*V / l_rms^3 of every tet: 1 for a regular tet, 0 for a flat one, negative if inverted."""
    return _qualities(np.ascontiguousarray(nodes, np.float64), np.ascontiguousarray(tets, np.int64))


def min_dihedral_angles(nodes, tets):
    """Smallest interior dihedral angle (degrees) of every tet."""
    p = np.asarray(nodes, np.float64)[np.asarray(tets)]
    faces = ((1, 2, 3), (0, 3, 2), (0, 1, 3), (0, 2, 1))  # face opposite vertex i, outward for positive tets
    n = np.stack([np.cross(p[:, b] - p[:, a], p[:, c] - p[:, a]) for a, b, c in faces], axis=1)
    n /= np.maximum(np.linalg.norm(n, axis=2, keepdims=True), 1e-300)
    ang = [np.degrees(np.pi - np.arccos(np.clip(np.einsum("ij,ij->i", n[:, i], n[:, j]), -1.0, 1.0)))
           for i in range(4) for j in range(i + 1, 4)]
    return np.min(np.stack(ang, axis=1), axis=1)


def mean_edge(nodes, tets):
    """The mean length of the tets' edges (each tet's six counted)."""
    a, b = np.triu_indices(4, 1)
    return float(np.linalg.norm(nodes[tets[:, a]] - nodes[tets[:, b]], axis=2).mean())
