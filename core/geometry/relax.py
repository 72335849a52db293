"""Relaxation of the cage: outer nodes move toward the surface, never letting a cage face cross it, an embedded
vertex leave its tet, or a tet drop below the cage quality bound."""
import numpy as np

from ..jit import njit, prange
from .embedding import barycentric
from .faces import OPPOSITE, matched_faces
from .features import closest_point_on_triangle
from .grid import tri_tet_overlap
from .quality import tet_quality_one

_STEPS = (0.5, 0.25)


@njit(cache=True)
def _box_overlap(lo1, hi1, lo2, hi2, eps):
    for d in range(3):
        if hi1[d] < lo2[d] - eps or hi2[d] < lo1[d] - eps:
            return False
    return True


@njit(cache=True)
def _plane_side(p, n, off, eps):
    """+1 / -1 if all 3 points of p lie beyond eps on one side of the plane n.x = off, else 0."""
    pos, neg = 0, 0
    for i in range(3):
        d = p[i, 0] * n[0] + p[i, 1] * n[1] + p[i, 2] * n[2] - off
        if d > eps:
            pos += 1
        elif d < -eps:
            neg += 1
    return 1 if pos == 3 else (-1 if neg == 3 else 0)


@njit(cache=True)
def _face_hits_surface(face, tri_ids, verts, tris, tri_lo, tri_hi, eps):
    """True if triangle `face` (3,3) overlaps any of the surface triangles tri_ids (touching counts)."""
    lo = np.empty(3)
    hi = np.empty(3)
    for d in range(3):
        lo[d] = min(face[0, d], min(face[1, d], face[2, d]))
        hi[d] = max(face[0, d], max(face[1, d], face[2, d]))
    n = np.cross(face[1] - face[0], face[2] - face[0])
    n /= np.sqrt((n * n).sum())
    off = (n * face[0]).sum()
    # a flat "tet" (the face with its first vertex repeated) turns the triangle-tet separating-axis test into the
    # triangle-triangle one (both normals, all edge crossings; coplanar pairs count as overlapping: conservative)
    flat = np.empty((4, 3))
    flat[:3] = face
    flat[3] = face[0]
    tri = np.empty((3, 3))
    for t in tri_ids:
        if not _box_overlap(lo, hi, tri_lo[t], tri_hi[t], eps):
            continue
        for c in range(3):
            tri[c] = verts[tris[t, c]]
        if _plane_side(tri, n, off, eps) != 0:
            continue
        if tri_tet_overlap(tri, flat, eps):
            return True
    return False


@njit(cache=True, parallel=True)
def relax_nodes(nodes, tets, node_start, node_copies, copy_tri_start, copy_tris, copy_vert_start, copy_verts,
                verts, tris, boundary_face, movable, color_start, color_nodes, passes, quality_bound, eps):
    """Passes over the movable (outer) nodes, one colour class at a time (nodes of a class share no tet, so a class
    moves in parallel and the result does not depend on thread timing): each node tries to move halfway (then a
    quarter of the way) toward the nearest point of the surface pieces it holds, and keeps the move only if every
    constraint holds; a node that cannot move is frozen. Returns the number of accepted moves."""
    tri_lo = np.empty((len(tris), 3))
    tri_hi = np.empty((len(tris), 3))
    for t in range(len(tris)):
        for d in range(3):
            tri_lo[t, d] = min(verts[tris[t, 0], d], min(verts[tris[t, 1], d], verts[tris[t, 2], d]))
            tri_hi[t, d] = max(verts[tris[t, 0], d], max(verts[tris[t, 1], d], verts[tris[t, 2], d]))
    moved = np.zeros(len(nodes), np.int64)
    active = movable.copy()
    for _ in range(passes):
        for col in range(len(color_start) - 1):
            for r in prange(color_start[col], color_start[col + 1]):
                i = color_nodes[r]
                if active[i]:
                    if _relax_one(i, nodes, tets, node_start, node_copies, copy_tri_start, copy_tris,
                                  copy_vert_start, copy_verts, verts, tris, tri_lo, tri_hi, boundary_face,
                                  quality_bound, eps):
                        moved[i] += 1
                    else:
                        active[i] = False
    return moved.sum()


