"""Kernels of the edge–edge detection: blocks of body edges culled against the other side's edges, then each body
edge's candidate pairs tested over the step (see core.contact.edges for the contract)."""
import math

import numpy as np

from ..csr import csr_find
from ..jit import njit, prange
from .bvh import STACK_SIZE, query_box
from .detect import take_slot, triangle_normal
from .segments import closest_at, pair_offsets, segment_closest

CANDIDATES = 1024   # other edges near a block of body edges (beyond: each edge queries the BVH itself)
BLOCK = 32          # consecutive body edges tested first as one box
BLOCKS_PER_CHUNK = 8   # blocks per parallel work item (buffers are allocated per chunk)
REACH_SLACK = 0.05  # a crossing is kept if the edges pass within this fraction of their relative motion
GOLDEN = 0.6180339887498949
SEARCH_STEPS = 16   # golden-section / bisection steps over the step's time (the interval shrinks below 5e-4)


@njit(cache=True, inline="always")
def _block_box(edges, p0, p1, blk, bend):
    """Box of edges blk..bend−1 at the start and end of the step; comparisons, not min/max, so that a NaN
    coordinate (an edge the detection skips) is ignored."""
    qlo0 = qlo1 = qlo2 = np.inf
    qhi0 = qhi1 = qhi2 = -np.inf
    for i in range(blk, bend):
        for pts in (p0, p1):
            for end in range(2):
                j = edges[i, end]
                x, y, z = pts[j, 0], pts[j, 1], pts[j, 2]
                if x < qlo0:
                    qlo0 = x
                if x > qhi0:
                    qhi0 = x
                if y < qlo1:
                    qlo1 = y
                if y > qhi1:
                    qhi1 = y
                if z < qlo2:
                    qlo2 = z
                if z > qhi2:
                    qhi2 = z
    return qlo0, qlo1, qlo2, qhi0, qhi1, qhi2


