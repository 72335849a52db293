"""The graded cage (core.geometry.grade, `tetrahedralize(graded=True)`): conforming, the body's volume and render
vertices kept, two cells through a thin plate, and the plate bending closer to Euler–Bernoulli than the uniform cage
of the same resolution (linear tets never bend more than the continuum)."""
import numpy as np
import pytest
from scipy.spatial import cKDTree

import core
from core.geometry.grade import EDGES
from core.geometry.primitives import box_surface

THICKNESS, LENGTH = 0.08, 1.0
E, NU, RHO = 3e7, 0.3, 1000.0


def block_with_fin(length=LENGTH, width=1.0):
    """A 1 m block with a plate `length` × `width`, THICKNESS thick, sticking out of its side (two overlapping closed
    boxes)."""
    v1, t1 = box_surface((0, 0, 0), (1, 1, 1))
    v2, t2 = box_surface((0.9, 0.5 - width / 2, 0.5 - THICKNESS / 2), (1.0 + length, 0.5 + width / 2,
                                                                         0.5 + THICKNESS / 2))
    return np.vstack([v1, v2]), np.vstack([t1, t2 + len(v1)])


@pytest.fixture(scope="module")
def cages():
    v, t = block_with_fin()
    return v, t, core.tetrahedralize(v, t, resolution="auto"), core.tetrahedralize(v, t, resolution="auto", graded=True)


def test_a_graded_cage_is_conforming_and_keeps_the_body(cages):
    v, t, uniform, graded = cages
    assert graded.report["graded"] and not uniform.report["graded"]
    assert graded.report["resolution"] == uniform.report["resolution"]
    assert graded.num_tets > 2 * uniform.num_tets
    assert "thin_part" in uniform.report and "thin_part" not in graded.report
    # no hanging node: every new node is an edge's midpoint, and no node sits at the midpoint of an edge left whole
    edges = np.unique(np.sort(graded.tets[:, EDGES].reshape(-1, 2), axis=1), axis=0)
    mid = 0.5 * (graded.nodes[edges[:, 0]] + graded.nodes[edges[:, 1]])
    dist, _ = cKDTree(graded.nodes).query(mid)
    assert dist.min() > 1e-6
    # every tet positive, every face shared by at most two tets (the feature split's copies of a tet, one per surface
    # piece in it, count once)
    assert graded.volumes().min() > 0.0
    distinct = np.unique(np.sort(graded.tets, axis=1), axis=0)
    faces = np.sort(distinct[:, [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]]].reshape(-1, 3), axis=1)
    assert np.unique(faces, axis=0, return_counts=True)[1].max() <= 2
    # the render vertices are where they were, and the mass is the body's
    np.testing.assert_allclose(graded.embedding.positions(graded.nodes), v, atol=1e-9)
    for cage in (uniform, graded):
        assert abs((cage.mass_weights * cage.volumes()).sum() / cage.report["mesh_volume"] - 1.0) < 1e-9
    # two cells through the plate where its faces cross the cage: the tets holding its tip's vertices have edges no
    # longer than a cell of half its thickness (its depth found to an eighth of the uniform cell, from above)
    tip = graded.embedding.tet[np.abs(v[:, 0] - (1.0 + LENGTH)) < 1e-9]
    ends = graded.nodes[graded.tets[tip][:, EDGES]]
    longest = np.linalg.norm(ends[:, :, 0] - ends[:, :, 1], axis=2).max(axis=1)
    cell = uniform.report["cell_size"]
    assert longest.max() <= np.sqrt(2.0) * (THICKNESS + cell / 8) / 2 + 1e-9
    assert longest.max() < 0.5 * np.sqrt(2.0) * cell


def _tip_droop(v, cage):
    world = core.World(gravity=(0, 0, -9.81))
    body = world.add_body(cage, core.Material(youngs_modulus=E, poisson_ratio=NU, density=RHO),
                          pinned=np.flatnonzero(cage.nodes[:, 0] < 0.01))
    world.solve_static()
    x = cage.embedding.positions(body.x)
    tip = np.abs(v[:, 0] - (1.0 + LENGTH)) < 1e-9
    return float((v[tip, 2] - x[tip, 2]).mean())


def test_a_graded_plate_bends_closer_to_euler_bernoulli(cages):
    v, t, uniform, graded = cages
    # a cantilever plate under its own weight: w = q L⁴ / (8 D), D = E t³ / (12 (1 − ν²)) per unit width
    load = RHO * 9.81 * THICKNESS
    plate = load * LENGTH ** 4 / (8 * E * THICKNESS ** 3 / (12 * (1 - NU ** 2)))
    coarse, fine = _tip_droop(v, uniform), _tip_droop(v, graded)
    # linear tets are stiffer than the continuum (a displacement method bounds the compliance from below); the
    # uniform cage holds the plate in cells 2.3 times its thickness and barely bends it
    assert coarse < 0.15 * plate
    assert 4.0 * coarse < fine < plate
    assert fine > 0.45 * plate


def test_a_graded_body_lands_on_a_floor_and_keeps_its_volume():
    # a 20 cm block with a 6 cm fin, dropped 10 cm on a floor: the fin's fine tets take contact beside coarse ones
    v, t = block_with_fin(length=0.3, width=0.3)
    v = 0.2 * v + np.array([0.0, 0.0, 0.1])
    cage = core.tetrahedralize(v, t, resolution=6, graded=True)
    cage.embedding.triangles = t
    world = core.World(gravity=(0, 0, -9.81))
    body = world.add_body(cage, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0,
                                              damping_stiffness=0.01))
    world.add_collider(np.array([[-2, -2, 0], [2, -2, 0], [2, 2, 0], [-2, 2, 0.0]]), np.array([[0, 1, 2], [0, 2, 3]]),
                       friction=0.5, thickness=0.0, name="Floor")
    rest = np.abs(cage.volumes()).sum()
    lowest, least = np.inf, np.inf
    for _ in range(72):
        world.step(1 / 96)
        x = cage.embedding.positions(body.x)
        lowest = min(lowest, x[:, 2].min())
        least = min(least, np.abs(cage.volumes(body.x)).sum() / rest)
    assert cage.report["tets"] > 3 * core.tetrahedralize(v, t, resolution=6).num_tets
    # landed (it falls 10 cm in 0.14 s) and resting on the floor within the contact tolerance
    assert np.abs(body.v).max() < 0.5 and x[:, 2].min() < 0.01
    assert lowest > -1e-3 and least > 0.95
