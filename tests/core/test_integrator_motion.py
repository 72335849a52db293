"""Backward Euler: free fall recurrence, momentum, Poisson contraction, pins, divergence and bad input."""
import numpy as np
import pytest

import core
import core.world as world_module

from fem_testmeshes import box, rotation


def _material(**kw):
    kw.setdefault("youngs_modulus", 1e5)
    kw.setdefault("poisson_ratio", 0.3)
    return core.Material(**kw)


@pytest.mark.parametrize("damping_mass", [0.0, 0.7])
def test_free_fall_reproduces_backward_euler_recurrence(damping_mass):
    mesh = box(2, 2, 2)
    g = np.array([0.5, 0.0, -9.81])
    settings = core.SolverSettings(cg_tolerance=1e-12, cg_iterations=200)
    world = core.World(gravity=g, settings=settings)
    body = world.add_body(mesh, _material(damping_mass=damping_mass))
    v0 = np.array([1.0, -2.0, 3.0])
    body.v[:] = v0
    x, v, dt = mesh.nodes.copy(), np.tile(v0, (mesh.num_nodes, 1)), 0.02
    for _ in range(50):
        world.step(dt)
        v = (v + dt * g) / (1 + damping_mass * dt)       # M(v' − v) = Δt (M g − α M v')
        x = x + dt * v
    assert np.abs(body.v - v).max() < 1e-10 * np.abs(v).max()
    assert np.abs(body.x - x).max() < 1e-10 * np.abs(x).max()
    assert body.elastic_energy() < 1e-18      # rounding: a strain of ~5e-12 (the warm start's per-node accelerations)


def test_momentum_of_a_free_body_is_conserved():
    mesh = box(3, 2, 2)
    world = core.World(gravity=(0, 0, 0))      # default settings: loose CG tolerance
    body = world.add_body(mesh, _material(youngs_modulus=1e4, damping_stiffness=0.01))
    rng = np.random.default_rng(0)
    body.v[:] = rng.normal(size=body.v.shape)
    mass = world.model.mass[:, None]
    p0 = (mass * body.v).sum(axis=0)
    for _ in range(40):
        world.step(1 / 60)
    p = (mass * body.v).sum(axis=0)
    assert np.abs(p - p0).max() < 1e-9 * np.linalg.norm(p0)
    assert world.stats["cg_iterations"] > 0


def test_uniaxial_stretch_contracts_laterally_by_poisson_ratio():
    nu = 0.3
    length, width = 1.0, 0.1
    mesh = box(30, 3, 3, length, width, width)
    ends = np.flatnonzero((mesh.nodes[:, 0] < 1e-9) | (mesh.nodes[:, 0] > length - 1e-9))
    world = core.World(gravity=(0, 0, 0))
    body = world.add_body(mesh, _material(poisson_ratio=nu), pinned=ends)
    strain = 1e-3
    body.set_pin_targets(mesh.nodes[ends] * [1 + strain, 1, 1])
    world.solve_static()
    x, rest = body.x, mesh.nodes

    def section(at):
        return np.flatnonzero(np.abs(rest[:, 0] - at) < 1e-9)

    a, b = section(0.4), section(0.6)
    axial = (x[b, 0].mean() - x[a, 0].mean()) / (rest[b, 0].mean() - rest[a, 0].mean()) - 1
    mid = section(0.5)
    lateral_y = np.ptp(x[mid, 1]) / np.ptp(rest[mid, 1]) - 1
    lateral_z = np.ptp(x[mid, 2]) / np.ptp(rest[mid, 2]) - 1
    for lateral in (lateral_y, lateral_z):
        assert abs(-lateral / axial - nu) < 0.02 * nu, (lateral, axial)


