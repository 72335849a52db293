"""StrainGauge: equivalent strain, volume change and von Mises stress of stretched, moved and mirrored meshes."""
import numpy as np
import pytest

import core
from core.geometry import embed_points
from core.geometry.embedding import Embedding
from fem_testmeshes import box, rotation

E = 1.0e5


def _bar():
    """A 1 m × 0.2 m × 0.2 m bar of 4×1×1 cubes (24 tets) with 200 points embedded in it."""
    bar = box(4, 1, 1, 1.0, 0.2, 0.2)
    points = np.random.default_rng(0).uniform([0.01, 0.01, 0.01], [0.99, 0.19, 0.19], (200, 3))
    tet, weights = embed_points(bar.nodes, bar.tets, points)
    assert np.all(tet >= 0)
    return core.TetMesh(bar.nodes, bar.tets, embedding=Embedding(bar.tets, tet, weights))


def _gauge(mesh, poisson_ratio=0.45):
    material = core.Material(youngs_modulus=E, poisson_ratio=poisson_ratio)
    return core.StrainGauge(mesh, material.shear_modulus)


def test_uniaxial_stretch_of_one_percent():
    """Stretched 1 % along x with lateral strains of −0.5 % (volume kept to first order, ν = 0.5's contraction), the
    equivalent strain is 0.01 in every tet and at every embedded point; with ν = 0 and no lateral contraction the von
    Mises stress is E·0.01 (and the equivalent strain 2/3 of 0.01)."""
    bar = _bar()
    gauge = _gauge(bar)
    x = bar.nodes * [1.01, 0.995, 0.995]
    tets, points = gauge.tets_at(x), gauge.points_at(x)
    np.testing.assert_allclose(tets[:, 0], 0.01, rtol=0, atol=1e-6)
    np.testing.assert_allclose(points[0], 0.01, rtol=0, atol=1e-6)
    np.testing.assert_allclose(tets[:, 1], 1.01 * 0.995 ** 2 - 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(points[1], 1.01 * 0.995 ** 2 - 1.0, rtol=1e-5)

    free = _gauge(bar, poisson_ratio=0.0)
    x = bar.nodes * [1.01, 1.0, 1.0]
    tets, points = free.tets_at(x), free.points_at(x)
    np.testing.assert_allclose(tets[:, 2], E * 0.01, rtol=1e-6)
    np.testing.assert_allclose(points[2], E * 0.01, rtol=1e-6)
    np.testing.assert_allclose(tets[:, 0], 0.01 * 2.0 / 3.0, rtol=1e-6)


def test_stress_uses_the_body_material_and_stiffness_scale():
    """The stress is 3μ ε_eq with μ the material's shear modulus (Mooney–Rivlin: 2(c₁₀ + c₀₁)) times the tet's
    scale; the strain does not depend on the material."""
    bar = _bar()
    x = bar.nodes * [1.01, 0.995, 0.995]
    mr = core.Material(youngs_modulus=E, poisson_ratio=0.45, model="mooney_rivlin", mooney_rivlin_c10=3e3,
                       mooney_rivlin_c01=1e3)
    assert mr.shear_modulus == pytest.approx(8e3)
    scale = np.linspace(0.5, 1.0, bar.num_tets)
    tets = core.StrainGauge(bar, mr.shear_modulus * scale).tets_at(x)
    np.testing.assert_allclose(tets[:, 2], 3.0 * 8e3 * scale * 0.01, rtol=1e-6)
    with pytest.raises(core.InvalidInputError, match="shear_modulus"):
        core.StrainGauge(bar, 0.0)
    with pytest.raises(core.InvalidInputError, match="shape"):
        core.StrainGauge(bar, 1.0).tets_at(x[:-1])


def _deformed(nodes):
    """A large, non-uniform deformation: bent, squashed at one end, twisted."""
    x, y, z = nodes.T
    return np.c_[x + 0.1 * x * x, y * (1.0 - 0.3 * x) + 0.05 * np.sin(3 * x) * z, z + 0.2 * x * x + 0.1 * y * x]


def test_zero_under_rigid_motion():
    """Rotated (any rotation, also by more than 90°) and moved, undeformed: every measure is zero; a rotation applied
    on top of a deformation changes nothing."""
    bar = _bar()
    gauge = _gauge(bar)
    deformed = gauge.tets_at(_deformed(bar.nodes))
    assert deformed[:, 0].max() > 0.05   # the deformation is not small
    rng = np.random.default_rng(1)
    for angle in (0.3, 1.7, 3.1):
        r = rotation(rng.normal(size=3), angle)
        moved = bar.nodes @ r.T + [1.0, -2.0, 0.5]
        tets, points = gauge.tets_at(moved), gauge.points_at(moved)
        assert np.abs(tets[:, :2]).max() < 1e-9 and tets[:, 2].max() < 1e-9 * E
        assert np.abs(points).max() < 1e-4   # float32 interpolation of zeros
        np.testing.assert_allclose(gauge.tets_at(_deformed(bar.nodes) @ r.T), deformed, rtol=1e-9, atol=1e-12)


def test_symmetric_under_reflection_of_the_load():
    """The mesh and its load mirrored (x → −x): every tet shows the same measures as its mirror image."""
    bar = _bar()
    mirror = np.diag([-1.0, 1.0, 1.0])
    mirrored = core.TetMesh(bar.nodes @ mirror, bar.tets)   # reoriented tets: the same tets in the same order
    x = _deformed(bar.nodes)
    original = _gauge(bar).tets_at(x)
    reflected = _gauge(mirrored).tets_at(x @ mirror)
    assert original[:, 0].max() > 0.05
    np.testing.assert_allclose(reflected, original, rtol=1e-9, atol=1e-12)


def test_points_of_a_mesh_without_embedding_are_its_nodes():
    """Without an embedding the points are the nodes: a node of a uniformly stretched bar reads the stretch."""
    bar = box(2, 1, 1)
    values = _gauge(bar).points_at(bar.nodes * [1.01, 0.995, 0.995])
    assert values.shape == (3, bar.num_nodes) and values.dtype == np.float32
    np.testing.assert_allclose(values[0], 0.01, atol=1e-6)


def test_equivalent_strain_matches_the_stretch_tensor_of_each_tet():
    """Under a large deformation every tet's equivalent strain is √(2/3 e:e) of dev(S − I), S = √(FᵀF) from numpy's
    SVD of F; an inverted tet (det F < 0) reads a large strain, its smallest stretch taken negative."""
    bar = _bar()
    x = _deformed(bar.nodes)
    ds = np.stack([x[bar.tets[:, k]] - x[bar.tets[:, 0]] for k in (1, 2, 3)], axis=2)
    dm = np.stack([bar.nodes[bar.tets[:, k]] - bar.nodes[bar.tets[:, 0]] for k in (1, 2, 3)], axis=2)
    sigma = np.linalg.svd(ds @ np.linalg.inv(dm), compute_uv=False)
    dev = sigma - sigma.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(_gauge(bar).tets_at(x)[:, 0], np.sqrt(2.0 / 3.0 * (dev ** 2).sum(axis=1)),
                               rtol=1e-9, atol=1e-12)
    tet = core.TetMesh([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [[0, 1, 2, 3]])
    flipped = tet.nodes * [1.0, 1.0, -0.5]   # pushed through its base: det F = −0.5
    strain, change, _stress = _gauge(tet).tets_at(flipped)[0]
    assert change == pytest.approx(-1.5) and strain == pytest.approx(np.sqrt(2.0 / 3.0 * 1.5), rel=1e-9)
