"""Keeping tets upright through a move made outside the implicit solve (contact's post-stabilisation)."""
import numpy as np

INVERSION_HALVINGS = 6


def keep_tets_upright(tets, before, after):
    """Scale back (halving, at most INVERSION_HALVINGS times, then undo) the move before -> after (node positions,
    after changed in place) on the nodes of the tets (M,4) it would turn inside out. Post-stabilisation pushes render
    points out point by point; where one tet carries points on two faces of a collider's edge, a push on each point
    can invert the tet (seen on a Suzanne resting across a box edge). (The velocity correction is not held back so:
    that would let fast bodies through thin colliders.)"""
    moved = np.any(after != before, axis=1)
    tets = tets[np.any(moved[tets], axis=1)]
    if not len(tets):
        return
    upright = _signed_volumes(before, tets) > 0.0
    for k in range(INVERSION_HALVINGS + 1):
        flipped = upright & (_signed_volumes(after, tets) <= 0.0)
        if not flipped.any():
            return
        nodes = np.unique(tets[flipped])
        after[nodes] = before[nodes] + (0.5 if k < INVERSION_HALVINGS else 0.0) * (after[nodes] - before[nodes])


def _signed_volumes(x, tets):
    """Six times the signed volume of each tet (k,4) at positions x."""
    a = x[tets[:, 0]]
    return np.einsum("kd,kd->k", np.cross(x[tets[:, 1]] - a, x[tets[:, 2]] - a), x[tets[:, 3]] - a)