@njit(cache=True)
def _relax_one(i, nodes, tets, node_start, node_copies, copy_tri_start, copy_tris, copy_vert_start, copy_verts,
               verts, tris, tri_lo, tri_hi, boundary_face, quality_bound, eps):
    """Try to move node i toward the surface; True if a move was accepted."""
    q = np.empty(3)
    best_q = np.empty(3)
    # candidate triangles: the surface pieces of the copies around the node
    ntri = 0
    for r in range(node_start[i], node_start[i + 1]):
        c = node_copies[r]
        ntri += copy_tri_start[c + 1] - copy_tri_start[c]
    if ntri == 0:
        return False
    cand = np.empty(ntri, np.int64)
    k = 0
    for r in range(node_start[i], node_start[i + 1]):
        c = node_copies[r]
        for s in range(copy_tri_start[c], copy_tri_start[c + 1]):
            cand[k] = copy_tris[s]
            k += 1
    cand = np.unique(cand)
    p = nodes[i].copy()
    best = 1e300
    for t in cand:
        closest_point_on_triangle(p, verts[tris[t, 0]], verts[tris[t, 1]], verts[tris[t, 2]], q)
        d = ((q - p) ** 2).sum()
        if d < best:
            best = d
            best_q[:] = q
    for step in _STEPS:
        nodes[i] = p + step * (best_q - p)
        if _move_ok(i, nodes, tets, node_start, node_copies, copy_vert_start, copy_verts, verts, tris, tri_lo,
                    tri_hi, boundary_face, cand, quality_bound, eps):
            return True
        nodes[i] = p
    return False


@njit(cache=True)
def _move_ok(i, nodes, tets, node_start, node_copies, copy_vert_start, copy_verts, verts, tris, tri_lo, tri_hi,
             boundary_face, cand, quality_bound, eps):
    """Constraints on node i's new position, cheapest first: quality bound, embedded vertices inside their tets,
    no moved boundary face touching the surface."""
    for r in range(node_start[i], node_start[i + 1]):
        tt = tets[node_copies[r]]
        if tet_quality_one(nodes[tt[0]], nodes[tt[1]], nodes[tt[2]], nodes[tt[3]]) < quality_bound:
            return False
    w = np.empty(4)
    for r in range(node_start[i], node_start[i + 1]):
        c = node_copies[r]
        tt = tets[c]
        for s in range(copy_vert_start[c], copy_vert_start[c + 1]):
            barycentric(verts[copy_verts[s]], nodes[tt[0]], nodes[tt[1]], nodes[tt[2]], nodes[tt[3]], w)
            if min(min(w[0], w[1]), min(w[2], w[3])) < 0.0:
                return False
    face = np.empty((3, 3))
    for r in range(node_start[i], node_start[i + 1]):
        c = node_copies[r]
        tt = tets[c]
        for f in range(4):
            if not boundary_face[c, f] or tt[f] == i:
                continue  # only boundary faces through node i moved; face f is opposite corner f
            m = 0
            for e in range(4):
                if e != f:
                    face[m] = nodes[tt[e]]
                    m += 1
            if _face_hits_surface(face, cand, verts, tris, tri_lo, tri_hi, eps):
                return False
    return True

def _csr(keys, n):
    order = np.argsort(keys, kind="stable")
    return np.searchsorted(keys[order], np.arange(n + 1)), order


def relax(nodes, tets, node_grid_ids, grid_dims, pair_copy, pair_tri, vertex_copy, verts, tris, passes,
          quality_bound, eps):
    """Move the outer cage nodes toward the surface in place (see relax_nodes); returns the accepted move count.
    Colour classes: the parity of a node's grid coordinates (two nodes of one tet differ by 1 in some axis)."""
    ncopy = len(tets)
    copy_tri_start, order = _csr(pair_copy, ncopy)
    copy_tris = pair_tri[order]
    copy_vert_start, copy_verts = _csr(vertex_copy, ncopy)
    node_start, slot = _csr(tets.reshape(-1), len(nodes))
    node_copies = slot // 4
    _, _, boundary_face = matched_faces(tets)
    movable = np.zeros(len(nodes), bool)
    movable[tets[:, OPPOSITE][boundary_face].reshape(-1)] = True
    nx, ny = grid_dims[0] + 1, grid_dims[1] + 1
    color = (node_grid_ids % nx % 2) + 2 * (node_grid_ids // nx % ny % 2) + 4 * (node_grid_ids // (nx * ny) % 2)
    color_start, color_nodes = _csr(color, 8)
    return relax_nodes(nodes, tets, node_start, node_copies, copy_tri_start, copy_tris, copy_vert_start,
                       copy_verts, verts, tris, boundary_face, movable, color_start, color_nodes, passes,
                       quality_bound, eps)
