"""Parts thinner than a cage cell (core.geometry.thin_parts): found where a plate, an ear or a tail is thinner than the
Auto cage's cell, measured against the shape's known thickness, and the Resolution named for it holds it."""
import os

import numpy as np
import pytest

import core
from core.geometry.obj import load_obj
from core.geometry.primitives import box_surface, icosphere

MODELS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "models")


def grid_box(size, n):
    """A closed box of `size` (3,) from the origin, each face an n × n grid of quads (two triangles each), normals
    outward: a plate's faces get vertices of their own, as a modelled one has."""
    verts, tris = [], []
    for axis in range(3):
        u, w = (axis + 1) % 3, (axis + 2) % 3
        for side in (0.0, 1.0):
            base = len(verts)
            for i in range(n + 1):
                for j in range(n + 1):
                    p = np.zeros(3)
                    p[axis], p[u], p[w] = side * size[axis], i / n * size[u], j / n * size[w]
                    verts.append(p)
            for i in range(n):
                for j in range(n):
                    a, b, c, d = (base + i * (n + 1) + j, base + (i + 1) * (n + 1) + j,
                                  base + (i + 1) * (n + 1) + j + 1, base + i * (n + 1) + j + 1)
                    quad = [[a, b, c], [a, c, d]] if side else [[a, c, b], [a, d, c]]
                    tris.extend(quad)
    v, t = np.array(verts), np.array(tris)
    # the faces' shared edges welded
    _, inverse = np.unique(np.round(v / np.max(size) * 1e9).astype(np.int64), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    welded = np.zeros((inverse.max() + 1, 3))
    welded[inverse] = v
    return welded, inverse[t]


@pytest.mark.parametrize("thickness", [0.02, 0.04])
def test_a_plate_thinner_than_a_cell_is_found_with_its_thickness_and_the_resolution_named_holds_it(thickness):
    v, t = grid_box((1.0, 1.0, thickness), 12)
    cage = core.tetrahedralize(v, t, resolution="auto")
    cell = cage.report["cell_size"]
    assert thickness < cell
    part = cage.report["thin_part"]
    # a face of the plate is the part (its rim's vertices look sideways, across the plate, and join no face to
    # the other); its thickness bisected to an eighth of a cell, from above
    assert part["vertices"] >= 13 * 13
    assert thickness <= part["thickness"] <= thickness + cell / 8 + 1e-9
    np.testing.assert_allclose(part["centre"], [0.5, 0.5, thickness / 2], atol=0.05)
    finer = core.tetrahedralize(v, t, resolution=part["resolution"])
    assert finer.report["cell_size"] <= part["thickness"] / 2 + 1e-9
    assert "thin_part" not in finer.report


def test_bulky_bodies_have_no_thin_part():
    for v, t in (icosphere(3, 1.0), box_surface((-1, -1, -1), (1, 1, 1)), grid_box((1.0, 0.1, 0.1), 8)):
        cage = core.tetrahedralize(v, t, resolution="auto")
        assert "thin_part" not in cage.report, cage.report.get("thin_part")


@pytest.mark.parametrize("name", ["suzanne", "cow"])
def test_ears_and_tails_are_the_thin_parts_of_real_models(name):
    path = os.path.join(MODELS, name + ".obj")
    if not os.path.exists(path):
        pytest.skip("shared models absent")
    v, t = load_obj(path)
    v = np.asarray(v)
    cage = core.tetrahedralize(v, t, resolution="auto")
    part = cage.report["thin_part"]
    lo, hi = v.min(axis=0), v.max(axis=0)
    # at an end of the body's longest axis (Suzanne's ears stick out sideways, the cow's tail backwards)
    axis = int(np.argmax(hi - lo))
    centre = np.asarray(part["centre"])
    assert min(centre[axis] - lo[axis], hi[axis] - centre[axis]) < 0.2 * (hi - lo)[axis], (centre, lo, hi)
    assert part["thickness"] < cage.report["cell_size"]