def test_pins_hold_and_follow_targets():
    mesh = box(4, 1, 1, 1.0, 0.25, 0.25)
    top = np.flatnonzero(mesh.nodes[:, 0] < 1e-9)
    world = core.World()
    body = world.add_body(mesh, _material(), pinned=top)
    world.step(0.01)
    assert np.array_equal(body.x[top], mesh.nodes[top])       # never set: pins hold
    assert np.all(body.v[top] == 0)
    target = mesh.nodes[top] @ rotation([1, 0, 0], 0.2).T + [0.0, 0.1, 0.0]
    body.set_pin_targets(target)                                # (k,3) form
    world.step(0.01)
    assert np.allclose(body.x[top], target, atol=1e-14)
    assert np.allclose(body.v[top], (target - mesh.nodes[top]) / 0.01)
    full = body.x.copy()
    full[top] += [0.0, 0.0, 0.05]
    body.set_pin_targets(full)                                  # (N,3) form
    world.step(0.01)
    assert np.allclose(body.x[top], full[top], atol=1e-14)
    assert np.all(body.x[np.setdiff1d(np.arange(mesh.num_nodes), top), 2] < 0.25 + 0.06)


def test_pin_weights_and_stiffness_scale():
    mesh = box(4, 1, 1, 1.0, 0.25, 0.25)
    weights = (mesh.nodes[:, 0] < 1e-9).astype(float) * 0.9
    soft, stiff = (core.World(gravity=(0, 0, -0.05)) for _ in range(2))
    b_soft = soft.add_body(mesh, _material(), pinned=weights, stiffness_scale=np.full(mesh.num_tets, 0.5))
    b_stiff = stiff.add_body(mesh, _material(), pinned=weights)
    assert len(b_soft.pinned) == np.count_nonzero(weights)
    soft.solve_static()
    stiff.solve_static()
    sag_soft = -(b_soft.x[:, 2] - mesh.nodes[:, 2]).min()
    sag_stiff = -(b_stiff.x[:, 2] - mesh.nodes[:, 2]).min()
    assert abs(sag_soft / sag_stiff - 2.0) < 0.01    # half the modulus, small load: twice the sag


def test_two_bodies_step_together_independently():
    mesh = box(2, 2, 2)
    world = core.World()
    a = world.add_body(mesh, _material())
    x_before = a.x.copy()
    b = world.add_body(core.TetMesh(mesh.nodes + [3.0, 0, 0], mesh.tets), _material(), pinned=[0])
    assert np.array_equal(a.x, x_before)       # adding a body keeps the others' state
    for _ in range(5):
        world.step(0.01)
    fall = a.x[:, 2] - mesh.nodes[:, 2]
    assert np.ptp(fall) < 1e-3 * abs(fall.mean())     # a free falls (rigidly, to the CG tolerance)
    assert np.allclose(a.x[:, :2], mesh.nodes[:, :2], rtol=0, atol=1e-3 * abs(fall.mean()))
    assert np.array_equal(b.x[0], mesh.nodes[0] + [3.0, 0, 0])


def test_diverging_step_raises_and_restores_state(monkeypatch):
    mesh = box(2, 2, 2)
    world = core.World()
    body = world.add_body(mesh, _material())
    world.step(0.01)
    state = (body.x.copy(), body.v.copy(), world.state.rot.copy(), world.state.witness.copy())
    monkeypatch.setattr(world_module, "implicit_step", blowing_up("v"))
    with pytest.raises(core.SimulationDiverged):
        world.step(0.01)
    assert np.array_equal(body.x, state[0]) and np.array_equal(body.v, state[1])
    assert np.array_equal(world.state.rot, state[2]) and np.array_equal(world.state.witness, state[3])
    monkeypatch.undo()
    world.step(0.01)
    assert np.all(np.isfinite(body.x))


def blowing_up(field):
    """core.world's implicit_step, but one that leaves a NaN in the state's `field` ("x" or "v")."""
    real = world_module.implicit_step

    def step(force_model, state, *args, **kwargs):
        stats = real(force_model, state, *args, **kwargs)
        getattr(state, field)[0, 0] = np.nan
        return stats
    return step


@pytest.mark.parametrize("kwargs, word", [
    ({"poisson_ratio": 0.5}, "poisson_ratio"), ({"poisson_ratio": -1.0}, "poisson_ratio"),
    ({"youngs_modulus": 0.0}, "youngs_modulus"), ({"density": -1.0}, "density"),
    ({"youngs_modulus": np.nan}, "youngs_modulus"), ({"damping_mass": -1.0}, "damping_mass")])
def test_bad_material_raises_naming_the_problem(kwargs, word):
    with pytest.raises(core.InvalidInputError, match=word):
        core.Material(**kwargs)


