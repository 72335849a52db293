"""Conforming-mode tetrahedralization: the input vertices are the nodes; clear errors for meshes it cannot handle."""
import numpy as np
import pytest

import core
from core.errors import InvalidInputError
from test_tetrahedralize import box, icosphere


def enclosed_volume(v, t):
    p = v[t]
    return np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6


@pytest.mark.parametrize("shape", ["box", "sphere"])
def test_identity_embedding_and_volume(shape):
    v, t = box([0, 0, 0], [1, 2, 3]) if shape == "box" else icosphere(2, radius=0.5)
    tm = core.tetrahedralize(v, t, resolution=8, mode="conforming")
    assert np.all(tm.volumes() > 0)
    # every input vertex is a node: one weight is exactly 1, and the node sits where the vertex is
    w = tm.embedding.weights
    assert np.all(np.sort(w, axis=1)[:, -1] == 1.0) and np.all(np.sort(w, axis=1)[:, :3] == 0.0)
    np.testing.assert_array_equal(tm.embedding.positions(tm.nodes), v)
    ref = enclosed_volume(v, t)
    np.testing.assert_allclose(tm.volumes().sum(), ref, rtol=0.01)
    np.testing.assert_allclose((tm.volumes() * tm.mass_weights).sum(), ref, rtol=1e-9)
    assert tm.report["mode"] == "conforming" and tm.report["quality_min"] > 0.05
    assert tm.report["slivers"] == 0
    # moving the nodes moves the vertices with them (identity)
    moved = tm.nodes * 2.0 + 1.0
    np.testing.assert_allclose(tm.embedding.positions(moved), v * 2.0 + 1.0)


def test_duplicate_vertices_share_a_node():
    v, t = icosphere(1)
    soup = v[t].reshape(-1, 3)
    tm = core.tetrahedralize(soup, np.arange(len(soup)).reshape(-1, 3), resolution=6, mode="conforming")
    np.testing.assert_array_equal(tm.embedding.positions(tm.nodes), soup)
    assert tm.num_nodes < len(soup) + 1000


def test_open_mesh_suggests_cage():
    v, t = icosphere(2)
    with pytest.raises(InvalidInputError, match="mode='cage'"):
        core.tetrahedralize(v, t[:-4], mode="conforming")


def test_self_intersecting_mesh_suggests_cage():
    v1, t1 = box([0, 0, 0], [1, 1, 1])
    v2, t2 = box([0.5, 0.5, 0.5], [1.5, 1.5, 1.5])
    v, t = np.concatenate([v1, v2]), np.concatenate([t1, t2 + 8])
    with pytest.raises(InvalidInputError, match="mode='cage'"):
        core.tetrahedralize(v, t, mode="conforming")
    assert core.tetrahedralize(v, t, mode="cage").num_tets > 0


def test_flat_closed_mesh_has_no_volume():
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.0]])
    with pytest.raises(InvalidInputError, match="no volume"):
        core.tetrahedralize(v, np.array([[0, 1, 2], [0, 2, 1]]), mode="conforming")


@pytest.mark.parametrize("resolution", [6, 12, 24])
def test_a_thin_box_is_accepted(resolution):
    """A 1 m × 10 cm × 10 cm bar (Blender's cube scaled): its faces are lined with boundary slivers, which were
    peeled round after round until 1.3–1.6 % of its volume was gone and it was refused as "may self-intersect" (at
    resolutions 6 and 24). Peeling now stops within half the volume tolerance."""
    v, t = box([0.0, -0.05, -0.05], [1.0, 0.05, 0.05])
    tm = core.tetrahedralize(v, t, resolution=resolution, mode="conforming")
    assert np.all(tm.volumes() > 0)
    np.testing.assert_allclose(tm.volumes().sum(), 0.01, rtol=0.01)
    np.testing.assert_array_equal(tm.embedding.positions(tm.nodes), v)
