"""The distinct points of a list of rows, numbered 0, 1, … through a scratch slot array (one slot per point)."""
import numpy as np

from ..jit import njit


@njit(cache=True)
def compact_points(point, slot):
    """Number the distinct points of `point` in order of first appearance: slot[p] (−1 on entry for every p)
    becomes p's number. Returns the points in that order, (k,); release_points sets their slots back to −1."""
    ids = np.empty(point.shape[0], np.int64)
    k = 0
    for p in point:
        if slot[p] < 0:
            slot[p] = k
            ids[k] = p
            k += 1
    return ids[:k]


@njit(cache=True)
def release_points(ids, slot):
    """slot[p] = −1 for the points `ids` (compact_points' answer): the scratch is ready for the next list."""
    for p in ids:
        slot[p] = -1
