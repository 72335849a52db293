"""Corotational forces: rigid-motion invariance, force = −∂E/∂x, Jacobian products vs finite differences."""
import numpy as np
import pytest

import core
from core.fem.force_model import ForceModel
from core.model import Model
from core.state import State

from fem_testmeshes import box, rotation


def _setup(mesh, differential="exact", E=1e4, nu=0.3):
    mat = core.Material(youngs_modulus=E, poisson_ratio=nu, density=1000.0)
    model = Model([(mesh, mat, np.zeros(mesh.num_nodes, bool), np.ones(mesh.num_tets))])
    return model, ForceModel(model, differential), State.at_rest(model.rest, model.num_tets)


def _energy(fm, state, x):
    probe = state.copy()
    probe.x[:] = x
    fm.update_rotations(probe)
    return float(fm.energies(probe.x).sum())


def _forces(fm, state, x):
    probe = state.copy()
    probe.x[:] = x
    fm.update_rotations(probe)
    return fm.forces(probe.x)


@pytest.mark.parametrize("angle", [0.3, 1.2, 2.5, np.pi])
def test_rigid_motions_have_zero_force_and_energy(angle):
    mesh = box(2, 2, 2)
    model, fm, state = _setup(mesh)
    rot = rotation([0.3, -0.5, 0.8], angle)
    x = mesh.nodes @ rot.T + np.array([3.0, -1.0, 2.0])
    f = _forces(fm, state, x)
    assert np.abs(f).max() < 1e-9
    assert abs(_energy(fm, state, x)) < 1e-12


def test_world_energies_of_a_rotated_body_are_zero():
    mesh = box(2, 2, 2)
    world = core.World(gravity=(0, 0, 0))
    body = world.add_body(mesh, core.Material(youngs_modulus=1e5, poisson_ratio=0.3))
    body.x[:] = mesh.nodes @ rotation([1, 0, 0], np.pi).T
    assert body.elastic_energy() < 1e-12
    world.step(0.01)
    assert np.allclose(body.x, mesh.nodes @ rotation([1, 0, 0], np.pi).T, atol=1e-12)


def _deformed(mesh, seed, amount=0.15):
    rng = np.random.default_rng(seed)
    return mesh.nodes @ rotation(rng.normal(size=3), 0.7).T + amount * rng.normal(size=mesh.nodes.shape) / 3


def test_force_is_minus_energy_gradient():
    mesh = box(2, 1, 1)
    model, fm, state = _setup(mesh)
    x = _deformed(mesh, 1)
    f = _forces(fm, state, x)
    h = 1e-6
    fd = np.zeros_like(x)
    for n in range(len(x)):
        for k in range(3):
            xp, xm = x.copy(), x.copy()
            xp[n, k] += h
            xm[n, k] -= h
            fd[n, k] = -(_energy(fm, state, xp) - _energy(fm, state, xm)) / (2 * h)
    assert np.abs(f - fd).max() < 1e-5 * np.abs(f).max()


def test_exact_jacobian_product_matches_force_differences():
    mesh = box(2, 1, 1)
    model, fm, state = _setup(mesh, "exact")
    x = _deformed(mesh, 2)
    rng = np.random.default_rng(3)
    p = rng.normal(size=x.shape)
    probe = state.copy()
    probe.x[:] = x
    fm.update_rotations(probe)
    kp = fm.product(p, np.empty_like(p), np.ones(model.num_tets))
    h = 1e-6
    fd = -(_forces(fm, state, x + h * p) - _forces(fm, state, x - h * p)) / (2 * h)
    assert np.abs(kp - fd).max() < 1e-6 * np.abs(fd).max()


