"""Feature split (virtual nodes): a cage tet that holds separate pieces of the surface is duplicated, one copy per
piece, and copies share nodes only across faces where their material is connected, so parts the grid glues together
(fingers, ears, an arm resting on a body) move independently while parts that touch in the surface stay connected."""
import numpy as np

from ..jit import njit
from .faces import matched_faces

_LINK_INSIDE = 0.6


@njit(cache=True)
def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True)
def _union(parent, i, j):
    a, b = _find(parent, i), _find(parent, j)
    if a != b:
        if a < b:
            parent[b] = a
        else:
            parent[a] = b


@njit(cache=True)
def _closest_on_segment(p, a, b, out):
    ab = b - a
    den = ab @ ab
    t = 0.0 if den <= 0.0 else min(1.0, max(0.0, (ab @ (p - a)) / den))
    out[:] = a + t * ab


@njit(cache=True)
def closest_point_on_triangle(p, a, b, c, out):
    """Closest point to p on triangle (a, b, c), written to out (Ericson, Real-Time Collision Detection 5.1.5);
    a zero-area triangle is treated as its longest edge."""
    ab = b - a
    ac = c - a
    n = np.cross(ab, ac)
    lab, lac, lbc = ab @ ab, ac @ ac, (c - b) @ (c - b)
    if n @ n <= 1e-24 * max(lab, max(lac, lbc)) ** 2:
        if lab >= lac and lab >= lbc:
            _closest_on_segment(p, a, b, out)
        elif lac >= lbc:
            _closest_on_segment(p, a, c, out)
        else:
            _closest_on_segment(p, b, c, out)
        return
    ap = p - a
    d1 = ab @ ap
    d2 = ac @ ap
    if d1 <= 0.0 and d2 <= 0.0:
        out[:] = a
        return
    bp = p - b
    d3 = ab @ bp
    d4 = ac @ bp
    if d3 >= 0.0 and d4 <= d3:
        out[:] = b
        return
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        out[:] = a + ab * (d1 / (d1 - d3))
        return
    cp = p - c
    d5 = ab @ cp
    d6 = ac @ cp
    if d6 >= 0.0 and d5 <= d6:
        out[:] = c
        return
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        out[:] = a + ac * (d2 / (d2 - d6))
        return
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        out[:] = b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)))
        return
    den = va + vb + vc
    out[:] = a + ab * (vb / den) + ac * (vc / den)


@njit(cache=True)
def _closest_on_piece(p, verts, tris, pair_tri, pair_piece, s, e, piece, out):
    """Closest point to p on the triangles of pairs [s, e) labelled `piece`."""
    best = 1e300
    q = np.empty(3)
    for r in range(s, e):
        if pair_piece[r] != piece:
            continue
        t = pair_tri[r]
        closest_point_on_triangle(p, verts[tris[t, 0]], verts[tris[t, 1]], verts[tris[t, 2]], q)
        d = ((q - p) ** 2).sum()
        if d < best:
            best = d
            out[:] = q


@njit(cache=True)
def _nearby_points(p, verts, tris, pair_tri, pair_piece, s1, e1, a, s2, e2, b, qa, qb):
    """Points qa on piece a and qb on piece b that are (locally) closest to each other: alternating projections
    started from p. The segment between them is the shortest link between the two pieces."""
    _closest_on_piece(p, verts, tris, pair_tri, pair_piece, s1, e1, a, qa)
    for _ in range(2):
        _closest_on_piece(qa, verts, tris, pair_tri, pair_piece, s2, e2, b, qb)
        _closest_on_piece(qb, verts, tris, pair_tri, pair_piece, s1, e1, a, qa)


