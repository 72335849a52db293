"""Aggregation building blocks: greedy node aggregation and the rigid-mode tentative prolongator."""
import numpy as np

from ..jit import njit


@njit(cache=True)
def aggregate(row_ptr, col, active):
    """Greedy aggregation of a block graph (CSR row_ptr, col): each active node whose active neighbours are all
    free roots an aggregate of itself and them; the nodes left join a neighbouring aggregate, or root one with
    their free neighbours. Returns (agg (n,) aggregate of each node, −1 for inactive nodes; number of aggregates)."""
    n = row_ptr.shape[0] - 1
    agg = np.full(n, -1, np.int64)
    count = 0
    for i in range(n):
        if not active[i] or agg[i] >= 0:
            continue
        ok = True
        for k in range(row_ptr[i], row_ptr[i + 1]):
            j = col[k]
            if active[j] and agg[j] >= 0:
                ok = False
                break
        if ok:
            for k in range(row_ptr[i], row_ptr[i + 1]):
                j = col[k]
                if active[j]:
                    agg[j] = count
            agg[i] = count
            count += 1
    joined = agg.copy()
    for i in range(n):
        if active[i] and agg[i] < 0:
            for k in range(row_ptr[i], row_ptr[i + 1]):
                j = col[k]
                if agg[j] >= 0:
                    joined[i] = agg[j]
                    break
    agg = joined
    for i in range(n):
        if active[i] and agg[i] < 0:
            agg[i] = count
            for k in range(row_ptr[i], row_ptr[i + 1]):
                j = col[k]
                if active[j] and agg[j] < 0:
                    agg[j] = count
            count += 1
    return agg, count


@njit(cache=True)
def tentative(agg, num_agg, modes):
    """Orthonormalise each aggregate's near-null-space rows: modes (n, bs, k) per node → T (n, bs, k) with
    orthonormal columns over each aggregate (modified Gram–Schmidt; a column dependent on the previous ones is
    zeroed) and R (num_agg, k, k) with modes = T R per aggregate, the coarse level's near-null space."""
    n, bs, k = modes.shape
    order = np.argsort(agg)
    start = np.searchsorted(agg[order], np.arange(num_agg + 1))
    t = np.zeros((n, bs, k))
    r = np.zeros((num_agg, k, k))
    for a in range(num_agg):
        members = order[start[a]:start[a + 1]]
        for c in range(k):
            for m in members:
                for i in range(bs):
                    t[m, i, c] = modes[m, i, c]
            norm0 = 0.0
            for m in members:
                for i in range(bs):
                    norm0 += t[m, i, c] * t[m, i, c]
            for prev in range(c):
                dot = 0.0
                for m in members:
                    for i in range(bs):
                        dot += t[m, i, prev] * t[m, i, c]
                r[a, prev, c] = dot
                for m in members:
                    for i in range(bs):
                        t[m, i, c] -= dot * t[m, i, prev]
            norm = 0.0
            for m in members:
                for i in range(bs):
                    norm += t[m, i, c] * t[m, i, c]
            if norm > 1e-10 * norm0 and norm > 0.0:
                s = np.sqrt(norm)
                r[a, c, c] = s
                for m in members:
                    for i in range(bs):
                        t[m, i, c] /= s
            else:
                for m in members:
                    for i in range(bs):
                        t[m, i, c] = 0.0
    return t, r


def rigid_modes(positions, agg, num_agg):
    """Translations and infinitesimal rotations (n, 3, 6) of each node, about its aggregate's centroid."""
    n = len(positions)
    valid = agg >= 0
    centroid = np.zeros((num_agg, 3))
    np.add.at(centroid, agg[valid], positions[valid])
    centroid /= np.maximum(np.bincount(agg[valid], minlength=num_agg), 1)[:, None]
    d = positions - np.where(valid[:, None], centroid[np.maximum(agg, 0)], 0.0)
    modes = np.zeros((n, 3, 6))
    modes[:, 0, 0] = modes[:, 1, 1] = modes[:, 2, 2] = 1.0
    # ω × d for ω = e_x, e_y, e_z
    modes[:, 1, 3], modes[:, 2, 3] = -d[:, 2], d[:, 1]
    modes[:, 0, 4], modes[:, 2, 4] = d[:, 2], -d[:, 0]
    modes[:, 0, 5], modes[:, 1, 5] = -d[:, 1], d[:, 0]
    modes[~valid] = 0.0
    return modes
