"""Runtime data of one soft body in a session: cage, embedding, pins (the pin fit, the goals) and per-node averages."""
import numpy as np

from . import bridge
from .dependencies import load_core
from .scene_settings import body_key, material
from .shape_fit import ShapeFit
from .spd_factor import factorized_spd

# A pin weight this high holds its vertex exactly (a goal's stiffness w / (1 − w) would be past 1000× that of 0.5).
HARD_PIN = 0.999


def centre_of_mass(x, tm):
    """Centre of mass of a cage at node positions x (uniform density, tets weighted by volume and mass weight)."""
    a, b, c, d = (x[tm.tets[:, k]] for k in range(4))
    vol = np.abs(np.einsum("ij,ij->i", b - a, np.cross(c - a, d - a))) / 6.0
    w = vol * (tm.mass_weights if tm.mass_weights is not None else 1.0)
    return (w[:, None] * (a + b + c + d) / 4.0).sum(axis=0) / w.sum()


class Body:
    """Runtime data of one soft body: its cage, embedding and pin mapping (no bpy references kept)."""

    def __init__(self, obj, tm):
        self.key = body_key(obj)   # what the cache files know it by
        self.name = obj.name       # its object's name (followed through renames: Session.follow_renames)
        self.tm = tm
        self.basis = bridge.read_vertices(obj.data)
        self.embedding = tm.embedding
        self.handle = None
        self.edge = None   # the cage's mean edge length in world space (m), set with the World
        self.pinned = np.zeros(0, np.int64)
        self.pin_vertices = None
        self.pin_fit = None
        self.goal_frequency = None   # per node (Hz) of the pin group's lighter weights, None without any
        self._pins_read = False
        self.goal_poses = {}         # frame -> the goals' world targets (the animated pose) at that frame
        self._shape_fit = None
        self._gauge = None           # (shear modulus, core.StrainGauge) of Output Strain
        self._cage_edges = None      # the overlay's cage edges
        if self.embedding is not None:
            self.vertex_nodes = self.embedding.point_nodes
            self.vertex_weights = self.embedding.weights
        else:  # conforming mesh without an embedding: every vertex is its own node
            idx = np.arange(tm.num_nodes)
            self.vertex_nodes = np.stack([idx] * 4, axis=1)
            self.vertex_weights = np.tile([1.0, 0.0, 0.0, 0.0], (tm.num_nodes, 1))

    def shape_fit(self):
        """The cage's ShapeFit (factorized when first asked for)."""
        if self._shape_fit is None:
            self._shape_fit = ShapeFit(self.tm.nodes, self.tm.tets, self.vertex_nodes, self.vertex_weights,
                                       load_core().geometry.quality.mean_edge(self.tm.nodes, self.tm.tets))
        return self._shape_fit

    def strain_gauge(self, core, obj, rest):
        """The core.StrainGauge of the cage at its rest node positions `rest` (the start frame's, the simulation's
        rest shape) for the material's shear modulus now (made again when an animated Young's modulus changes it),
        with the stiffness group's scale."""
        mu = material(core, obj).shear_modulus
        if self._gauge is None or self._gauge[0] != mu:
            scale = self.stiffness_scale(obj)
            self._gauge = (mu, core.StrainGauge(self.tm.moved(rest), mu * (1.0 if scale is None else scale)))
        return self._gauge[1]

    def cage_edges(self):
        """(E,2) the cage's edges, each once, and (6M,) the order that sorts the tets' six edge slots (tet-major) by
        edge, with (E,) where each edge's slots start in it (for per-edge reductions of per-tet values)."""
        if self._cage_edges is None:
            tets = self.tm.tets
            pairs = np.sort(tets[:, [0, 0, 0, 1, 1, 2, 1, 2, 3, 2, 3, 3]].reshape(-1, 2, 6).transpose(0, 2, 1)
                            .reshape(-1, 2), axis=1)
            edges, inverse = np.unique(pairs, axis=0, return_inverse=True)
            order = np.argsort(inverse.ravel(), kind="stable")
            starts = np.searchsorted(inverse.ravel()[order], np.arange(len(edges)))
            self._cage_edges = (edges, order, starts)
        return self._cage_edges

    def node_average(self, vertex_values):
        """Per-node barycentric-weighted average of per-vertex values (n,), and the weight sums."""
        n = self.tm.num_nodes
        flat, w = self.vertex_nodes.ravel(), self.vertex_weights
        total = np.bincount(flat, weights=w.ravel(), minlength=n)
        sums = np.bincount(flat, weights=(w * np.asarray(vertex_values, np.float64)[:, None]).ravel(), minlength=n)
        return sums / np.maximum(total, 1e-300), total

    def read_pins(self, obj):
        """Set pinned, pin_vertices, goal_frequency and pin_fit from the object's pin group, once: an edit of the
        group's weights or of Pin Spring changes the scene's signature, which builds the bodies again."""
        if self._pins_read:
            return
        self.pinned, self.pin_vertices, self.goal_frequency = self.pins(obj)
        self.pin_fit = PinFit(self) if len(self.pinned) else None
        self._pins_read = True

    def pins(self, obj):
        """Pinned cage nodes (those of the tets holding pin-group vertices of weight >= HARD_PIN), the vertex mask,
        and per node the goal frequency (Hz) of lighter weights, None without any (Blender's Soft Body goal): a
        node of weight w (its vertices' barycentric average, spread inward to nodes no vertex touches) is pulled
        toward its place in the animated shape at f √(w / (1 − w)), f the Pin Spring setting."""
        name = obj.softfem.pin_group
        if not name:
            return np.zeros(0, np.int64), None, None
        try:
            weights = np.clip(bridge.group_weights(obj, name), 0.0, 1.0)
        except KeyError:
            raise RuntimeError(f"pin group '{name}' not found on '{obj.name}'") from None
        mask = weights >= HARD_PIN
        touched = np.zeros(self.tm.num_nodes, bool)
        touched[self.vertex_nodes[mask][self.vertex_weights[mask] > 1e-9]] = True
        if not np.any((weights > 0.0) & ~mask):
            return np.flatnonzero(touched), mask, None
        w, total = self.node_average(weights)
        fill_unknown(w, total > 0, self.tm.tets, 0.0)
        w = np.where(touched, 0.0, np.minimum(w, HARD_PIN))
        return np.flatnonzero(touched), mask, obj.softfem.pin_spring * np.sqrt(w / (1.0 - w))

    def stiffness_scale(self, obj):
        """Per-tet factor on Young's modulus from the stiffness group (floor 1 %)."""
        name = obj.softfem.stiffness_group
        if not name:
            return None
        try:
            weights = bridge.group_weights(obj, name)
        except KeyError:
            raise RuntimeError(f"stiffness group '{name}' not found on '{obj.name}'") from None
        node_w, total = self.node_average(weights)
        fill_unknown(node_w, total > 0, self.tm.tets, 1.0)
        return np.clip(node_w[self.tm.tets].mean(axis=1), 0.01, 1.0)

    def render_positions(self, x):
        """Render vertex positions for node positions x (world or local: interpolation is affine-invariant)."""
        return self.embedding.positions(x) if self.embedding is not None else np.asarray(x)


