"""Hyperelastic materials: forces and stiffness against finite differences, rigid motions, small strain vs
corotated, the signed SVD against numpy's, the PSD projection, mixed worlds and bad input."""
import numpy as np
import pytest

import core
from core.fem.force_model import ForceModel
from core.fem.hyperelastic import STRETCH_FLOOR
from core.fem.svd3 import signed_svd
from core.model import Model
from core.solve.linear_system import BlockSparseSystem, MatrixFreeSystem
from core.state import State

from fem_testmeshes import box, rotation

MODELS = ("stvk", "neo_hookean", "mooney_rivlin")


def _setup(model, differential="exact", mesh=None, **material):
    mesh = box(2, 2, 2) if mesh is None else mesh
    mat = core.Material(youngs_modulus=1e4, poisson_ratio=0.3, density=1000.0, model=model, **material)
    md = Model([(mesh, mat, np.zeros(mesh.num_nodes, dtype=bool), np.ones(mesh.num_tets))])
    return ForceModel(md, differential), State.at_rest(mesh.nodes, mesh.num_tets)


def _at(fm, state, x):
    probe = state.copy()
    probe.x[:] = x
    fm.update_rotations(probe)
    return probe


def _energy(fm, state, x):
    return fm.energies(_at(fm, state, x).x).sum()


def _forces(fm, state, x):
    return fm.forces(_at(fm, state, x).x)


def _deformed(state, seed, amount):
    return state.x + amount * np.random.default_rng(seed).standard_normal(state.x.shape)


def _stretches(fm, x):
    md = fm.model
    ds = np.stack([x[md.tets[:, k]] - x[md.tets[:, 0]] for k in (1, 2, 3)], axis=2)
    f = ds @ md.gm
    s = np.linalg.svd(f, compute_uv=False)
    return s * np.sign(np.linalg.det(f))[:, None] ** np.array([0, 0, 1])


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("seed,amount", [(0, 0.05), (1, 0.08), (2, 0.3)])
def test_force_is_minus_energy_gradient(model, seed, amount):
    """Central differences of the energy along random directions; seed 2 inverts and clamps tets (the energy's
    linear continuation below the stretch floor must still be the force's potential)."""
    fm, state = _setup(model)
    x = _deformed(state, seed, amount)
    clamped = (_stretches(fm, x).min(axis=1) < STRETCH_FLOOR).sum()
    assert (clamped > 0) == (amount > 0.1)
    f = _forces(fm, state, x)
    rng = np.random.default_rng(10 + seed)
    h = 1e-6
    for _ in range(3):
        d = rng.standard_normal(x.shape)
        fd = (_energy(fm, state, x + h * d) - _energy(fm, state, x - h * d)) / (2 * h)
        assert abs(fd + np.sum(f * d)) <= 1e-6 * np.abs(f).sum() * np.abs(d).max(), (fd, -np.sum(f * d))


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("seed", [0, 1])
def test_exact_stiffness_product_matches_force_differences(model, seed):
    """Without the PSD projection ("exact" differential) K p is the exact Hessian product (no tet clamped)."""
    fm, state = _setup(model, "exact")
    x = _deformed(state, seed, 0.06)
    assert _stretches(fm, x).min() > STRETCH_FLOOR
    probe = _at(fm, state, x)
    d = np.random.default_rng(20 + seed).standard_normal(x.shape)
    kd = fm.product(d, np.empty_like(d), np.ones(fm.model.num_tets))
    h = 1e-6
    fd = -(_forces(fm, state, x + h * d) - _forces(fm, state, x - h * d)) / (2 * h)
    _at(fm, state, probe.x)
    assert np.linalg.norm(kd - fd) <= 1e-6 * np.linalg.norm(fd)