@pytest.mark.parametrize("differential", ["hybrid", "warped"])
def test_hybrid_and_warped_products_are_symmetric_psd(differential):
    mesh = box(2, 1, 1)
    model, fm, state = _setup(mesh, differential)
    x = _deformed(mesh, 4, amount=0.4)  # large stretch: γ > 0 somewhere
    probe = state.copy()
    probe.x[:] = x
    fm.update_rotations(probe)
    if differential == "hybrid":
        assert fm.gamma.max() > 0.05
    n = x.size
    k = np.zeros((n, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1.0
        k[:, j] = fm.product(e.reshape(-1, 3), np.empty_like(x), np.ones(model.num_tets)).ravel()
    assert np.abs(k - k.T).max() < 1e-10 * np.abs(k).max()
    eig = np.linalg.eigvalsh(0.5 * (k + k.T))
    assert eig.min() > -1e-10 * eig.max()
    # six rigid modes at most are in the kernel; the rest is positive
    assert np.sum(eig > 1e-8 * eig.max()) >= n - 6


def test_block_jacobi_blocks_are_the_diagonal_of_the_operator():
    mesh = box(2, 1, 1)
    model, fm, state = _setup(mesh, "hybrid")
    probe = state.copy()
    probe.x[:] = _deformed(mesh, 5, amount=0.3)
    fm.update_rotations(probe)
    scale = np.ones(model.num_tets)
    inv = fm.block_jacobi_inverse(np.full(model.num_nodes, 2.0), scale)
    for node in (0, 5):
        block = np.zeros((3, 3))
        for k in range(3):
            e = np.zeros_like(probe.x)
            e[node, k] = 1.0
            block[:, k] = fm.product(e, np.empty_like(e), scale)[node] + 2.0 * model.mass[node] * e[node]
        assert np.allclose(inv[node] @ block, np.eye(3), atol=1e-9)


def test_polar_rotation_matches_svd():
    from core.fem.polar import polar_rotation
    rng = np.random.default_rng(6)
    for _ in range(50):
        f = rng.normal(size=(3, 3))
        if np.linalg.det(f) < 0:
            f[:, 0] *= -1
        u, s, vt = np.linalg.svd(f)
        warm = tuple(np.eye(3).ravel())
        r, ok = polar_rotation(tuple(f.ravel()), warm)
        assert ok
        assert np.allclose(np.array(r).reshape(3, 3), u @ vt, atol=1e-10)
    r, ok = polar_rotation(tuple((-np.eye(3)).ravel()), tuple(np.eye(3).ravel()))
    assert not ok


@pytest.mark.parametrize("differential", ["hybrid", "exact"])
def test_assembled_stiffness_matrix_equals_matrix_free_product(differential):
    mesh = box(2, 2, 1)
    model, fm, state = _setup(mesh, differential)
    probe = state.copy()
    probe.x[:] = _deformed(mesh, 7, amount=0.3)
    fm.update_rotations(probe)
    scale = np.linspace(0.5, 2.0, model.num_tets)
    p = np.random.default_rng(8).normal(size=probe.x.shape)
    k = fm.stiffness_matrix(scale)
    assert np.allclose(k @ p.ravel(), fm.product(p, np.empty_like(p), scale).ravel(), rtol=0, atol=1e-9 * abs(k).max())


@pytest.mark.parametrize("threads", [1, 2])   # on one thread the product reads the upper blocks alone
@pytest.mark.parametrize("differential", ["hybrid", "warped"])
def test_assembled_block_system_equals_matrix_free_system(differential, threads):
    import numba
    if threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip("one thread only on this machine")
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        _compare_systems(differential)
    finally:
        numba.set_num_threads(before)


def _compare_systems(differential):
    from core.solve.linear_system import BlockSparseSystem, MatrixFreeSystem
    mesh = box(3, 2, 2)
    model, fm, state = _setup(mesh, differential)
    probe = state.copy()
    probe.x[:] = _deformed(mesh, 9, amount=0.4)
    fm.update_rotations(probe)
    mass_coef = np.full(model.num_nodes, 1.3)
    scale = np.linspace(0.5, 2.0, model.num_tets)
    free = np.ones(model.num_nodes)
    free[[0, 7]] = 0.0
    p = np.random.default_rng(10).normal(size=probe.x.shape)
    out_mf, out_bs = np.empty_like(p), np.empty_like(p)
    mf, bs = MatrixFreeSystem(fm, mass_coef, scale), BlockSparseSystem(fm, mass_coef, scale)
    assert mf.apply(p, out_mf, free, 0) == pytest.approx(bs.apply(p, out_bs, free, 0), rel=1e-12)
    assert np.allclose(out_mf, out_bs, rtol=0, atol=1e-11 * np.abs(out_mf).max())
    assert np.allclose(mf.block_jacobi_inverse(), bs.block_jacobi_inverse(), rtol=1e-10, atol=0)
