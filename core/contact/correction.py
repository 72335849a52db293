"""Kernels of the contact correction's bookkeeping: per-point sums over the points in contact, reported impulses."""
import numpy as np

from ..jit import njit
from .distinct_points import compact_points, release_points
from .edge_rows import contact_positions


@njit(cache=True)
def correction_targets(point, gap, mu, pen_point, pen_impulse, pen_tangent, pen_normal, slop, dt, slot):
    """Per-point sums over the points in contact (the rows' `point`, then the penalty rows' `pen_point`), spread
    back over their rows. A point its penalty rows held may end up `slop` deep; its normal penalty impulses are
    shared by its correction rows as their friction floor where they push, and reported by them where they pull
    (a row ending just clear of the surface), as are its tangential ones; a point with
    tangential penalty rows had its friction in the implicit solve (μ = 0 here).

    slot (num_points,) scratch, −1 on entry and on return. Returns the distinct points, and per row: the
    minimum normal velocity vmin, the floor, μ, the penalty share of its impulse (nc,3) and whether a penalty
    row held its point; per penalty row: whether its point has no correction row and its impulse is not 0."""
    nc = point.shape[0]
    npen = pen_point.shape[0]
    ids = compact_points(np.concatenate((point, pen_point)), slot)
    k = ids.shape[0]
    rows_of = np.zeros(k, np.int64)
    normal_sum = np.zeros(k)
    tangent_sum = np.zeros((k, 3))
    held = np.zeros(k, np.bool_)
    ruled = np.zeros(k, np.bool_)
    for p in point:
        rows_of[slot[p]] += 1
    for r in range(npen):
        q = slot[pen_point[r]]
        held[q] = True
        if pen_tangent[r]:
            ruled[q] = True
            for d in range(3):
                tangent_sum[q, d] += pen_impulse[r] * pen_normal[r, d]
        elif pen_impulse[r] > 0.0:
            normal_sum[q] += pen_impulse[r]
        else:   # a row that pulled (its point ended just clear of the surface): reported, never a friction bound
            for d in range(3):
                tangent_sum[q, d] += pen_impulse[r] * pen_normal[r, d]
    vmin = np.empty(nc)
    floor = np.empty(nc)
    mu_row = np.empty(nc)
    share = np.empty((nc, 3))
    held_row = np.empty(nc, np.bool_)
    for c in range(nc):
        q = slot[point[c]]
        allowed = gap[c] + slop if held[q] else gap[c]
        vmin[c] = -allowed / dt if allowed >= 0.0 else 0.0
        floor[c] = normal_sum[q] / rows_of[q]
        mu_row[c] = 0.0 if ruled[q] else mu[c]
        for d in range(3):
            share[c, d] = tangent_sum[q, d] / rows_of[q]
        held_row[c] = held[q]
    alone = np.empty(npen, np.bool_)
    for r in range(npen):
        alone[r] = rows_of[slot[pen_point[r]]] == 0 and pen_impulse[r] != 0.0
    release_points(ids, slot)
    return ids.copy(), vmin, floor, mu_row, share, held_row, alone


@njit(cache=True)
def correction_report(point, node, coef, normal, gap, move, x0, v, dt, lam_n, lam_t, floor, share, held, deep,
                      num_render_points):
    """The rows' impulses (N·s on the body: normal (λn + floor), friction λt and the penalty share), their points
    at the end of the step x0 + dt v, and whether a row whose point no penalty row held ends the step more
    than `deep` (< 0) inside its surface."""
    nc, S = node.shape
    impulse = np.empty((nc, 3))
    penetrating = False
    for c in range(nc):
        for d in range(3):
            impulse[c, d] = (lam_n[c] + floor[c]) * normal[c, d] + lam_t[c, d] + share[c, d]
        if held[c] or penetrating:
            continue
        ux = uy = uz = 0.0
        for s in range(S):
            j = node[c, s]
            if j >= 0:
                ux += coef[c, s] * v[j, 0]
                uy += coef[c, s] * v[j, 1]
                uz += coef[c, s] * v[j, 2]
        mx, my, mz = ux * dt - move[c, 0], uy * dt - move[c, 1], uz * dt - move[c, 2]
        penetrating = gap[c] + (normal[c, 0] * mx + normal[c, 1] * my + normal[c, 2] * mz) < deep
    ends = contact_positions(point, node, coef, x0, v, dt, num_render_points)
    return impulse, ends, penetrating
