"""The cage's shape under the mesh's animated shape (armature, hooks, shape keys): node displacements whose embedding
reproduces the vertices' displacements, exact for any affine motion."""
import numpy as np
from scipy import sparse

from .spd_factor import factorized_spd

# The weight of the displacement gradient's jumps between face-adjacent tets (times the cage's mean edge², so both
# terms are in m²), against the vertices' fit: small, so that the vertices decide wherever they can.
SMOOTHING = 1e-3
# A pull toward no displacement, relative to the fit's largest diagonal: it fixes only what nothing else does (a
# loose part whose vertices are coplanar).
PRIOR = 1e-12


class ShapeFit:
    """Least squares min |W D − d|² + SMOOTHING h² Σ |∇D_e − ∇D_f|² over the cage's node displacements D, W the
    vertices' barycentric weights, d their displacements, the sum over face-adjacent tets e, f (∇D is constant in a
    linear tet). Both terms vanish for the affine D that moves the vertices affinely, so any affine motion (a bone
    turning the whole body) moves the cage exactly; nodes no vertex reaches (inside, in the cage's outer layer, all
    around a low-poly mesh) follow as affinely as their neighbours allow. One sparse factorization per cage
    (addon.spd_factor: 0.5 s at 9,288 nodes, 2.2 s at 20,900); a fit then takes 20 and 65 ms."""

    def __init__(self, nodes, tets, vertex_nodes, vertex_weights, edge):
        n, nv = len(nodes), len(vertex_nodes)
        self.w = sparse.csr_matrix((vertex_weights.ravel(), (np.repeat(np.arange(nv), 4), vertex_nodes.ravel())),
                                   shape=(nv, n))
        jump = _gradient_jumps(nodes, tets)
        normal = (self.w.T @ self.w + (SMOOTHING * edge * edge) * (jump.T @ jump)).tocsc()
        prior = PRIOR * max(float(normal.diagonal().max()), 1e-300)
        self.solve = factorized_spd(normal + prior * sparse.identity(n), nodes)

    def displacements(self, vertex_displacements):
        """Node displacements (N,3) for the vertices' displacements (n,3)."""
        return self.solve(self.w.T @ vertex_displacements)


def _gradient_jumps(nodes, tets):
    """Sparse J (3F, N): the rows ∇D_e − ∇D_f (3 components) of a scalar field D on the nodes, for each pair of tets
    e, f sharing a face."""
    ds = (nodes[tets[:, 1:]] - nodes[tets[:, :1]]).transpose(0, 2, 1)     # edge vectors as columns
    rows = np.linalg.inv(ds)                                              # ∇ of barycentric coordinates 1-3
    grad = np.concatenate([-rows.sum(axis=1, keepdims=True), rows], axis=1)   # (M,4,3): ∇ of each node's hat
    faces = np.sort(tets[:, [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]]].reshape(-1, 3), axis=1)
    face_id = np.unique(faces, axis=0, return_inverse=True)[1].ravel()
    order = np.argsort(face_id, kind="stable")
    same = face_id[order[1:]] == face_id[order[:-1]]
    e, f = order[:-1][same] // 4, order[1:][same] // 4
    pairs = len(e)
    r = np.broadcast_to(np.arange(3 * pairs).reshape(pairs, 3, 1), (pairs, 3, 8))   # one row per component
    c = np.concatenate([np.broadcast_to(tets[e][:, None, :], (pairs, 3, 4)),
                        np.broadcast_to(tets[f][:, None, :], (pairs, 3, 4))], axis=2)
    v = np.concatenate([grad[e].transpose(0, 2, 1), -grad[f].transpose(0, 2, 1)], axis=2)
    return sparse.csr_matrix((v.ravel(), (r.ravel(), c.ravel())), shape=(3 * pairs, len(nodes)))
