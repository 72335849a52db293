"""A body's contact surface: render vertices embedded in the tets (or the tet mesh's boundary), samples on render
triangles larger than the tets, and the triangles over them all."""
import warnings

import numpy as np

from ..jit import njit, prange
from .colliders import closed_and_oriented, enclosed_volume
from .edges import edge_keys, unique_edges
from .refine import embed_samples, refine_to_length

# Outward faces of a positively oriented tet (a, b, c, d).
_TET_FACES = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def boundary_faces(tets):
    """Outward-oriented faces (k,3) that belong to exactly one tet."""
    faces = tets[:, _TET_FACES].reshape(-1, 3)
    keys = np.sort(faces, axis=1)
    _, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    return faces[counts[inverse.ravel()] == 1]


class BodySurface:
    """Contact points of one body as (P,4) node ids (−1 = unused) and barycentric weights, plus triangles over the points.

    With an embedding, the points are the render vertices and the triangles the render triangles
    (`mesh.embedding.triangles`), split where they are longer than the tets' median edge (the new vertices,
    embedded in the tets that hold them, follow after the render vertices): a coarse surface (a cube's 12
    triangles) touching with its corners alone would carry its whole load on the few tets at its corners, which
    a soft material cannot (a default cube crushed its corners and slid down a slope at any friction). Without
    an embedding, the tet mesh's boundary nodes and faces. `edges`: the render edges (as the user sees them,
    not split), then the pieces the split ones were cut into; `collider_edges` (bool, per edge): the pieces and
    the render edges not split, which edge rows hold off colliders' sharp edges (each piece's ends follow the
    cage, so a coarse body bends over a table's edge: with its render edges, straight from end to end, a 1 m bar
    of 8 vertices drooped 0.3 mm over it, subdivided 30 mm); other bodies' sharp edges meet the render edges
    (core.contact.body_edges). `render_triangles`, over the first `num_render_points` points: the render
    triangles, not split.
    """

    def __init__(self, mesh, friction, name):
        emb = mesh.embedding
        self.self_collision = False   # set with self_excluded by ContactStage.add_body
        self.self_excluded = None
        self.name = name
        self.friction = float(friction)
        if emb is not None:
            self.nodes = np.ascontiguousarray(emb.point_nodes, dtype=np.int64)
            self.weights = np.ascontiguousarray(emb.weights, dtype=np.float64)
            tris = getattr(emb, "triangles", None)
            if tris is None:
                warnings.warn(f"{name}: the embedding has no render triangles; it collides with colliders "
                              "but not with other soft bodies", stacklevel=3)
                tris = np.zeros((0, 3), np.int64)
            tris = np.ascontiguousarray(tris, dtype=np.int64).reshape(-1, 3)
            self.render_triangles, self.num_render_points = tris, len(emb.tet)
            rest = point_positions(mesh.nodes, self.nodes, self.weights, 0.0, mesh.nodes)
            samples, parents, tris, pieces = refine_to_length(rest, tris, median_edge(mesh.nodes, mesh.tets))
            self.sample_parents = parents
            self.edges, self.collider_edges = render_edges_and_pieces(unique_edges(self.render_triangles), pieces)
            if len(samples):
                tet, weights = embed_samples(mesh.nodes, mesh.tets, samples, parents, emb.tet)
                self.nodes = np.ascontiguousarray(np.concatenate([self.nodes, mesh.tets[tet]]), dtype=np.int64)
                self.weights = np.ascontiguousarray(np.concatenate([self.weights, weights]))
            self.triangles = tris
        else:
            faces = boundary_faces(mesh.tets)
            ids, local = np.unique(faces, return_inverse=True)
            self.nodes = np.full((len(ids), 4), -1, np.int64)
            self.nodes[:, 0] = ids
            self.weights = np.zeros((len(ids), 4))
            self.weights[:, 0] = 1.0
            self.triangles = local.reshape(-1, 3).astype(np.int64)
            self.edges = unique_edges(self.triangles)
            self.collider_edges = np.ones(len(self.edges), bool)
            self.render_triangles, self.num_render_points = self.triangles, len(ids)
            self.sample_parents = np.zeros((0, 2), np.int64)
        rest = point_positions(mesh.nodes, self.nodes, self.weights, 0.0, mesh.nodes)
        self.rest = rest
        self.closed = closed_and_oriented(rest, self.triangles)
        if self.closed and enclosed_volume(rest, self.triangles) < 0:
            self.triangles = self.triangles[:, [0, 2, 1]].copy()
            self.render_triangles = self.render_triangles[:, [0, 2, 1]].copy()

    def undrawn_bend(self, x):
        """How far (m) the surface at node positions x is from where the render triangles draw it: the largest
        distance from a sample on a render triangle (refine_to_length: the midpoint of its parent edge) to that
        midpoint on the flat triangles between the render vertices; 0 without samples. A coarse render surface bent
        by the cage is drawn flat: a 2 m slab of 8 vertices draped over a ball is drawn passing through it."""
        if not len(self.sample_parents):
            return 0.0
        return _midpoint_gap(point_positions(x, self.nodes, self.weights, 0.0, x), self.sample_parents,
                             self.num_render_points)

    def __len__(self):
        return len(self.nodes)


