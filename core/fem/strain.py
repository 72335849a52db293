"""Strain and stress for display: per tet, then smoothed to the cage nodes and read at embedded points.

Per tet, with F = Ds Dm⁻¹ = R S (polar decomposition; an inverted tet, which has none, takes R = I): the corotated
small strain ε = S − I (the strain the corotated material uses; its axial value under a 1 % stretch is exactly
0.01), its deviator e = ε − tr(ε)/3 I, and
- the equivalent strain ε_eq = √(2/3 e:e) (von Mises' equivalent strain: for a uniaxial stretch ε that keeps the
  volume to first order, lateral strains −ε/2, it is ε itself; with no lateral contraction it is 2ε/3),
- the volume change det F − 1,
- the von Mises stress √(3/2 s:s) of the linear corotated stress σ = 2μ ε + λ tr(ε) I, whose deviator is s = 2μ e,
  so that it is 3μ ε_eq (for ν = 0 and a uniaxial stretch ε: E ε). μ is the material's small-strain shear modulus
  (Material.shear_modulus) times the tet's stiffness scale (a stiffness group), not the cage's fill factor: the
  stress is the material's, wherever the cage tet lies.
Per point, each value is averaged to the nodes (weighted by each tet's filled rest volume) and interpolated with the
point's embedding weights, so it varies smoothly across the cage's tets."""
import math

import numpy as np

from ..errors import InvalidInputError
from ..jit import njit, prange
from . import mat3
from .dapd import edge_matrix
from .polar import polar_rotation

_IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


@njit(cache=True, parallel=True)
def tet_measures(x, tets, gm, mu, out):
    """Per tet e: out[e] = (equivalent strain, det F − 1, von Mises stress (Pa)) at node positions x (N,3); gm (M,3,3)
    = Dm⁻¹, mu (M,) the shear modulus (Pa)."""
    for e in prange(len(tets)):
        i0, i1, i2, i3 = tets[e, 0], tets[e, 1], tets[e, 2], tets[e, 3]
        f = mat3.mul(edge_matrix((x[i0, 0], x[i0, 1], x[i0, 2]), (x[i1, 0], x[i1, 1], x[i1, 2]),
                                 (x[i2, 0], x[i2, 1], x[i2, 2]), (x[i3, 0], x[i3, 1], x[i3, 2])), mat3.load(gm, e))
        j = mat3.det(f)
        r, _ok = polar_rotation(f, _IDENTITY)
        s = mat3.tmul(r, f)
        mean = (s[0] + s[4] + s[8] - 3.0) / 3.0
        d0, d1, d2 = s[0] - 1.0 - mean, s[4] - 1.0 - mean, s[8] - 1.0 - mean
        o01, o02, o12 = 0.5 * (s[1] + s[3]), 0.5 * (s[2] + s[6]), 0.5 * (s[5] + s[7])
        eq = math.sqrt(2.0 / 3.0 * (d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * (o01 * o01 + o02 * o02 + o12 * o12)))
        out[e, 0] = eq
        out[e, 1] = j - 1.0
        out[e, 2] = 3.0 * mu[e] * eq


@njit(cache=True)
def _to_nodes(values, tets, weight, num_nodes):
    """(N,k) weighted averages of per-tet values (M,k) over each node's tets."""
    sums = np.zeros((num_nodes, values.shape[1]))
    total = np.zeros(num_nodes)
    for e in range(len(tets)):
        for c in range(4):
            n = tets[e, c]
            total[n] += weight[e]
            for k in range(values.shape[1]):
                sums[n, k] += weight[e] * values[e, k]
    for n in range(num_nodes):
        if total[n] > 0.0:
            for k in range(values.shape[1]):
                sums[n, k] /= total[n]
    return sums


@njit(cache=True, parallel=True)
def _at_points(node_values, point_nodes, weights, out):
    """out[k, i] = Σ_c weights[i, c] node_values[point_nodes[i, c], k]: float32 rows, one per measure."""
    for i in prange(len(point_nodes)):
        for k in range(node_values.shape[1]):
            out[k, i] = (weights[i, 0] * node_values[point_nodes[i, 0], k]
                         + weights[i, 1] * node_values[point_nodes[i, 1], k]
                         + weights[i, 2] * node_values[point_nodes[i, 2], k]
                         + weights[i, 3] * node_values[point_nodes[i, 3], k])


class StrainGauge:
    """Strain and stress measures of a tet mesh (a cage or a conforming mesh) at node positions x (see the module).

    `mesh`: a core.TetMesh (its rest nodes, tets, fill `mass_weights`, embedding); `shear_modulus` (Pa): a number or
    one per tet (the material's times a stiffness group's scale)."""

    def __init__(self, mesh, shear_modulus):
        mu = np.broadcast_to(np.asarray(shear_modulus, np.float64), (mesh.num_tets,))
        if not np.all(np.isfinite(mu)) or np.any(mu <= 0.0):
            raise InvalidInputError("shear_modulus must be finite and > 0 Pa")
        self.tets = mesh.tets
        self.num_nodes = mesh.num_nodes
        self.mu = np.ascontiguousarray(mu)
        nodes = mesh.nodes
        ds = np.stack([nodes[self.tets[:, k]] - nodes[self.tets[:, 0]] for k in (1, 2, 3)], axis=2)
        self.gm = np.ascontiguousarray(np.linalg.inv(ds))
        fill = mesh.mass_weights if mesh.mass_weights is not None else 1.0
        self.node_weight = np.ascontiguousarray(np.abs(np.linalg.det(ds)) / 6.0 * fill)
        emb = mesh.embedding
        if emb is not None:
            self.point_nodes = np.ascontiguousarray(emb.point_nodes)
            self.point_weights = emb.weights
        else:   # the mesh's own nodes are the points
            self.point_nodes = np.ascontiguousarray(np.repeat(np.arange(self.num_nodes)[:, None], 4, axis=1))
            self.point_weights = np.tile([1.0, 0.0, 0.0, 0.0], (self.num_nodes, 1))

    def _positions(self, x):
        x = np.ascontiguousarray(x, np.float64)
        if x.shape != (self.num_nodes, 3):
            raise InvalidInputError(f"node positions must have shape ({self.num_nodes}, 3), got {x.shape}")
        return x

    def tets_at(self, x):
        """(M,3) float64 per tet: equivalent strain, volume change det F − 1, von Mises stress (Pa)."""
        out = np.empty((len(self.tets), 3))
        tet_measures(self._positions(x), self.tets, self.gm, self.mu, out)
        return out

    def points_at(self, x):
        """(3,n) float32 at the embedded points (or the nodes, without an embedding): rows equivalent strain, volume
        change, von Mises stress (Pa), each averaged to the nodes and interpolated (see the module)."""
        nodes = _to_nodes(self.tets_at(x), self.tets, self.node_weight, self.num_nodes)
        out = np.empty((3, len(self.point_nodes)), np.float32)
        _at_points(nodes, self.point_nodes, self.point_weights, out)
        return out