@njit(cache=True)
def local_components(pair_start, pair_tri, welded):
    """Per (tet, triangle) pair, the index of its component among the tet's triangles (triangles sharing a welded
    vertex are connected), numbered by first appearance; and the number of components per tet."""
    ntet = len(pair_start) - 1
    comp = np.empty(len(pair_tri), np.int64)
    ncomp = np.zeros(ntet, np.int64)
    for r in range(ntet):
        s, e = pair_start[r], pair_start[r + 1]
        k = e - s
        if k == 0:
            continue
        parent = np.arange(k)
        keys = np.empty(3 * k, np.int64)
        for i in range(k):
            for c in range(3):
                keys[3 * i + c] = welded[pair_tri[s + i], c]
        order = np.argsort(keys)
        for i in range(1, 3 * k):
            if keys[order[i]] == keys[order[i - 1]]:
                _union(parent, order[i] // 3, order[i - 1] // 3)
        label = np.full(k, -1, np.int64)
        n = 0
        for i in range(k):
            root = _find(parent, i)
            if label[root] < 0:
                label[root] = n
                n += 1
            comp[s + i] = label[root]
        ncomp[r] = n
    return comp, ncomp


@njit(cache=True)
def merge_candidates(pair_start, comp, ncomp, centroids, verts, tris, pair_tri):
    """For every two components of a tet, the shortest link between them (near the tet centre): components whose link
    runs inside the surface bound the same material (e.g. both faces of a thin plate) and are merged."""
    total = 0
    for r in range(len(ncomp)):
        total += ncomp[r] * (ncomp[r] - 1) // 2
    cand = np.empty((total, 3), np.int64)
    ends = np.empty((total, 2, 3))
    n = 0
    for r in range(len(ncomp)):
        k = ncomp[r]
        s, e = pair_start[r], pair_start[r + 1]
        for a in range(k):
            for b in range(a + 1, k):
                cand[n, 0], cand[n, 1], cand[n, 2] = r, a, b
                _nearby_points(centroids[r], verts, tris, pair_tri, comp, s, e, a, s, e, b, ends[n, 0], ends[n, 1])
                n += 1
    return cand, ends


@njit(cache=True)
def apply_merges(pair_start, comp, ncomp, cand, accept):
    """Pieces per tet after merging accepted component pairs, renumbered by first appearance."""
    piece = comp.copy()
    npiece = ncomp.copy()
    i = 0
    while i < len(cand):
        r = cand[i, 0]
        k = ncomp[r]
        parent = np.arange(k)
        while i < len(cand) and cand[i, 0] == r:
            if accept[i]:
                _union(parent, cand[i, 1], cand[i, 2])
            i += 1
        label = np.full(k, -1, np.int64)
        n = 0
        for p in range(pair_start[r], pair_start[r + 1]):
            root = _find(parent, comp[p])
            if label[root] < 0:
                label[root] = n
                n += 1
            piece[p] = label[root]
        npiece[r] = n
    return piece, npiece


@njit(cache=True)
def glue_faces(face_pairs, face_nodes, pair_start, pair_tri, piece, npiece, copy_start, inside, verts, tris,
               face_centroids):
    """Copies of face-adjacent tets: (copy a, copy b, face) glued for sure (shared triangle, or a side without
    surface), and undecided ones with the link to test (the shortest link between the two pieces near the face;
    from the face centre to the nearest point of the piece when the other side is an inside tet)."""
    total = 0
    for f in range(len(face_pairs)):
        total += max(npiece[face_pairs[f, 0]], 1) * max(npiece[face_pairs[f, 1]], 1)
    glued = np.empty((total, 3), np.int64)
    undecided = np.empty((total, 3), np.int64)
    ends = np.empty((total, 2, 3))
    ng = 0
    nu = 0
    for f in range(len(face_pairs)):
        r1, r2 = face_pairs[f, 0], face_pairs[f, 1]
        n1, n2 = max(npiece[r1], 1), max(npiece[r2], 1)
        s1, e1 = pair_start[r1], pair_start[r1 + 1]
        s2, e2 = pair_start[r2], pair_start[r2 + 1]
        done = np.zeros((n1, n2), np.bool_)
        if e1 == s1 and e2 == s2:
            done[:, :] = True
        elif e1 == s1 or e2 == s2:
            # a side without surface: a stray tet is glued to everything, an inside tet to the pieces facing it
            if not (inside[r1] if e1 == s1 else inside[r2]):
                done[:, :] = True
        else:
            i, j = s1, s2
            while i < e1 and j < e2:
                if pair_tri[i] == pair_tri[j]:
                    done[piece[i], piece[j]] = True
                    i += 1
                    j += 1
                elif pair_tri[i] < pair_tri[j]:
                    i += 1
                else:
                    j += 1
        for a in range(n1):
            for b in range(n2):
                if done[a, b]:
                    glued[ng, 0], glued[ng, 1], glued[ng, 2] = copy_start[r1] + a, copy_start[r2] + b, f
                    ng += 1
                    continue
                undecided[nu, 0], undecided[nu, 1], undecided[nu, 2] = copy_start[r1] + a, copy_start[r2] + b, f
                if e1 == s1:
                    _closest_on_piece(face_centroids[f], verts, tris, pair_tri, piece, s2, e2, b, ends[nu, 0])
                    ends[nu, 1] = face_centroids[f]
                elif e2 == s2:
                    _closest_on_piece(face_centroids[f], verts, tris, pair_tri, piece, s1, e1, a, ends[nu, 0])
                    ends[nu, 1] = face_centroids[f]
                else:
                    _nearby_points(face_centroids[f], verts, tris, pair_tri, piece, s1, e1, a, s2, e2, b,
                                   ends[nu, 0], ends[nu, 1])
                nu += 1
    return glued[:ng].copy(), undecided[:nu].copy(), ends[:nu].copy()


@njit(cache=True)
def node_classes(copy_nodes, glued, face_nodes):
    """Union-find over (copy, corner) slots: glued copies share the slots of their common face's three grid nodes.
    Returns the root slot of every slot (ncopies*4,)."""
    nc = len(copy_nodes)
    parent = np.arange(nc * 4)
    for k in range(len(glued)):
        a, b, f = glued[k, 0], glued[k, 1], glued[k, 2]
        for c in range(3):
            g = face_nodes[f, c]
            sa, sb = -1, -1
            for i in range(4):
                if copy_nodes[a, i] == g:
                    sa = a * 4 + i
                if copy_nodes[b, i] == g:
                    sb = b * 4 + i
            _union(parent, sa, sb)
    roots = np.empty(nc * 4, np.int64)
    for s in range(nc * 4):
        roots[s] = _find(parent, s)
    return roots


def _links_inside(winding, ends):
    """True for links (k,2,3) that run through material: no surface crosses the link between its ends (so it never
    leaves one part and enters another, however thin the gap) and its midpoint is clearly inside. The threshold is
    above 1/2 so that a link lying along the surface (winding ~1/2 there) does not glue two separate parts."""
    if len(ends) == 0:
        return np.zeros(0, bool)
    inside = np.abs(winding(0.5 * (ends[:, 0] + ends[:, 1]))) > _LINK_INSIDE
    inside[inside] = ~winding.crossings(ends[inside, 0], ends[inside, 1])
    return inside


def split_features(kept, kept_nodes, inside, pair_tet, pair_tri, welded, verts, tris, winding, grid, vertex_tet):
    """Duplicate cage tets per surface piece and number the nodes by glued faces.

    Returns (copy_of (C,) kept index of every copy, node_grid_id (N,), tets (C,4) node indices, vertex_copy (n,),
    pair_copy (P,) the copy holding each (tet, triangle) pair)."""
    pair_kept = np.searchsorted(kept, pair_tet)
    pair_start = np.searchsorted(pair_kept, np.arange(len(kept) + 1))
    comp, ncomp = local_components(pair_start, pair_tri, welded)
    centroids = grid.node_positions(kept_nodes.reshape(-1)).reshape(-1, 4, 3).mean(axis=1)
    cand, ends = merge_candidates(pair_start, comp, ncomp, centroids, verts, tris, pair_tri)
    piece, npiece = apply_merges(pair_start, comp, ncomp, cand, _links_inside(winding, ends))

    ncopy = np.maximum(npiece, 1)
    copy_start = np.concatenate([[0], np.cumsum(ncopy)])
    copy_of = np.repeat(np.arange(len(kept)), ncopy)
    copy_nodes = kept_nodes[copy_of]

    slots, face_nodes, _ = matched_faces(kept_nodes)
    face_pairs = slots // 4
    face_centroids = grid.node_positions(face_nodes.reshape(-1)).reshape(-1, 3, 3).mean(axis=1)
    glued, undecided, ends = glue_faces(face_pairs, face_nodes, pair_start, pair_tri, piece, npiece, copy_start,
                                        inside, verts, tris, face_centroids)
    glued = np.concatenate([glued, undecided[_links_inside(winding, ends)]])
    roots = node_classes(copy_nodes, glued, face_nodes)
    root_ids, slot_node = np.unique(roots, return_inverse=True)
    grid_ids = copy_nodes.reshape(-1)[root_ids]
    order = np.lexsort((root_ids, grid_ids))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    tets = rank[slot_node.reshape(-1)].reshape(-1, 4)

    # each vertex goes to the copy holding the piece of one of its triangles
    tri_of_vertex = np.full(len(verts), len(tris), np.int64)
    np.minimum.at(tri_of_vertex, tris.reshape(-1), np.repeat(np.arange(len(tris), dtype=np.int64), 3))
    vkept = np.searchsorted(kept, vertex_tet)
    key = pair_kept * (len(tris) + 1) + pair_tri
    want = vkept * (len(tris) + 1) + tri_of_vertex
    pos = np.minimum(np.searchsorted(key, want), len(key) - 1)
    found = key[pos] == want
    vertex_copy = copy_start[vkept] + np.where(found, piece[pos], 0)
    return copy_of, grid_ids[order], tets, vertex_copy, copy_start[pair_kept] + piece