def render_edges_and_pieces(render, pieces):
    """The render edges (r,2) then the pieces (sorted pairs) that are not render edges, and which of those are
    used against colliders: every piece (a render edge not split is a piece of its own)."""
    render_keys, piece_keys = edge_keys(render), edge_keys(pieces)
    new = ~np.isin(piece_keys, render_keys)
    edges = np.ascontiguousarray(np.concatenate([render, pieces[new]]), dtype=np.int64)
    return edges, np.concatenate([np.isin(render_keys, piece_keys), np.ones(int(new.sum()), bool)])


def median_edge(nodes, tets):
    """The median length of the tets' edges."""
    pairs = tets[:, [0, 0, 0, 1, 1, 2]], tets[:, [1, 2, 3, 2, 3, 3]]
    return float(np.median(np.linalg.norm(nodes[pairs[0]] - nodes[pairs[1]], axis=2)))


@njit(cache=True, inline="always")
def embed(x, nodes, weights, dt, v, i, out, row):
    """out[row] = point i's Σ w (x_j + dt v_j)."""
    a0 = a1 = a2 = 0.0
    for s in range(nodes.shape[1]):
        j = nodes[i, s]
        if j >= 0:
            w = weights[i, s]
            a0 += w * (x[j, 0] + dt * v[j, 0])
            a1 += w * (x[j, 1] + dt * v[j, 1])
            a2 += w * (x[j, 2] + dt * v[j, 2])
    out[row, 0], out[row, 1], out[row, 2] = a0, a1, a2


@njit(cache=True, inline="always")
def embed_swept(x, nodes, weights, dt, v, i, p0, p1, row):
    """p0[row], p1[row] = point i at the start and the end of the motion x + dt v (as embed with 0 and dt)."""
    a0 = a1 = a2 = b0 = b1 = b2 = 0.0
    for s in range(nodes.shape[1]):
        j = nodes[i, s]
        if j >= 0:
            w = weights[i, s]
            a0 += w * (x[j, 0] + 0.0 * v[j, 0])
            a1 += w * (x[j, 1] + 0.0 * v[j, 1])
            a2 += w * (x[j, 2] + 0.0 * v[j, 2])
            b0 += w * (x[j, 0] + dt * v[j, 0])
            b1 += w * (x[j, 1] + dt * v[j, 1])
            b2 += w * (x[j, 2] + dt * v[j, 2])
    p0[row, 0], p0[row, 1], p0[row, 2] = a0, a1, a2
    p1[row, 0], p1[row, 1], p1[row, 2] = b0, b1, b2


@njit(cache=True, parallel=True)
def point_positions(x, nodes, weights, dt, v):
    """Points Σ w x_j (dt = 0) or predicted Σ w (x_j + dt v_j) for node positions x, velocities v."""
    n = nodes.shape[0]
    out = np.empty((n, 3))
    for i in prange(n):
        embed(x, nodes, weights, dt, v, i, out, i)
    return out


@njit(cache=True)
def _midpoint_gap(points, parents, n0):
    """The largest distance from point n0 + k to the midpoint of its parent edge parents[k] as drawn, where a
    parent that is itself a sample is drawn at its own parents' midpoint (samples come after their parents)."""
    drawn = points.copy()
    gap = 0.0
    for k in range(parents.shape[0]):
        i = n0 + k
        for d in range(3):
            drawn[i, d] = 0.5 * (drawn[parents[k, 0], d] + drawn[parents[k, 1], d])
        gap = max(gap, np.sqrt((points[i, 0] - drawn[i, 0]) ** 2 + (points[i, 1] - drawn[i, 1]) ** 2
                               + (points[i, 2] - drawn[i, 2]) ** 2))
    return gap


@njit(cache=True, parallel=True)
def swept_positions(ids, x, nodes, weights, dt, v, p0, p1):
    """Points ids at the start (p0) and the end (p1) of the motion x + dt v, in rows ids of p0 and p1 (repeated
    ids are fine)."""
    for k in prange(ids.shape[0]):
        embed_swept(x, nodes, weights, dt, v, ids[k], p0, p1, ids[k])
