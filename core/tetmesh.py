"""TetMesh: a validated tetrahedral mesh (nodes, tets), optionally with the embedding of a render mesh."""
import numpy as np

from .errors import InvalidInputError

# A rest tet whose |volume| is below this fraction of (mean edge length)^3 counts as zero-volume.
_DEGENERATE_RELATIVE_VOLUME = 1e-10


def signed_volumes(nodes, tets):
    """Signed volume of every tet: det([x1-x0, x2-x0, x3-x0]) / 6."""
    a = nodes[tets[:, 1]] - nodes[tets[:, 0]]
    b = nodes[tets[:, 2]] - nodes[tets[:, 0]]
    c = nodes[tets[:, 3]] - nodes[tets[:, 0]]
    return np.einsum("ij,ij->i", a, np.cross(b, c)) / 6.0


class TetMesh:
    """Rest nodes (N,3) float64 and positively oriented tets (M,4) int64.

    Tets with negative rest volume are reoriented (two indices swapped); zero-volume tets,
    NaN/inf nodes, out-of-range indices and empty meshes raise InvalidInputError.
    Optional: `embedding` (render vertices inside the tets), `mass_weights` (M,) per-tet
    factor on the tet's mass (e.g. the fraction of a cage tet the surface encloses), `stiffness_weights` (M,) per-tet
    factor on its elastic moduli (the same fraction, floored higher: core.geometry.cage), `report`.
    """

    def __init__(self, nodes, tets, embedding=None, mass_weights=None, report=None, stiffness_weights=None):
        nodes = np.array(nodes, dtype=np.float64, copy=True)
        if nodes.ndim != 2 or nodes.shape[1] != 3:
            raise InvalidInputError(f"nodes must have shape (N, 3), got {nodes.shape}")
        if not np.all(np.isfinite(nodes)):
            raise InvalidInputError("nodes contain NaN or infinite coordinates")
        tets = np.asarray(tets)
        if tets.size == 0:
            raise InvalidInputError("the mesh has zero tets")
        if tets.ndim != 2 or tets.shape[1] != 4:
            raise InvalidInputError(f"tets must have shape (M, 4), got {tets.shape}")
        if not np.issubdtype(tets.dtype, np.integer):
            raise InvalidInputError(f"tets must be integer indices, got dtype {tets.dtype}")
        tets = np.array(tets, dtype=np.int64, copy=True)
        if tets.min() < 0 or tets.max() >= len(nodes):
            raise InvalidInputError(
                f"tets index nodes out of range [0, {len(nodes) - 1}] "
                f"(found {tets.min()}..{tets.max()})")
        vol = signed_volumes(nodes, tets)
        edge = np.linalg.norm(nodes[tets[:, 1]] - nodes[tets[:, 0]], axis=1)
        edge_scale = max(float(np.mean(edge)), np.finfo(float).tiny)
        degenerate = np.abs(vol) <= _DEGENERATE_RELATIVE_VOLUME * edge_scale ** 3
        if np.any(degenerate):
            raise InvalidInputError(
                f"{int(degenerate.sum())} rest tets have zero volume (first: tet {int(np.argmax(degenerate))})")
        flip = vol < 0
        tets[flip, 2], tets[flip, 3] = tets[flip, 3].copy(), tets[flip, 2].copy()
        self.nodes = nodes
        self.tets = tets
        self.embedding = embedding
        self.mass_weights = _per_tet(mass_weights, len(tets), "mass_weights")
        self.stiffness_weights = _per_tet(stiffness_weights, len(tets), "stiffness_weights")
        self.report = report if report is not None else {}

    def moved(self, nodes):
        """The same mesh (tets, embedding, weights) over other rest node positions (N,3), e.g. placed or mirrored."""
        return TetMesh(nodes, self.tets, embedding=self.embedding, mass_weights=self.mass_weights,
                       report=self.report, stiffness_weights=self.stiffness_weights)

    @property
    def num_nodes(self):
        return len(self.nodes)

    @property
    def num_tets(self):
        return len(self.tets)

    @property
    def cell_size(self):
        """The mesh's cell: the edge of a cube of five of its mean rest tets (a cage's grid step; a mesh's edge
        length). Found once: the rest shape does not change."""
        if getattr(self, "_cell_size", None) is None:
            self._cell_size = float(np.cbrt(5.0 * np.abs(self.volumes()).mean()))
        return self._cell_size

    def volumes(self, nodes=None):
        """Signed volume per tet at the given node positions (the rest nodes by default)."""
        return signed_volumes(self.nodes if nodes is None else np.asarray(nodes, np.float64), self.tets)

    def __repr__(self):
        return f"TetMesh({self.num_nodes} nodes, {self.num_tets} tets)"


def _per_tet(weights, m, name):
    """A copy of `weights` as (m,) positive finite floats (ones if None); InvalidInputError naming `name` if not."""
    if weights is None:
        return np.ones(m)
    weights = np.array(weights, dtype=np.float64, copy=True)
    if weights.shape != (m,) or not np.all(np.isfinite(weights)) or np.any(weights <= 0):
        raise InvalidInputError(f"{name} must be one positive finite number per tet")
    return weights
