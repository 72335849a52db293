"""Connected components of a small graph given as index pairs (bodies touching, bodies coupled by contact rows)."""
import numpy as np


def components(count, pairs):
    """Each item's component label (the lowest index in it) for items 0..count−1 joined by `pairs` (P,2)."""
    label = np.arange(count)
    pairs = np.sort(np.asarray(pairs, np.int64).reshape(-1, 2), axis=1)
    if not len(pairs):
        return label
    key = np.unique(pairs[:, 0] * count + pairs[:, 1])   # the distinct pairs (numpy's unique by rows costs ~0.1 ms)
    pairs = np.stack([key // count, key % count], axis=1)
    changed = True
    while changed:                      # label propagation: a few sweeps for the handful of bodies in a pile
        low = np.minimum(label[pairs[:, 0]], label[pairs[:, 1]])
        new = label.copy()
        np.minimum.at(new, pairs[:, 0], low)
        np.minimum.at(new, pairs[:, 1], low)
        changed = not np.array_equal(new, label)
        label = new
    return label
