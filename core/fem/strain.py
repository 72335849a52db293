"""Strain and stress for display: per tet, then smoothed to the cage nodes and read at embedded points.

Per tet, with F = Ds Dm⁻¹ = R S (polar decomposition): the corotated small strain ε = S − I (the strain the corotated
material uses; its axial value under a 1 % stretch is exactly 0.01), its deviator e = ε − tr(ε)/3 I, and
- the equivalent strain ε_eq = √(2/3 e:e) (von Mises' equivalent strain: for a uniaxial stretch ε that keeps the
  volume to first order, lateral strains −ε/2, it is ε itself; with no lateral contraction it is 2ε/3),
- the volume change det F − 1,
- the von Mises stress √(3/2 s:s) of the linear corotated stress σ = 2μ ε + λ tr(ε) I, whose deviator is s = 2μ e,
  so that it is 3μ ε_eq (for ν = 0 and a uniaxial stretch ε: E ε). μ is the material's small-strain shear modulus
  (Material.shear_modulus) times the tet's stiffness scale (a stiffness group), not the cage's fill factor: the
  stress is the material's, wherever the cage tet lies.
e:e depends on S's eigenvalues alone, F's singular values σᵢ: e:e = Σ_{i<j} (σᵢ − σⱼ)² / 3, from the eigenvalues of
FᵀF in closed form (no polar iteration: half its time), differences taken directly (zero under any rotation to
~1e-15). An inverted tet (det F < 0) takes its smallest σ negative, the stretch that its proper rotation leaves.
Per point, each value is averaged to the nodes (weighted by each tet's filled rest volume) and interpolated with the
point's embedding weights, so it varies smoothly across the cage's tets.

The kernels run on one thread: on this project's 2-core machine shared with other work, the parallel versions took
2.1 ms (6,000 tets) and 2.2 ms (100k points) where these take 0.64 and 0.47 (benchmarks/RESULTS.md, issue 54)."""
import math

import numpy as np

from ..errors import InvalidInputError
from ..jit import njit
from . import mat3
from .dapd import edge_matrix

_SQRT3 = math.sqrt(3.0)


@njit(cache=True, fastmath={"contract"})
def _singular_values(f):
    """F's singular values (σ₀ ≥ σ₂ ≥ σ₁), the square roots of FᵀF's eigenvalues q + 2p cos(φ + 2πk/3)."""
    c00 = f[0] * f[0] + f[3] * f[3] + f[6] * f[6]
    c11 = f[1] * f[1] + f[4] * f[4] + f[7] * f[7]
    c22 = f[2] * f[2] + f[5] * f[5] + f[8] * f[8]
    c01 = f[0] * f[1] + f[3] * f[4] + f[6] * f[7]
    c02 = f[0] * f[2] + f[3] * f[5] + f[6] * f[8]
    c12 = f[1] * f[2] + f[4] * f[5] + f[7] * f[8]
    q = (c00 + c11 + c22) / 3.0
    b00, b11, b22 = c00 - q, c11 - q, c22 - q
    p2 = (b00 * b00 + b11 * b11 + b22 * b22 + 2.0 * (c01 * c01 + c02 * c02 + c12 * c12)) / 6.0
    if not p2 > 0.0:   # FᵀF = qI
        s = math.sqrt(max(q, 0.0))
        return s, s, s
    p = math.sqrt(p2)
    det_b = b00 * (b11 * b22 - c12 * c12) - c01 * (c01 * b22 - c12 * c02) + c02 * (c01 * c12 - b11 * c02)
    c = math.cos(math.acos(min(1.0, max(-1.0, 0.5 * det_b / (p2 * p)))) / 3.0)   # φ in [0, π/3]
    s = math.sqrt(max(1.0 - c * c, 0.0))
    return (math.sqrt(max(q + 2.0 * p * c, 0.0)), math.sqrt(max(q - p * (c + _SQRT3 * s), 0.0)),
            math.sqrt(max(q - p * (c - _SQRT3 * s), 0.0)))


@njit(cache=True, fastmath={"contract"})
def tet_measures(x, tets, gm, mu, out):
    """Per tet e: out[e] = (equivalent strain, det F − 1, von Mises stress (Pa)) at node positions x (N,3); gm (M,3,3)
    = Dm⁻¹, mu (M,) the shear modulus (Pa)."""
    for e in range(len(tets)):
        i0, i1, i2, i3 = tets[e, 0], tets[e, 1], tets[e, 2], tets[e, 3]
        f = mat3.mul(edge_matrix((x[i0, 0], x[i0, 1], x[i0, 2]), (x[i1, 0], x[i1, 1], x[i1, 2]),
                                 (x[i2, 0], x[i2, 1], x[i2, 2]), (x[i3, 0], x[i3, 1], x[i3, 2])), mat3.load(gm, e))
        j = mat3.det(f)
        s0, s1, s2 = _singular_values(f)
        if j < 0.0:
            s1 = -s1
        eq = math.sqrt(2.0 / 9.0 * ((s0 - s1) ** 2 + (s1 - s2) ** 2 + (s0 - s2) ** 2))
        out[e, 0] = eq
        out[e, 1] = j - 1.0
        out[e, 2] = 3.0 * mu[e] * eq


@njit(cache=True)
def _to_nodes(values, tets, weight, num_nodes):
    """(N,3) weighted averages of per-tet values (M,3) over each node's tets."""
    sums = np.zeros((num_nodes, 3))
    total = np.zeros(num_nodes)
    for e in range(len(tets)):
        for c in range(4):
            n = tets[e, c]
            total[n] += weight[e]
            for k in range(3):
                sums[n, k] += weight[e] * values[e, k]
    for n in range(num_nodes):
        if total[n] > 0.0:
            for k in range(3):
                sums[n, k] /= total[n]
    return sums


@njit(cache=True, fastmath={"contract"})
def _at_points(node_values, point_nodes, weights, out):
    """out[k, i] = Σ_c weights[i, c] node_values[point_nodes[i, c], k]: float32 rows, one per measure (the indices
    and weights read once per point: 4× faster than per measure)."""
    for i in range(len(point_nodes)):
        n0, n1, n2, n3 = point_nodes[i, 0], point_nodes[i, 1], point_nodes[i, 2], point_nodes[i, 3]
        w0, w1, w2, w3 = weights[i, 0], weights[i, 1], weights[i, 2], weights[i, 3]
        for k in range(3):
            out[k, i] = (w0 * node_values[n0, k] + w1 * node_values[n1, k] + w2 * node_values[n2, k]
                         + w3 * node_values[n3, k])


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
