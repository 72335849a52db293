"""Cage-mode tetrahedralization of the shared real-world models and of analytic shapes."""
import os

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

import core
from core.errors import InvalidInputError
from core.geometry.obj import load_obj
from core.geometry.quality import CAGE_QUALITY_BOUND
from core.geometry.tetrahedralize import TET_BUDGET

MODELS = ["spot", "cow", "homer", "stanford-bunny", "teapot", "suzanne"]
MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "models")
needs_models = pytest.mark.skipif(not os.path.isdir(MODELS_DIR), reason="shared models folder absent")


def _model(name):
    return load_obj(os.path.join(MODELS_DIR, name + ".obj"))


def icosphere(subdiv=2, radius=1.0, center=(0.0, 0.0, 0.0)):
    """Outward-oriented icosphere (independent of the code under test)."""
    p = (1 + 5 ** 0.5) / 2
    v = [(-1, p, 0), (1, p, 0), (-1, -p, 0), (1, -p, 0), (0, -1, p), (0, 1, p), (0, -1, -p), (0, 1, -p),
         (p, 0, -1), (p, 0, 1), (-p, 0, -1), (-p, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6),
         (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
         (8, 6, 7), (9, 8, 1)]
    v = [np.array(x, float) / np.linalg.norm(x) for x in v]
    for _ in range(subdiv):
        cache, nf = {}, []
        for a, b, c in f:
            m = []
            for i, j in ((a, b), (b, c), (c, a)):
                key = (min(i, j), max(i, j))
                if key not in cache:
                    x = v[i] + v[j]
                    v.append(x / np.linalg.norm(x))
                    cache[key] = len(v) - 1
                m.append(cache[key])
            nf += [(a, m[0], m[2]), (b, m[1], m[0]), (c, m[2], m[1]), (m[0], m[1], m[2])]
        f = nf
    return np.array(v) * radius + np.asarray(center), np.array(f, dtype=np.int64)


def box(lo, hi):
    """Outward-oriented axis-aligned box, 12 triangles."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    v = np.array([[(hi if (c >> d) & 1 else lo)[d] for d in range(3)] for c in range(8)])
    f = np.array([(0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6), (0, 1, 5), (0, 5, 4),
                  (2, 6, 7), (2, 7, 3), (0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5)])
    return v, f


def check_cage(tm, vertices):
    assert isinstance(tm, core.TetMesh)
    assert np.all(tm.volumes() > 0)
    emb = tm.embedding
    assert emb.tet.shape == (len(vertices),) and emb.weights.shape == (len(vertices), 4)
    assert emb.weights.min() >= -1e-9 and emb.weights.max() <= 1 + 1e-9
    np.testing.assert_allclose(emb.weights.sum(axis=1), 1.0, atol=1e-12)
    scale = np.ptp(vertices, axis=0).max()
    # unit coordinates are snapped to 2^-32 of the size (scale invariance), hence 1e-9
    np.testing.assert_allclose(emb.positions(tm.nodes), vertices, atol=1e-9 * scale)
    ref = np.einsum("ni,nid->nd", emb.weights, tm.nodes[tm.tets[emb.tet]])  # through the TetMesh's own tets
    np.testing.assert_allclose(ref, vertices, atol=1e-9 * scale)
    assert np.all(tm.mass_weights > 0)
    q = tm.report["quality_min"]
    assert q >= CAGE_QUALITY_BOUND
    # independent quality: 6*sqrt(2)*V / l_rms^3 from the test's own formula
    p = tm.nodes[tm.tets]
    vol = np.einsum("ij,ij->i", p[:, 1] - p[:, 0], np.cross(p[:, 2] - p[:, 0], p[:, 3] - p[:, 0])) / 6
    l2 = sum(((p[:, i] - p[:, j]) ** 2).sum(axis=1) for i in range(4) for j in range(i + 1, 4)) / 6
    assert np.isclose((6 * np.sqrt(2) * vol / l2 ** 1.5).min(), q)


def cage_components(tm):
    """Connected components of the cage (tets sharing a node), computed with scipy."""
    m = tm.num_tets
    inc = sp.csr_matrix((np.ones(4 * m), (np.repeat(np.arange(m), 4), tm.tets.ravel())), shape=(m, tm.num_nodes))
    return connected_components(inc.T @ inc)[1]


def surface_components(vertices, triangles):
    """Connected components of the surface after welding equal positions (scipy)."""
    _, weld = np.unique(vertices, axis=0, return_inverse=True)
    w = weld.reshape(-1)[triangles]
    e = np.concatenate([w[:, [0, 1]], w[:, [1, 2]]])
    n = w.max() + 1
    labels = connected_components(sp.csr_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n)),
                                  directed=False)[1]
    return labels[weld.reshape(-1)]


def points_in_cage(tm, points, tol=1e-9):
    """Brute force: is each point inside (or on) some tet of the cage?"""
    p = tm.nodes[tm.tets]
    t_inv = np.linalg.inv(np.stack([p[:, 1] - p[:, 0], p[:, 2] - p[:, 0], p[:, 3] - p[:, 0]], axis=2))
    inside = np.zeros(len(points), bool)
    for start in range(0, len(points), 256):
        x = points[start:start + 256]
        b = np.einsum("tij,ktj->kti", t_inv, x[:, None, :] - p[None, :, 0])
        bary = np.concatenate([1 - b.sum(axis=2, keepdims=True), b], axis=2)
        inside[start:start + 256] = np.any(bary.min(axis=2) >= -tol, axis=1)
    return inside


@needs_models
@pytest.mark.parametrize("name", MODELS)
def test_shared_models_all_resolutions(name):
    v, t = _model(name)
    surface_label = surface_components(v, t)
    referenced = np.unique(t)
    for res in (4, 8, 16, 32):
        tm = core.tetrahedralize(v, t, resolution=res)
        check_cage(tm, v)
        rep = tm.report
        assert rep["tets"] == tm.num_tets and rep["nodes"] == tm.num_nodes
        assert rep["cage_volume"] >= rep["mesh_volume"] > 0
        np.testing.assert_allclose((tm.volumes() * tm.mass_weights).sum(), rep["mesh_volume"], rtol=1e-9)
        # parts that are connected in the surface stay connected in the cage (the feature split never tears them)
        cage_label = cage_components(tm)[tm.tets[tm.embedding.tet[referenced], 0]]
        pairs = np.unique(np.stack([surface_label[referenced], cage_label], axis=1), axis=0)
        assert len(pairs) == len(np.unique(pairs[:, 0]))
        if res == 8:
            again = core.tetrahedralize(v, t, resolution=res)
            assert np.array_equal(again.nodes, tm.nodes) and np.array_equal(again.tets, tm.tets)
            assert np.array_equal(again.embedding.weights, tm.embedding.weights)


@needs_models
def test_deterministic_bit_for_bit():
    v, t = _model("suzanne")
    a = core.tetrahedralize(v, t, resolution=16)
    b = core.tetrahedralize(v.copy(), t.copy(), resolution=16)
    assert np.array_equal(a.nodes, b.nodes) and np.array_equal(a.tets, b.tets)
    assert np.array_equal(a.embedding.tet, b.embedding.tet)
    assert np.array_equal(a.embedding.weights, b.embedding.weights)
    assert np.array_equal(a.mass_weights, b.mass_weights)


def test_sphere_mass_equals_enclosed_volume():
    v, t = icosphere(4, radius=0.3)
    tm = core.tetrahedralize(v, t, resolution=10)
    check_cage(tm, v)
    # independent reference: divergence theorem on the test's own sphere
    p = v[t]
    ref = np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6
    np.testing.assert_allclose((tm.volumes() * tm.mass_weights).sum(), ref, rtol=1e-9)
    assert tm.report["closed"]
    # the cage is tight: every tet is within one cell diagonal of the sphere
    centroids = tm.nodes[tm.tets].mean(axis=1)
    assert np.linalg.norm(centroids, axis=1).max() < 0.3 + np.sqrt(3) * tm.report["cell_size"]


def test_closed_mesh_volume_and_report():
    v, t = icosphere(3, radius=2.0)
    tm = core.tetrahedralize(v, t, resolution=8)
    rep = tm.report
    for key in ("nodes", "tets", "quality_min", "quality_mean", "min_dihedral_deg", "slivers", "mesh_volume",
                "cage_volume", "seconds", "split_tets", "relaxed_moves"):
        assert key in rep
    assert rep["closed"] and rep["slivers"] == 0 and rep["split_tets"] == 0 and rep["duplicated_nodes"] == 0
    assert rep["min_dihedral_deg"] > 5.0


@pytest.mark.parametrize("scale", [1e-3, 0.37, 1e4])
def test_scale_and_translation_invariance(scale):
    v, t = icosphere(3, radius=0.5, center=(0.1, 0.2, 0.3))
    ref = core.tetrahedralize(v, t, resolution=10)
    offset = np.array([3.0, -2.0, 7.0]) * scale
    tm = core.tetrahedralize(v * scale + offset, t, resolution=10)
    assert np.array_equal(tm.tets, ref.tets)
    assert np.array_equal(tm.embedding.tet, ref.embedding.tet)
    np.testing.assert_allclose((tm.nodes - offset) / scale, ref.nodes, atol=1e-12)
    np.testing.assert_allclose(tm.embedding.weights, ref.embedding.weights, atol=1e-12)
    np.testing.assert_allclose(tm.mass_weights, ref.mass_weights, rtol=1e-12)


@needs_models
def test_model_scale_invariance():
    v, t = _model("suzanne")
    ref = core.tetrahedralize(v, t, resolution=12)
    for scale in (1e-3, 1e4):
        tm = core.tetrahedralize(v * scale, t, resolution=12)
        assert np.array_equal(tm.tets, ref.tets)
        np.testing.assert_allclose(tm.nodes / scale, ref.nodes, rtol=1e-12, atol=1e-12 * np.abs(ref.nodes).max())


def test_relaxation_shrinks_cage_and_keeps_surface_inside():
    v, t = icosphere(3, radius=1.0)
    from core.geometry.cage import build_cage
    from core.geometry.meshinput import SurfaceMesh
    loose = build_cage(SurfaceMesh(v, t), 8, relax_passes=0)[5]["cage_volume_unit"]
    tm = core.tetrahedralize(v, t, resolution=8)
    assert tm.report["relaxed_moves"] > 0
    assert tm.report["cage_volume"] < 0.95 * loose * 2.0 ** 3  # unit coordinates: the sphere's side is 2
    check_cage(tm, v)
    # every point of every triangle is still inside the cage: random points on the triangles, and the edges' midpoints
    rng = np.random.default_rng(0)
    b = rng.dirichlet([1, 1, 1], size=(len(t), 3))
    pts = np.einsum("tsk,tkd->tsd", b, v[t]).reshape(-1, 3)
    mids = 0.5 * (v[t] + v[t[:, [1, 2, 0]]]).reshape(-1, 3)
    assert np.all(points_in_cage(tm, np.concatenate([pts, mids])))


@needs_models
@pytest.mark.parametrize("name", ["suzanne", "teapot"])
def test_relaxed_cage_contains_real_surfaces(name):
    v, t = _model(name)
    tm = core.tetrahedralize(v, t, resolution=8)
    assert tm.report["relaxed_moves"] > 0
    b = np.random.default_rng(1).dirichlet([1, 1, 1], size=(len(t), 2))
    pts = np.einsum("tsk,tkd->tsd", b, v[t]).reshape(-1, 3)
    mids = 0.5 * (v[t] + v[t[:, [1, 2, 0]]]).reshape(-1, 3)
    assert np.all(points_in_cage(tm, np.concatenate([pts, mids])))


def _fingers(gap):
    """A palm with two fingers separated by `gap`, as three overlapping boxes (a self-intersecting union)."""
    parts = [box([0, 0, 0], [0.62, 0.3, 0.4]), box([0, 0, 0.3], [0.3, 0.3, 2.0]),
             box([0.3 + gap, 0, 0.3], [0.6 + gap, 0.3, 2.0])]
    v = np.concatenate([p[0] for p in parts])
    t = np.concatenate([p[1] + 8 * i for i, p in enumerate(parts)])
    return v, t


@pytest.mark.parametrize("relax", [False, True])
def test_feature_split_separates_fingers_but_keeps_hand_connected(relax):
    v, t = _fingers(0.04)
    tm = core.tetrahedralize(v, t, resolution=8, relax=relax)  # cell 0.25: the 0.04 gap is inside one cell
    check_cage(tm, v)
    tip_a, tip_b = 8 + np.flatnonzero(v[8:16, 2] == 2.0), 16 + np.flatnonzero(v[16:24, 2] == 2.0)
    nodes_a = np.unique(tm.tets[tm.embedding.tet[tip_a]])
    nodes_b = np.unique(tm.tets[tm.embedding.tet[tip_b]])
    if not relax:
        # the grid glues the fingertips: their tets have nodes at the same positions ...
        pos_a = {tuple(np.round(p, 9)) for p in tm.nodes[nodes_a]}
        pos_b = {tuple(np.round(p, 9)) for p in tm.nodes[nodes_b]}
        assert pos_a & pos_b
    # ... but the cage does not: no shared node, while the whole hand stays one connected cage
    assert not set(nodes_a) & set(nodes_b)
    assert tm.report["split_tets"] > 0 and tm.report["duplicated_nodes"] > 0
    labels = cage_components(tm)
    assert len(np.unique(labels)) == 1
    # each finger's cage is its own: the fingertips are not connected through the cage above the palm (top z=0.4)
    upper = tm.nodes[tm.tets][:, :, 2].min(axis=1) > 1.0
    sub = tm.tets[upper]
    inc = sp.csr_matrix((np.ones(sub.size), (np.repeat(np.arange(len(sub)), 4), sub.ravel())),
                        shape=(len(sub), tm.num_nodes))
    lab = connected_components(inc @ inc.T)[1]
    where = {i: k for k, i in enumerate(np.flatnonzero(upper))}
    assert lab[where[tm.embedding.tet[tip_a[0]]]] != lab[where[tm.embedding.tet[tip_b[0]]]]


@needs_models
@pytest.mark.parametrize("res", [12, 16, "auto"])
def test_suzanne_ears_get_their_own_nodes(res):
    v, t = _model("suzanne")
    tm = core.tetrahedralize(v, t, resolution=res, relax=False)
    pos, counts = np.unique(np.round(tm.nodes, 9), axis=0, return_counts=True)
    lo, hi = v.min(axis=0), v.max(axis=0)
    x = (pos[counts > 1, 0] - lo[0]) / (hi[0] - lo[0])  # duplicated grid nodes, across the width (x)
    # the ears are the two ends of the width: the grid glues each ear to the side of the head, the split undoes it
    assert np.any(x < 0.2) and np.any(x > 0.8)


def test_degenerate_input_still_gives_a_valid_cage():
    v, t = icosphere(2)
    ref = (v[t][:, 0] * np.cross(v[t][:, 1], v[t][:, 2])).sum() / 6
    soup = v[t].reshape(-1, 3)  # every triangle with its own (duplicate) vertices
    extra = np.array([[0.0, 0.0, 0.0], [0.2, 0.1, 0.0], [1.6, 1.6, 1.6]])  # unreferenced: inside and outside
    vv = np.concatenate([soup, extra])
    tt = np.concatenate([np.arange(len(soup)).reshape(-1, 3), [[0, 0, 1], [0, 1, 1], [3, 4, 4]]])  # zero-area
    tm = core.tetrahedralize(vv, tt, resolution=8)
    check_cage(tm, vv)
    assert tm.report["closed"]
    np.testing.assert_allclose((tm.volumes() * tm.mass_weights).sum(), ref, rtol=1e-9)
    inverted = core.tetrahedralize(v, t[:, ::-1], resolution=8)
    np.testing.assert_allclose((inverted.volumes() * inverted.mass_weights).sum(), ref, rtol=1e-9)


def test_open_mesh_volume_is_the_winding_estimate():
    v, t = icosphere(3)
    keep = v[t].mean(axis=1)[:, 2] < 0.9  # cut a cap off: an open bowl, nearly the ball
    tm = core.tetrahedralize(v, t[keep], resolution=12)
    check_cage(tm, v)
    assert not tm.report["closed"]
    ball = 4 / 3 * np.pi
    assert 0.85 * ball < (tm.volumes() * tm.mass_weights).sum() < 1.05 * ball


@pytest.mark.parametrize("vertices, triangles, message", [
    (np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0.0]]), np.array([[0, 1, 2], [0, 2, 3]]), "no volume"),
    (np.array([[0, 0, 0], [1, 0, 0.3], [1, 1, 0.5], [0, 1, 0.2]]), np.array([[0, 1, 2], [0, 2, 3]]), "no volume"),
    (np.zeros((3, 3)), np.array([[0, 1, 2]]), "no volume"),
    (np.array([[0, 0, np.nan], [1, 0, 0], [0, 1, 0]]), np.array([[0, 1, 2]]), "NaN"),
    (np.zeros((0, 3)), np.zeros((0, 3), int), "shape"),
    (np.eye(3), np.zeros((0, 3), int), "shape"),
    (np.eye(3), np.array([[0, 1, 2, 0]]), "triangulate"),
    (np.eye(3), np.array([[0, 1, 3]]), "out of range"),
    (np.eye(3), np.array([[0.0, 1.0, 2.0]]), "integer"),
])
def test_bad_input_raises_clear_error(vertices, triangles, message):
    with pytest.raises(InvalidInputError, match=message):
        core.tetrahedralize(vertices, triangles)


def test_no_volume_message_and_bad_arguments():
    g = np.linspace(0, 1, 15)
    x, y = np.meshgrid(g, g)
    sheet = np.stack([x.ravel(), y.ravel(), 0.1 * np.sin(3 * x.ravel())], axis=1)  # a curved open sheet
    idx = np.arange(225).reshape(15, 15)
    q = np.stack([idx[:-1, :-1].ravel(), idx[1:, :-1].ravel(), idx[1:, 1:].ravel(), idx[:-1, 1:].ravel()], axis=1)
    with pytest.raises(InvalidInputError) as err:
        core.tetrahedralize(sheet, np.concatenate([q[:, [0, 1, 2]], q[:, [0, 2, 3]]]))
    assert str(err.value).startswith("no volume: SoftFEM simulates solids; give the mesh thickness (extrude it, or add "
                                     "a Solidify modifier and apply it)")
    v, t = icosphere(1)
    with pytest.raises(InvalidInputError, match="mode"):
        core.tetrahedralize(v, t, mode="voxels")
    for res in (0, 2.5, 10_000):
        with pytest.raises(InvalidInputError, match="resolution"):
            core.tetrahedralize(v, t, resolution=res)


def test_cell_size_alternative_to_resolution():
    v, t = icosphere(2, radius=0.5)  # longest side 1.0
    by_res = core.tetrahedralize(v, t, resolution=8)
    by_size = core.tetrahedralize(v, t, cell_size=0.125)
    assert by_size.report["resolution"] == 8 and np.array_equal(by_size.tets, by_res.tets)
    assert core.tetrahedralize(v, t, cell_size=0.3).report["resolution"] == 4  # ceil(1 / 0.3)
    for bad in (0.0, -1.0, float("nan"), 1e-6):
        with pytest.raises(InvalidInputError, match="cell_size"):
            core.tetrahedralize(v, t, cell_size=bad)


@pytest.mark.parametrize("mesh", ["sphere", "cube", "plank", "bar"])
def test_auto_resolution_is_the_finest_cage_within_the_tet_budget_whatever_the_size(mesh):
    # the Auto cage of a bulky body (count ~ r³), a plank and a bar (~ r² and ~ r while one cell thick): the finest
    # resolution within the budget (one more passes it), the same at 5 cm and 20 m
    v, t = {"sphere": icosphere(2), "cube": box((-1, -1, -1), (1, 1, 1)), "plank": box((0, 0, 0), (2, 1, 0.04)),
            "bar": box((0, 0, 0), (1, 0.1, 0.1))}[mesh]
    auto = core.tetrahedralize(v, t, resolution="auto")
    r = auto.report["resolution"]
    assert auto.report["auto"] and auto.report["tet_budget"] == TET_BUDGET
    assert 2 <= r and len(auto.tets) <= auto.report["tet_budget"]
    assert len(core.tetrahedralize(v, t, resolution=r + 1).tets) > auto.report["tet_budget"]
    assert np.array_equal(core.tetrahedralize(v, t, resolution=r).tets, auto.tets)
    for scale in (0.025, 10.0):
        assert core.tetrahedralize(v * scale, t, resolution="auto").report["resolution"] == r
    small = core.tetrahedralize(v, t, resolution="auto", tet_budget=300)
    assert len(small.tets) <= 300 and small.report["resolution"] <= r


def test_auto_resolution_bad_budget_is_a_one_line_error():
    v, t = icosphere(1)
    for bad in (0, -5, 2.5, "many"):
        with pytest.raises(InvalidInputError, match="tet_budget"):
            core.tetrahedralize(v, t, resolution="auto", tet_budget=bad)
    with pytest.raises(InvalidInputError, match="resolution"):
        core.tetrahedralize(v, t, resolution="automatic")
