"""The Galerkin correction of a CG solve on its bodies' rigid translations (momentum balanced exactly), and the coarse
space they give its preconditioner."""
import numpy as np

from ..jit import njit

_NO_RANGES, _NO_INVERSE = np.zeros((0, 2), np.int64), np.zeros((0, 0))


class Translations:
    """The Galerkin projection of a solve's error on the rigid translations of an island's unpinned bodies: the
    correction that balances each body's momentum with the forces on it.

    The stiffness does not resist a translation (K's rows sum to zero), so the translations' Galerkin system is small
    and exact: Σ mass_term I per body, plus the contact rows' blocks K_b weighted by their stencils' weight sums on
    each body (1 on a point's own body, −1 on the body it touches). Applied to the warm start of bodies no contact row
    touches, it solves a body in free fall before the CG's first iteration (a 1 m ball dropped at the add-on's
    defaults took 14–24 block-Jacobi iterations a step before, 0 after; applied to bodies with contact rows too, it
    cost a landing ball more iterations, 53–66 a step against 44–54). Applied to every body's result, an inexact CG
    neither creates nor loses momentum: a ball landing on a frictionless floor keeps its horizontal momentum."""

    def __init__(self, system, bodies, penalty, blocks, free):
        ranges = [system.node_ranges[body] for body in bodies if free[slice(*system.node_ranges[body])].all()]
        self.ranges = np.array(ranges, np.int64).reshape(-1, 2)
        self.mass_term = system.mass_term
        self.penalty, self.blocks, self.free = penalty, blocks, free
        nb = len(ranges)
        self.mass = np.array([self.mass_term[n0:n1].sum() for n0, n1 in ranges])
        self.touched = np.zeros(nb, np.bool_)
        self.matrix = None    # where a contact block couples the bodies; else each body's is its mass times I
        if nb and blocks is not None and len(blocks):
            e = np.zeros((nb, 3, nb, 3))
            for i in range(nb):
                e[i, :, i, :] = np.eye(3) * self.mass[i]
            owner = np.full(len(free), -1, np.int64)
            for i, (n0, n1) in enumerate(ranges):
                owner[n0:n1] = i
            _add_row_translations(penalty.block_node, penalty.block_coef, penalty.block_k, blocks, owner, e,
                                  self.touched)
            if self.touched.any():
                self.matrix = e.reshape(3 * nb, 3 * nb)

    def coarse(self):
        """(ranges (C,2), inverse (3C,3C)): the bodies' translations as a coarse space of the CG's preconditioner,
        with the inverse of their Galerkin matrix; empty unless contact rows couple two or more of them. Between
        bodies a soft contact leaves their relative translations the slowest modes for block-Jacobi: on five stacked
        default cubes the coarse space took a step's three solves from 108 to 71 iterations (44 → 22, 23 → 16,
        41 → 33); the translations did as well as the rigid modes with the rotations. A single body gained nothing."""
        if self.matrix is None or len(self.ranges) < 2:
            return _NO_RANGES, _NO_INVERSE
        return self.ranges, np.linalg.inv(self.matrix)

    def correct(self, x, r, scratch, untouched=False):
        """x += the translations' Galerkin correction for residual r = S (b − A x), and r updated to match (whole-model
        arrays; scratch: work space); untouched: correct only the bodies no contact row touches. Returns whether it
        corrected any body."""
        nb = len(self.ranges)
        if nb == 0 or (untouched and self.touched.all()):
            return False
        g = _body_sums(r, self.ranges)
        if self.matrix is None or untouched:    # the bodies corrected are coupled by no contact block
            shift = g / self.mass[:, None]
            shift[self.touched] = 0.0
        else:
            shift = np.linalg.solve(self.matrix, g.ravel()).reshape(nb, 3)
        _translate(x, r, self.mass_term, self.ranges, shift)
        if self.touched.any() and not untouched:
            move = np.zeros_like(x)
            for (n0, n1), s in zip(self.ranges, shift):
                move[n0:n1] = s
            scratch[:] = 0.0
            self.penalty.product(move, scratch, self.free, self.blocks)
            r -= scratch
        return True


@njit(cache=True)
def _add_row_translations(node, coef, k, blocks, owner, e, touched):
    """e (B,3,B,3) += each contact block's K_b weighted by its stencil's weight sums on bodies i and j (owner: each
    node's body, −1 for none); touched[i] set for the bodies a block reaches."""
    nb = e.shape[0]
    sums = np.zeros(nb)
    for i in range(blocks.shape[0]):
        b = blocks[i]
        sums[:] = 0.0
        for s in range(node.shape[1]):
            j = node[b, s]
            if j >= 0 and owner[j] >= 0:
                sums[owner[j]] += coef[b, s]
                touched[owner[j]] = True
        for p in range(nb):
            if sums[p] == 0.0:
                continue
            for q in range(nb):
                w = sums[p] * sums[q]
                if w != 0.0:
                    for a in range(3):
                        for c in range(3):
                            e[p, a, q, c] += w * k[b, a, c]


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