def fill_unknown(values, known, tets, default):
    """Give nodes without a value (cage nodes no mesh vertex touches) the mean of their tets' known nodes,
    spreading inward pass by pass; nodes never reached get `default`. values: (N,) or (N,k), in place."""
    n = len(values)
    cols = values.reshape(n, -1)
    flat = tets.ravel()
    for _ in range(n):
        if known.all():
            break
        in_tet = known[tets]
        counts = np.bincount(flat, weights=np.repeat(in_tet.sum(axis=1), 4), minlength=n)
        new = ~known & (counts > 0)
        if not new.any():
            break
        for c in range(cols.shape[1]):
            tet_sum = np.where(in_tet, cols[:, c][tets], 0.0).sum(axis=1)
            sums = np.bincount(flat, weights=np.repeat(tet_sum, 4), minlength=n)
            cols[new, c] = sums[new] / counts[new]
        known |= new
    cols[~known] = default


class PinFit:
    """Pinned node positions whose embedding best reproduces given pinned-vertex positions: least squares
    min |W X - T|^2 + eps |X - X_avg|^2 (W: barycentric weights of pinned vertices on pinned nodes; the small
    pull toward the averaged displacement fixes nodes the vertices leave free). Exact for rigid motion."""

    def __init__(self, body):
        from scipy import sparse
        self.body = body
        self.rows = np.flatnonzero(body.pin_vertices)
        local = np.full(body.tm.num_nodes, -1, np.int64)
        local[body.pinned] = np.arange(len(body.pinned))
        cols = local[body.vertex_nodes[self.rows]]
        self.weights = np.where(cols >= 0, body.vertex_weights[self.rows], 0.0)
        self.cols = np.maximum(cols, 0)
        k = len(body.pinned)
        r = np.repeat(np.arange(len(self.rows)), 4)
        self.W = sparse.csr_matrix((self.weights.ravel(), (r, self.cols.ravel())), shape=(len(self.rows), k))
        self.total = np.maximum(np.bincount(self.cols.ravel(), weights=self.weights.ravel(), minlength=k), 1e-300)
        self.rest = body.tm.nodes[body.pinned]
        normal = (self.W.T @ self.W).tocsc()
        self.eps = 1e-9 * max(float(normal.diagonal().max()), 1e-300)
        self.solve = factorized_spd(normal + self.eps * sparse.identity(k), self.rest)

    def nodes(self, driven):
        """Local positions of the pinned nodes for the mesh's animated local vertex positions `driven`."""
        targets = driven[self.rows]
        disp = targets - self.body.basis[self.rows]
        flat = self.cols.ravel()
        prior = self.rest + np.stack([np.bincount(flat, weights=(self.weights * disp[:, c:c + 1]).ravel(),
                                                  minlength=len(self.rest)) for c in range(3)], axis=1) \
            / self.total[:, None]
        return self.solve(self.W.T @ targets + self.eps * prior)
