"""The Galerkin correction of a CG solve on its bodies' rigid translations: momentum balanced exactly."""
import numpy as np

from ..jit import njit


class Translations:
    """The Galerkin projection of a solve's error on the rigid translations of its unpinned bodies: the correction
    that balances each body's momentum with the forces on it.

    The stiffness does not resist a translation (K's rows sum to zero), so the translations' Galerkin system is small
    and exact: Σ mass_term I per body. Applied to the warm start, it solves a body in free fall before the CG's first
    iteration (a 1 m ball dropped at the add-on's defaults took 14–24 block-Jacobi iterations a step before, 0 after);
    applied to the result, an inexact CG neither creates nor loses momentum."""

    def __init__(self, system, bodies, free):
        ranges = [system.node_ranges[body] for body in bodies if free[slice(*system.node_ranges[body])].all()]
        self.ranges = np.array(ranges, np.int64).reshape(-1, 2)
        self.mass_term = system.mass_term
        self.mass = np.array([self.mass_term[n0:n1].sum() for n0, n1 in ranges])

    def correct(self, x, r):
        """x += the translations' Galerkin correction for residual r = S (b − A x), and r updated to match (whole-model
        arrays). Returns whether it corrected any body."""
        if len(self.ranges) == 0:
            return False
        shift = _body_sums(r, self.ranges) / self.mass[:, None]
        _translate(x, r, self.mass_term, self.ranges, shift)
        return True


@njit(cache=True)
def _body_sums(r, ranges):
    """(B,3): the sum of r's rows n0 ≤ n < n1 for each body range (n0, n1) of ranges (B,2)."""
    out = np.zeros((ranges.shape[0], 3))
    for i in range(ranges.shape[0]):
        for n in range(ranges[i, 0], ranges[i, 1]):
            for d in range(3):
                out[i, d] += r[n, d]
    return out


@njit(cache=True)
def _translate(x, r, mass_term, ranges, shift):
    """x += shift of its body and r −= mass_term × that shift, on each body range's rows."""
    for i in range(ranges.shape[0]):
        for n in range(ranges[i, 0], ranges[i, 1]):
            for d in range(3):
                x[n, d] += shift[i, d]
                r[n, d] -= mass_term[n] * shift[i, d]