@pytest.mark.parametrize("model", MODELS)
def test_projected_stiffness_is_symmetric_psd_and_exact_where_the_energy_is_convex(model):
    """The default (hybrid) force model clamps the Hessian's negative eigenmodes: K is symmetric PSD on a
    scrambled, inverted mesh; at a small stretch (all modes positive) it equals the exact Hessian."""
    fm, state = _setup(model, "hybrid")
    x = _deformed(state, 3, 0.3)
    _at(fm, state, x)
    k = fm.stiffness_matrix(np.ones(fm.model.num_tets)).toarray()
    assert np.abs(k - k.T).max() <= 1e-12 * np.abs(k).max()
    assert np.linalg.eigvalsh(k).min() >= -1e-10 * np.abs(k).max()
    exact, _ = _setup(model, "exact")
    stretched = state.x * [1.05, 1.0, 1.0]
    _at(fm, state, stretched)
    _at(exact, state, stretched)
    ones = np.ones(fm.model.num_tets)
    k1, k2 = fm.stiffness_matrix(ones).toarray(), exact.stiffness_matrix(ones).toarray()
    assert np.abs(k1 - k2).max() <= 1e-9 * np.abs(k2).max()


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("angle", [0.4, 2.0, np.pi])
def test_rigid_motions_have_zero_force_and_energy(model, angle):
    fm, state = _setup(model)
    x = state.x @ rotation([0.3, -1.0, 0.5], angle).T + [1.0, -2.0, 0.5]
    f = _forces(fm, state, x)
    assert np.abs(f).max() < 1e-9 * 1e4
    assert abs(_energy(fm, state, x)) < 1e-12 * 1e4


@pytest.mark.parametrize("model", MODELS)
def test_small_strain_agrees_with_corotated(model):
    """At strains ~1e-4 every material is linear elasticity with the same E, ν: forces and energy within 1 %."""
    hyper, state = _setup(model)
    corot, _ = _setup("corotated")
    x = (state.x @ rotation([1.0, 2.0, 0.5], 0.7).T) + _deformed(state, 5, 1e-4) - state.x
    f_h, f_c = _forces(hyper, state, x), _forces(corot, state, x)
    assert np.linalg.norm(f_h - f_c) <= 0.01 * np.linalg.norm(f_c)
    e_h, e_c = _energy(hyper, state, x), _energy(corot, state, x)
    assert abs(e_h - e_c) <= 0.01 * e_c


def test_signed_svd_matches_numpy():
    """σ agree with numpy's SVD, U and V are rotations, UΣVᵀ = F, and an inverted F has the reflection in σ₂ < 0,
    also for nearly singular and repeated-singular-value matrices."""
    rng = np.random.default_rng(0)
    cases = [rng.standard_normal((3, 3)) for _ in range(200)]
    cases += [np.diag([2.0, 1.0, 1e-9]), np.diag([1.0, 1.0, -1.0]), np.eye(3), np.zeros((3, 3)),
              rotation([1, 1, 0], 1.0) @ np.diag([3.0, 3.0, 0.5]), np.outer([1.0, 2, 3], [0.5, -1, 2])]
    for f in cases:
        u, s, v = signed_svd(tuple(f.ravel()))
        u, s, v = np.array(u).reshape(3, 3), np.array(s), np.array(v).reshape(3, 3)
        ref = np.linalg.svd(f, compute_uv=False)
        scale = max(ref[0], 1e-300)
        assert np.allclose(np.abs(s), ref, atol=1e-12 * scale)
        assert s[0] >= s[1] >= abs(s[2]) - 1e-12 * scale
        assert np.allclose(u @ np.diag(s) @ v.T, f, atol=1e-12 * scale)
        for r in (u, v):
            assert np.allclose(r @ r.T, np.eye(3), atol=1e-12) and np.linalg.det(r) > 0
        if np.linalg.det(f) < -1e-9 * scale ** 3:
            assert s[2] < 0


