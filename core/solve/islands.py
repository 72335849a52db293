"""The islands of a solve: each body alone, or the bodies the contact penalty's stencil blocks couple, solved as one."""
import numpy as np

from ..components import components
from ..jit import njit


def islands(node_ranges, penalty):
    """(bodies, penalty stencil blocks) of each group of bodies coupled by the penalty's blocks: a block joins
    every body its stencil reaches."""
    n_bodies = len(node_ranges)
    if penalty is None or len(penalty.block_node) == 0:
        return [([i], None) for i in range(n_bodies)]
    if n_bodies == 1:
        return [([0], np.arange(len(penalty.block_node)))]
    starts = np.array([a for a, _ in node_ranges], np.int64)
    lowest = np.empty(len(penalty.block_node), np.int64)
    joined = np.zeros((n_bodies, n_bodies), np.bool_)
    _block_bodies(penalty.block_node, starts, lowest, joined)
    label = components(n_bodies, np.argwhere(joined))
    block_label = label[lowest]
    return [(list(np.flatnonzero(label == r)), np.ascontiguousarray(np.flatnonzero(block_label == r)))
            for r in np.unique(label)]


@njit(cache=True)
def _block_bodies(node, starts, lowest, joined):
    """Per penalty block (its stencil's nodes `node`, −1 for none; starts: each body's first node), the lowest body its
    stencil reaches in lowest[b], and joined[lowest, j] set for each body j it reaches. (Per stencil entry in numpy,
    sorted and made unique, this took ~12 ms a solve on five stacked default cubes, measured.)"""
    for b in range(node.shape[0]):
        low = starts.shape[0]
        for s in range(node.shape[1]):
            if node[b, s] >= 0:
                low = min(low, np.searchsorted(starts, node[b, s], side="right") - 1)
        lowest[b] = low
        for s in range(node.shape[1]):
            if node[b, s] >= 0:
                joined[low, np.searchsorted(starts, node[b, s], side="right") - 1] = True