def test_locking_poisson_ratio_warns():
    with pytest.warns(UserWarning, match="lock"):
        core.Material(poisson_ratio=0.49)


@pytest.mark.parametrize("nodes, tets, word", [
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, np.nan]], [[0, 1, 2, 3]], "NaN"),
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 1, 2, 4]], "range"),
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.zeros((0, 4), int), "zero tets"),
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], [[0, 1, 2, 3]], "zero volume")])
def test_bad_mesh_raises_naming_the_problem(nodes, tets, word):
    with pytest.raises(core.InvalidInputError, match=word):
        core.TetMesh(np.array(nodes, float), np.array(tets))


def test_bad_world_input_raises_and_loses_nothing():
    mesh = box(1, 1, 1)
    world = core.World()
    with pytest.raises(core.InvalidInputError, match="no bodies"):
        world.step(0.01)
    body = world.add_body(mesh, _material(), pinned=[0])
    for bad in ({"pinned": [99]}, {"pinned": np.ones(3)}, {"stiffness_scale": np.zeros(mesh.num_tets)},
                {"stiffness_scale": [1.0]}):
        with pytest.raises(core.InvalidInputError):
            world.add_body(mesh, _material(), **bad)
    assert len(world.bodies) == 1 and world.model.num_nodes == mesh.num_nodes
    assert len(core.World().add_body(mesh, _material(), pinned=[]).pinned) == 0
    for dt in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(core.InvalidInputError, match="dt"):
            world.step(dt)
    with pytest.raises(core.InvalidInputError, match="pin targets"):
        body.set_pin_targets(np.zeros((2, 3)))
    with pytest.raises(core.InvalidInputError, match="NaN"):
        body.set_pin_targets([[np.nan, 0.0, 0.0]])
    with pytest.raises(core.InvalidInputError, match="gravity"):
        core.World(gravity=(0, 0))
    with pytest.raises(core.InvalidInputError):
        core.SolverSettings(cg_iterations=0)
    with pytest.raises(core.InvalidInputError):
        core.SolverSettings(stress_differential="magic")
    body.x[0, 0] = np.nan
    with pytest.raises(core.InvalidInputError, match="NaN"):
        world.step(0.01)
    body.x[0, 0] = 0.0
    free = core.World()
    free.add_body(mesh, _material())
    with pytest.raises(core.InvalidInputError, match="pinned"):
        free.solve_static()


@pytest.mark.parametrize("differential", ["hybrid", "exact"])
def test_newton_iterations_solve_the_backward_euler_equations(differential):
    from core.fem.force_model import ForceModel
    mesh = box(3, 1, 1, 1.0, 0.3, 0.3)
    pinned = np.flatnonzero(mesh.nodes[:, 0] < 1e-9)
    settings = core.SolverSettings(newton_iterations=8, cg_iterations=500, cg_tolerance=1e-12,
                                   stress_differential=differential)
    g = np.array([0.0, 0.0, -9.81])
    world = core.World(gravity=g, settings=settings)
    body = world.add_body(mesh, _material(youngs_modulus=2e4, damping_mass=0.5, damping_stiffness=0.02),
                          pinned=pinned)
    for _ in range(3):
        world.step(0.05)
    v_n, dt = body.v.copy(), 0.05
    world.step(dt)
    # residual of M(v' − vⁿ) = Δt (f(x') + M g − α M v' − β K(x') v') on the free nodes, evaluated here
    fm = ForceModel(world.model, differential)   # Rayleigh βK uses the configured differential
    probe = world.state.copy()
    fm.update_rotations(probe)
    f = fm.forces(probe.x)
    kv = fm.product(body.v, np.empty_like(f), np.full(mesh.num_tets, 0.02))
    m = world.model.mass[:, None]
    residual = m * (body.v - v_n) - dt * (f + m * g - 0.5 * m * body.v - kv)
    free = np.setdiff1d(np.arange(mesh.num_nodes), pinned)
    scale = np.abs(m * (body.v - v_n)).max()
    assert np.abs(residual[free]).max() < 1e-6 * scale, np.abs(residual[free]).max() / scale
    assert world.stats["newton_iterations"] == 8