def test_blocks_equal_the_matrix_free_operator_for_a_mixed_world():
    """A corotated and a neo-Hookean body in one Model: the assembled 3×3 blocks (BSR, block-Jacobi) and the
    matrix-free per-tet products give the same operator, and the corotated body's forces are those it has alone."""
    a, b = box(2, 2, 2), box(2, 1, 1, origin=(2.0, 0.0, 0.0))
    mats = [core.Material(1e4, 0.3, 1000.0), core.Material(2e4, 0.3, 1000.0, model="neo_hookean")]
    md = Model([(m, mat, np.zeros(m.num_nodes, dtype=bool), np.ones(m.num_tets)) for m, mat in zip((a, b), mats)])
    fm = ForceModel(md, "hybrid")
    state = State.at_rest(md.rest, md.num_tets)
    state.x[:] = _deformed(state, 7, 0.05)
    fm.update_rotations(state)
    scale = np.full(md.num_tets, 0.3)
    blocks, free = BlockSparseSystem(fm, 2.0, scale), MatrixFreeSystem(fm, 2.0, scale)
    p = np.random.default_rng(8).standard_normal(state.x.shape)
    ones = np.ones(len(p))
    for body in (0, 1):
        o1, o2 = np.zeros_like(p), np.zeros_like(p)
        blocks.apply(p, o1, ones, body)
        free.apply(p, o2, ones, body)
        assert np.allclose(o1, o2, rtol=0, atol=1e-10 * np.abs(o2).max())
    assert np.allclose(blocks.block_jacobi_inverse(), free.block_jacobi_inverse(), rtol=1e-10, atol=0)
    alone, alone_state = _setup("corotated", "hybrid", mesh=a)
    n = a.num_nodes
    alone_state.x[:] = state.x[:n]
    alone.update_rotations(alone_state)
    assert np.array_equal(alone.forces(alone_state.x), fm.forces(state.x)[:n])


@pytest.mark.parametrize("kwargs,name", [
    (dict(model="neo-hookean"), "model"),
    (dict(model="neo_hookean", poisson_ratio=0.5), "poisson_ratio"),
    (dict(model="mooney_rivlin", mooney_rivlin_c01=-100.0, mooney_rivlin_c10=5000.0), "mooney_rivlin_c01"),
    (dict(model="mooney_rivlin", mooney_rivlin_c10=-1.0), "mooney_rivlin_c10"),
    (dict(model="mooney_rivlin", mooney_rivlin_c01=0.0, mooney_rivlin_c10=0.0), "mooney_rivlin_c01"),
    (dict(model="mooney_rivlin", mooney_rivlin_c10="soft"), "mooney_rivlin_c10"),
])
def test_bad_materials_are_refused_naming_the_parameter(kwargs, name):
    args = dict(youngs_modulus=1e4, poisson_ratio=0.3, density=1000.0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name) as info:
        core.Material(**args)
    assert "\n" not in str(info.value)


def test_mooney_rivlin_defaults_split_the_shear_modulus():
    mat = core.Material(youngs_modulus=1e4, poisson_ratio=0.3, model="mooney_rivlin")
    mu = 1e4 / 2.6
    assert mat.mooney_rivlin_c01 == mat.mooney_rivlin_c10 == pytest.approx(mu / 4)
    assert core.Material(model="mooney_rivlin", mooney_rivlin_c10=300.0).mooney_rivlin_c01 == 0.0


def test_set_material_keeps_the_model_and_rescales_the_energy():
    world = core.World(gravity=(0.0, 0.0, 0.0))
    body = world.add_body(box(1, 1, 1), core.Material(1e4, 0.3, 1000.0, model="neo_hookean"))
    body.x[:] = body.x * [1.2, 1.0, 1.0]
    e1 = body.elastic_energy()
    body.set_material(core.Material(2e4, 0.3, 1000.0, model="neo_hookean"))
    assert body.elastic_energy() == pytest.approx(2 * e1, rel=1e-12)
    with pytest.raises(ValueError, match="model"):
        body.set_material(core.Material(2e4, 0.3, 1000.0, model="stvk"))
