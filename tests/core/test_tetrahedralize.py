"""Cage-mode tetrahedralization of the shared real-world models and of analytic shapes."""
import os

import numpy as np
import pytest

import core
from conftest import MODELS_DIR
from core.geometry.obj import load_obj

MODELS = ["spot", "cow", "homer", "stanford-bunny", "teapot", "suzanne"]
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
    np.testing.assert_allclose(emb.positions(tm.nodes), vertices, atol=1e-12 * scale)
    assert np.all(tm.mass_weights > 0)
    assert tm.report["quality_min"] >= core.geometry.quality.CAGE_QUALITY_BOUND


@needs_models
@pytest.mark.parametrize("name", MODELS)
def test_shared_models_all_resolutions(name):
    v, t = _model(name)
    for res in (4, 8, 16, 32):
        tm = core.tetrahedralize(v, t, resolution=res)
        check_cage(tm, v)
        rep = tm.report
        assert rep["tets"] == tm.num_tets and rep["nodes"] == tm.num_nodes
        assert rep["cage_volume"] >= rep["mesh_volume"] > 0
        np.testing.assert_allclose((tm.volumes() * tm.mass_weights).sum(), rep["mesh_volume"], rtol=1e-9)


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
