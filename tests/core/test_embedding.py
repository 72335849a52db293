"""Embedding of points in tet meshes: positions() and reaches() against an independent numpy product, embed_points() lookups."""
import numpy as np

import core
from core.geometry import Embedding, embed_points
from test_tetrahedralize import icosphere


def _grid_mesh(n=4):
    """A structured tet mesh of the unit cube (6 tets per cube), built independently of core.geometry."""
    g = np.linspace(0, 1, n + 1)
    x, y, z = np.meshgrid(g, g, g, indexing="ij")
    nodes = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    idx = np.arange((n + 1) ** 3).reshape(n + 1, n + 1, n + 1)
    tets = []
    for i in range(n):
        for j in range(n):
            for k in range(n):
                c = [idx[i + a, j + b, k + d] for d in (0, 1) for b in (0, 1) for a in (0, 1)]
                for p in ((0, 1, 3, 7), (0, 1, 5, 7), (0, 2, 3, 7), (0, 2, 6, 7), (0, 4, 5, 7), (0, 4, 6, 7)):
                    tets.append([c[q] for q in p])
    return nodes, np.array(tets)


def test_positions_matches_numpy():
    nodes, tets = _grid_mesh(3)
    rng = np.random.default_rng(0)
    tet = rng.integers(0, len(tets), 5000)
    w = rng.dirichlet([1, 1, 1, 1], 5000)
    emb = Embedding(tets, tet, w)
    moved = nodes + rng.normal(size=nodes.shape)
    ref = np.einsum("ni,nid->nd", w, moved[tets[tet]])
    np.testing.assert_allclose(emb.positions(moved), ref, rtol=1e-14, atol=1e-14)


def test_reaches_agrees_with_every_point_interpolated():
    nodes, tets = _grid_mesh(3)
    rng = np.random.default_rng(3)
    tet = rng.integers(0, len(tets[:60]), 4000)          # points hang on the first 60 tets' nodes only
    w = rng.dirichlet([1, 1, 1, 1], 4000)
    w[:50] += rng.normal(scale=0.2, size=(50, 4))        # some outside their tets (extrapolated)
    emb = Embedding(tets, tet, w)
    for k in range(40):
        v = rng.normal(size=nodes.shape) * rng.choice([1e-3, 1.0])
        if k % 3 == 0:
            v[np.setdiff1d(np.arange(len(nodes)), tets[:60])] *= 100.0   # unseen nodes must not count
        fastest = np.linalg.norm(np.einsum("ni,nid->nd", w, v[tets[tet]]), axis=1).max()
        for limit in (0.5 * fastest, fastest * (1 - 1e-9), fastest * (1 + 1e-9), 2.0 * fastest):
            assert emb.reaches(v, limit) == (fastest >= limit)


def test_embed_points_recovers_tet_and_weights():
    nodes, tets = _grid_mesh(4)
    rng = np.random.default_rng(2)
    tet = rng.integers(0, len(tets), 3000)
    w = rng.dirichlet([2, 2, 2, 2], 3000)
    pts = np.einsum("ni,nid->nd", w, nodes[tets[tet]])
    got_tet, got_w = embed_points(nodes, tets, pts)
    assert np.all(got_tet >= 0)
    np.testing.assert_allclose(np.einsum("ni,nid->nd", got_w, nodes[tets[got_tet]]), pts, atol=1e-12)
    assert got_w.min() >= -1e-12
    # interior points (away from faces) are found in exactly their own tet
    clear = w.min(axis=1) > 1e-3
    np.testing.assert_array_equal(got_tet[clear], tet[clear])
    np.testing.assert_allclose(got_w[clear], w[clear], atol=1e-12)


def test_embed_points_outside_is_minus_one():
    nodes, tets = _grid_mesh(2)
    pts = np.array([[1.5, 0.5, 0.5], [-0.1, 0.2, 0.2], [0.5, 0.5, 0.5]])
    tet, w = embed_points(nodes, tets, pts)
    np.testing.assert_array_equal(tet[:2], [-1, -1])
    assert tet[2] >= 0 and np.all(w[:2] == 0)


def test_embed_points_in_a_cage():
    v, t = icosphere(3)
    tm = core.tetrahedralize(v, t, resolution=8)
    pts = np.random.default_rng(3).uniform(-0.9, 0.9, (2000, 3)) * np.array([1, 1, 1]) / np.sqrt(3)
    tet, w = embed_points(tm.nodes, tm.tets, pts)
    assert np.all(tet >= 0)
    np.testing.assert_allclose(np.einsum("ni,nid->nd", w, tm.nodes[tm.tets[tet]]), pts, atol=1e-12)


def test_embed_points_nearest_puts_a_point_just_outside_in_the_nearest_tet_keeping_its_position():
    from core.geometry.embedding import embed_points_nearest
    nodes = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    tets = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    points = np.array([[0.1, 0.1, 0.1], [0.2, 0.2, -0.01], [0.9, 0.9, 0.9], [5.0, 5.0, 5.0]])
    tet, weights, distance = embed_points_nearest(nodes, tets, points)
    assert list(tet[:3]) == [0, 0, 1] and distance[0] == 0.0 and distance[2] == 0.0
    np.testing.assert_allclose(np.einsum("pk,pkd->pd", weights, nodes[tets[tet]]), points, atol=1e-12)
    assert weights[1].min() < 0 and 0.009 < distance[1] < 0.011          # 1 cm below the base
    assert distance[3] > 5.0                                               # far away: still a tet, a large distance