@njit(cache=True, parallel=True)
def near_blocks(edges, p0, p1, left, right, start, count, order, lo, hi, near):
    """near[b] (B,) bool: whether block b (body edges b·BLOCK … b·BLOCK + BLOCK − 1, neighbours on most
    meshes) sweeps within the padded box of any other edge; the others are skipped whole."""
    ne = edges.shape[0]
    nb = near.shape[0]
    for ch in prange((nb + BLOCKS_PER_CHUNK - 1) // BLOCKS_PER_CHUNK):
        stack = np.empty(STACK_SIZE, np.int64)
        out = np.empty(1, np.int64)   # only the count matters
        for bk in range(ch * BLOCKS_PER_CHUNK, min(nb, (ch + 1) * BLOCKS_PER_CHUNK)):
            blk = bk * BLOCK
            qlo0, qlo1, qlo2, qhi0, qhi1, qhi2 = _block_box(edges, p0, p1, blk, min(ne, blk + BLOCK))
            near[bk] = query_box(qlo0, qlo1, qlo2, qhi0, qhi1, qhi2, left, right, start, count, order, lo, hi,
                                 stack, out) > 0


@njit(cache=True, parallel=True)
def detect_edges(edges, blocks, p0, p1, other_edges, faces, tris, v0, v1, left, right, start, count, order, lo,
                 hi, thickness, margin, search_depth, side_hint, hint_source, other_source, self_pairs, skip_ptr, skip,
                 slot_count, slot_other, slot_s, slot_t, slot_n, slot_gap):
    """Fill up to K edge–edge contacts per body edge of the given blocks (near_blocks): body edge
    blocks[b]·BLOCK + k has row b·BLOCK + k of slot_count (R,) (zeros on entry: how many) and slot_* (R,K,...)
    (its first slot_count of them; the rest is left unwritten). side_hint (E,3), or (0,3) for none; a body edge's
    hint tells only of the other edges of its surface: hint_source (E,) against other_source (F,). self_pairs: the
    body edges are the other edges (one body against itself): a pair is tested once (other edge after the body edge)
    and not when in the body edge's sorted exclusion list (skip_ptr (E+1,), skip; core.contact.self_edges).

    For a body edge and a candidate other edge (from the BVH, whose boxes must be refit with pad
    thickness + margin + search_depth), the closest points (s, t) at the start of the step give the
    direction u from the other edge to the body edge. The side is then: for a closed collider's edge
    (faces given), inside when u is behind both adjacent triangles' planes and the closest point is not
    the edge's end (the normal flips, the gap is negative; kept only within search_depth), or, near
    contact, when side_hint and u point to opposite sides and u is behind the two planes' mean; else,
    near contact, the side of side_hint; else u. Touching
    or exactly crossing edges take the normal ±(e1 × e2), oriented by side_hint, else the adjacent
    triangles' average normal, else against the relative motion. The pair is kept when the gap predicted
    at the end of the step along that normal is below thickness + margin (a side that flips during the
    step predicts a negative gap) and, for edges approaching from beyond the thickness, when they really
    come within thickness + margin (+ REACH_SLACK × their relative motion) after the time the normal
    allows contact (their least distance over that interval: exact for translating edges, whose distance
    is convex in time), so a fast edge passing beside a feature edge's end is no crossing. The row then
    acts at the points (s, t) where the edges first come within thickness + margin (at their closest
    approach if only the slack admits them), its gaps measured along the start normal.
    Pairs whose point is a body edge's end (s = 0 or 1) are left to the vertex–triangle detection; degenerate
    or non-finite edges are skipped. slot_gap holds the row's start gap along the normal minus thickness.
    """
    ne = edges.shape[0]
    K = slot_other.shape[1]
    nact = blocks.shape[0]
    use_hint = side_hint.shape[0] > 0
    for ch in prange((nact + BLOCKS_PER_CHUNK - 1) // BLOCKS_PER_CHUNK):
        cand = np.empty(CANDIDATES, np.int64)
        cbox = np.empty((CANDIDATES, 6))
        ecand = np.empty(CANDIDATES, np.int64)
        stack = np.empty(STACK_SIZE, np.int64)
        score = np.empty(K)
        for bi in range(ch * BLOCKS_PER_CHUNK, min(nact, (ch + 1) * BLOCKS_PER_CHUNK)):
            blk = blocks[bi] * BLOCK
            bend = min(ne, blk + BLOCK)
            qlo0, qlo1, qlo2, qhi0, qhi1, qhi2 = _block_box(edges, p0, p1, blk, bend)
            nblock = query_box(qlo0, qlo1, qlo2, qhi0, qhi1, qhi2, left, right, start, count, order, lo, hi, stack,
                               cand)
            if nblock == 0:
                continue
            # the block's candidates' boxes (as the BVH pads them), for its edges to filter without a query each
            for j in range(min(nblock, CANDIDATES)):
                o = cand[j]
                pad = thickness[o] + margin + search_depth
                for d in range(3):
                    c0, c1, d0, d1 = v0[other_edges[o, 0], d], v1[other_edges[o, 0], d], v0[other_edges[o, 1], d], \
                        v1[other_edges[o, 1], d]
                    cbox[j, d] = min(c0, c1, d0, d1) - pad
                    cbox[j, 3 + d] = max(c0, c1, d0, d1) + pad
            for i in range(blk, bend):
                row = bi * BLOCK + i - blk
                ia, ib = edges[i, 0], edges[i, 1]
                ax0, ay0, az0 = p0[ia, 0], p0[ia, 1], p0[ia, 2]
                bx0, by0, bz0 = p0[ib, 0], p0[ib, 1], p0[ib, 2]
                ax1, ay1, az1 = p1[ia, 0], p1[ia, 1], p1[ia, 2]
                bx1, by1, bz1 = p1[ib, 0], p1[ib, 1], p1[ib, 2]
                e1x, e1y, e1z = bx0 - ax0, by0 - ay0, bz0 - az0
                len1 = e1x * e1x + e1y * e1y + e1z * e1z
                span = abs(ax0) + abs(ay0) + abs(az0) + abs(bx0) + abs(by0) + abs(bz0)
                moved = ax1 + ay1 + az1 + bx1 + by1 + bz1
                if not (len1 > 1e-24 * (span * span + 1e-300) and np.isfinite(span) and np.isfinite(moved)):
                    continue   # degenerate or non-finite body edge
                hx = hy = hz = 0.0
                if use_hint:
                    hx, hy, hz = side_hint[i, 0], side_hint[i, 1], side_hint[i, 2]
                has_hint = hx != 0.0 or hy != 0.0 or hz != 0.0
                elo0, elo1, elo2 = min(ax0, ax1, bx0, bx1), min(ay0, ay1, by0, by1), min(az0, az1, bz0, bz1)
                ehi0, ehi1, ehi2 = max(ax0, ax1, bx0, bx1), max(ay0, ay1, by0, by1), max(az0, az1, bz0, bz1)
                if nblock <= CANDIDATES:
                    nfound = 0
                    for j in range(nblock):
                        if not (cbox[j, 0] > ehi0 or cbox[j, 3] < elo0 or cbox[j, 1] > ehi1 or cbox[j, 4] < elo1
                                or cbox[j, 2] > ehi2 or cbox[j, 5] < elo2):
                            ecand[nfound] = cand[j]
                            nfound += 1
                else:
                    nfound = min(CANDIDATES, query_box(elo0, elo1, elo2, ehi0, ehi1, ehi2, left, right, start, count,
                                                       order, lo, hi, stack, ecand))
                used = 0
                for j in range(nfound):
                    o = ecand[j]
                    if self_pairs and (o <= i or csr_find(skip_ptr, skip, i, o) >= 0):
                        continue
                    hinted = has_hint and hint_source[i] == other_source[o]
                    ic, id_ = other_edges[o, 0], other_edges[o, 1]
                    cx0, cy0, cz0 = v0[ic, 0], v0[ic, 1], v0[ic, 2]
                    dx0, dy0, dz0 = v0[id_, 0], v0[id_, 1], v0[id_, 2]
                    e2x, e2y, e2z = dx0 - cx0, dy0 - cy0, dz0 - cz0
                    len2 = e2x * e2x + e2y * e2y + e2z * e2z
                    ospan = abs(cx0) + abs(cy0) + abs(cz0) + abs(dx0) + abs(dy0) + abs(dz0)
                    if not (len2 > 1e-24 * (ospan * ospan + 1e-300) and np.isfinite(ospan)):
                        continue   # degenerate or non-finite other edge
                    s, t = segment_closest(ax0, ay0, az0, bx0, by0, bz0, cx0, cy0, cz0, dx0, dy0, dz0)
                    # offset of the two contact points at the start, and their relative displacement over the step
                    ux, uy, uz, mx, my, mz = pair_offsets(s, t, p0, p1, ia, ib, v0, v1, ic, id_)
                    if not np.isfinite(mx + my + mz):
                        continue
                    tau = thickness[o]
                    n1x = n1y = n1z = n2x = n2y = n2z = 0.0
                    wedge = faces[o, 0] >= 0 and faces[o, 1] >= 0
                    if wedge:
                        n1x, n1y, n1z, _ = triangle_normal(v0, tris, faces[o, 0])
                        n2x, n2y, n2z, _ = triangle_normal(v0, tris, faces[o, 1])
                    dist = math.sqrt(ux * ux + uy * uy + uz * uz)
                    if dist > 1e-9 * math.sqrt(len1 + len2):
                        nx, ny, nz = ux / dist, uy / dist, uz / dist
                        sign = 1.0
                        if wedge and 0.0 < t < 1.0:
                            # strictly behind both planes: a body edge lying on a face is outside; past the
                            # edge's end (a corner) the two planes do not bound the solid
                            if nx * n1x + ny * n1y + nz * n1z < -1e-9 and nx * n2x + ny * n2y + nz * n2z < -1e-9:
                                sign = -1.0
                            # a body edge resting across the edge sags below its face plane level with the
                            # other face (u straight down from a bar's top edge): inside, as its last side says
                            elif (hinted and dist < search_depth + tau and nx * hx + ny * hy + nz * hz < 0.0
                                  and nx * (n1x + n2x) + ny * (n1y + n2y) + nz * (n1z + n2z) < 0.0):
                                sign = -1.0
                        elif hinted and dist < search_depth + tau:
                            if nx * hx + ny * hy + nz * hz < 0.0:
                                sign = -1.0
                    else:   # touching or crossing exactly: the common perpendicular
                        dist = 0.0
                        nx = e1y * e2z - e1z * e2y
                        ny = e1z * e2x - e1x * e2z
                        nz = e1x * e2y - e1y * e2x
                        nn = math.sqrt(nx * nx + ny * ny + nz * nz)
                        if nn > 1e-9 * math.sqrt(len1 * len2):
                            nx, ny, nz = nx / nn, ny / nn, nz / nn
                        elif hinted:   # parallel and touching: any normal to the edge; the hint's part
                            nx, ny, nz = hx, hy, hz
                        elif wedge:
                            nx, ny, nz = n1x + n2x, n1y + n2y, n1z + n2z
                        else:
                            nx, ny, nz = -mx, -my, -mz
                        dot = (nx * e2x + ny * e2y + nz * e2z) / len2
                        nx, ny, nz = nx - dot * e2x, ny - dot * e2y, nz - dot * e2z
                        nn = math.sqrt(nx * nx + ny * ny + nz * nz)
                        if not nn > 0.0:
                            continue
                        nx, ny, nz = nx / nn, ny / nn, nz / nn
                        if hinted:
                            ref = nx * hx + ny * hy + nz * hz
                        elif wedge:
                            ref = nx * (n1x + n2x) + ny * (n1y + n2y) + nz * (n1z + n2z)
                        else:
                            ref = -(nx * mx + ny * my + nz * mz)
                        sign = -1.0 if ref < 0.0 else 1.0
                    nx, ny, nz = sign * nx, sign * ny, sign * nz
                    g0 = sign * dist
                    if g0 < 0.0 and -g0 > search_depth:
                        continue
                    g1 = g0 + nx * mx + ny * my + nz * mz
                    if g1 >= tau + margin:
                        continue
                    if g0 > tau:
                        # Approaching from outside. The start normal separates the edges, so they cannot meet
                        # before tc. They meet at tc when closer than thickness + margin there; else their
                        # distance, convex in time for translating edges, is minimised over [tc, 1] (golden
                        # section) and, if it gets that close, the first such time is found by bisection.
                        tc = (g0 - tau) / (g0 - g1) if g1 < tau else 1.0
                        near = tau + margin
                        slack = REACH_SLACK * math.sqrt(mx * mx + my * my + mz * mz)
                        s, t, dm = closest_at(tc, p0, p1, ia, ib, v0, v1, ic, id_)
                        if dm > near and (tc >= 1.0 or closest_at(tc + 1e-3 * (1.0 - tc), p0, p1, ia, ib, v0, v1,
                                                                   ic, id_)[2] >= dm):
                            if dm > near + slack:   # receding from tc on: by convexity, tc was the closest
                                continue
                        elif dm > near:
                            ta, tb = tc, 1.0
                            tl = tb - GOLDEN * (tb - ta)
                            tr = ta + GOLDEN * (tb - ta)
                            fl = closest_at(tl, p0, p1, ia, ib, v0, v1, ic, id_)[2]
                            fr = closest_at(tr, p0, p1, ia, ib, v0, v1, ic, id_)[2]
                            for _ in range(SEARCH_STEPS):
                                if fl <= fr:
                                    tb, tr, fr = tr, tl, fl
                                    tl = tb - GOLDEN * (tb - ta)
                                    fl = closest_at(tl, p0, p1, ia, ib, v0, v1, ic, id_)[2]
                                else:
                                    ta, tl, fl = tl, tr, fr
                                    tr = ta + GOLDEN * (tb - ta)
                                    fr = closest_at(tr, p0, p1, ia, ib, v0, v1, ic, id_)[2]
                            tmin = 0.5 * (ta + tb)
                            s, t, dm = closest_at(tmin, p0, p1, ia, ib, v0, v1, ic, id_)
                            if dm > near + slack:
                                continue
                            if dm <= near:
                                ta, tb = tc, tmin
                                for _ in range(SEARCH_STEPS):
                                    mid = 0.5 * (ta + tb)
                                    if closest_at(mid, p0, p1, ia, ib, v0, v1, ic, id_)[2] > near:
                                        ta = mid
                                    else:
                                        tb = mid
                                s, t, dm = closest_at(tb, p0, p1, ia, ib, v0, v1, ic, id_)
                        # the row acts at the points that meet; its gaps are measured along the start normal
                        ux, uy, uz, mx, my, mz = pair_offsets(s, t, p0, p1, ia, ib, v0, v1, ic, id_)
                        g0 = nx * ux + ny * uy + nz * uz
                        g1 = g0 + nx * mx + ny * my + nz * mz
                    if s <= 0.0 or s >= 1.0:
                        continue
                    sc = g1 - tau
                    # one contact seen through two collinear pieces of a subdivided edge: keep one row
                    same = False
                    for m in range(used):
                        if (slot_n[row, m, 0] * nx + slot_n[row, m, 1] * ny + slot_n[row, m, 2] * nz > 0.9999
                                and abs(slot_s[row, m] - s) <= 1e-6 and abs(score[m] - sc) <= 1e-9 + 1e-6 * abs(sc)):
                            same = True
                    if same:
                        continue
                    k, used = take_slot(score, used, sc)
                    if k < 0:
                        continue
                    slot_other[row, k] = o
                    slot_s[row, k] = s
                    slot_t[row, k] = t
                    slot_n[row, k, 0], slot_n[row, k, 1], slot_n[row, k, 2] = nx, ny, nz
                    slot_gap[row, k] = g0 - tau
                slot_count[row] = used
