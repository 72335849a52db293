"""Goal springs (core.goals): the analytic sag g/ω² and period 1/f of a body held by uniform goals, their Rayleigh
damping βω/2 relative to the targets' motion, targets that move the body and wake it, pins over goals, bad input."""
import numpy as np
import pytest

import core

from fem_testmeshes import box

DT = 1.0 / 96.0
G = 9.81


def _world(frequency, integrator="backward_euler", gravity=(0.0, 0.0, -G), pinned=None, damping=0.0):
    mesh = box(3, 3, 3, 0.3, 0.3, 0.3)
    world = core.World(gravity=gravity, settings=core.SolverSettings(integrator=integrator, cg_tolerance=1e-6,
                                                                     cg_iterations=200))
    f = np.full(mesh.num_nodes, frequency) if np.isscalar(frequency) else frequency
    body = world.add_body(mesh, core.Material(youngs_modulus=1e5, poisson_ratio=0.3, density=1000.0,
                                              damping_stiffness=damping),
                          pinned=pinned, goal_frequency=f)
    return world, body, mesh


def test_uniform_goals_hold_a_body_g_over_omega_squared_below_its_targets_swinging_at_their_frequency():
    # Uniform goals per unit mass under uniform gravity: the body translates rigidly, an oscillator of frequency f
    # about the sag g/(2πf)², 62.1 mm at 2 Hz. Newmark keeps the swing: its period is 1/f (to the trapezoidal
    # rule's (ωΔt)²/12 = 0.14 % here).
    f = 2.0
    world, body, mesh = _world(f, integrator="newmark")
    world.sleeping = False
    z0 = mesh.nodes[:, 2].mean()
    z = []
    for _ in range(480):
        world.step(DT)
        z.append(body.x[:, 2].mean() - z0)
    z = np.array(z)
    sag = G / (2.0 * np.pi * f) ** 2
    assert abs(0.5 * (z.max() + z.min()) + sag) < 0.01 * sag, (z.max(), z.min(), sag)
    up = np.flatnonzero((z[:-1] < -sag) & (z[1:] >= -sag))
    period = np.mean(np.diff(up)) * DT
    assert len(up) >= 7 and abs(period - 1.0 / f) < 0.01 / f, (len(up), period)
    spread = body.x - body.x.mean(axis=0) - (mesh.nodes - mesh.nodes.mean(axis=0))
    assert np.abs(spread).max() < 1e-6 * 0.3, np.abs(spread).max()    # rigid: no node strains


def test_the_bodys_stiffness_damping_damps_its_goal_swing_at_beta_omega_over_two():
    # Rayleigh damping on the springs as on the tets: ζ = βω/2 = 0.126 at 2 Hz and β = 0.02 s, so each swing keeps
    # exp(−2πζ/√(1 − ζ²)) = 0.450 of the one before (Newmark adds no damping of its own).
    f, beta = 2.0, 0.02
    world, body, mesh = _world(f, integrator="newmark", damping=beta)
    world.sleeping = False
    z0 = mesh.nodes[:, 2].mean()
    sag = G / (2.0 * np.pi * f) ** 2
    z = []
    for _ in range(240):
        world.step(DT)
        z.append(body.x[:, 2].mean() - z0 + sag)
    z = np.array(z)
    peaks = [sag] + [z[i] for i in range(1, len(z) - 1) if z[i] > z[i - 1] and z[i] >= z[i + 1] and z[i] > 0]
    zeta = beta * 2.0 * np.pi * f / 2.0
    expected = np.exp(-2.0 * np.pi * zeta / np.sqrt(1.0 - zeta ** 2))
    ratios = np.array(peaks[1:4]) / np.array(peaks[:3])   # (it starts at rest on its targets: a peak)
    assert len(peaks) >= 4 and np.all(np.abs(ratios - expected) < 0.03), (ratios, expected)


def test_a_damped_goal_follows_a_moving_target_without_lag():
    # The damping acts on the velocity relative to the target's: at a steady 1 m/s the body rides on its targets
    # (a damping of the absolute velocity would hold it β v = 50 mm behind).
    world, body, mesh = _world(3.0, gravity=(0.0, 0.0, 0.0), damping=0.05)
    for k in range(1, 289):
        body.set_goal_targets(mesh.nodes + [k * DT * 1.0, 0.0, 0.0])
        world.step(DT)
    lag = (mesh.nodes[:, 0] + 288 * DT) - body.x[:, 0]
    assert np.abs(lag).max() < 1e-3, np.abs(lag).max()


def test_a_body_follows_its_moved_goal_targets_and_wakes_for_them():
    world, body, mesh = _world(3.0, gravity=(0.0, 0.0, 0.0))
    for _ in range(96):
        world.step(DT)
    assert world.asleep[0]
    shift = np.array([0.1, 0.0, 0.0])
    body.set_goal_targets(mesh.nodes + shift)
    world.step(DT)
    assert not world.asleep[0]
    for _ in range(288):
        world.step(DT)
    assert np.abs(body.x - (mesh.nodes + shift)).max() < 1e-3, np.abs(body.x - (mesh.nodes + shift)).max()


def test_pins_hold_exactly_where_goals_also_pull_and_free_nodes_hang_between():
    mesh = box(3, 3, 3, 0.3, 0.3, 0.3)
    top = np.flatnonzero(mesh.nodes[:, 2] > 0.3 - 1e-9)
    world, body, _ = _world(1.0, pinned=top)
    for _ in range(192):
        world.step(DT)
    assert np.array_equal(body.x[top], mesh.nodes[top])
    drop = mesh.nodes[:, 2] - body.x[:, 2]
    assert 0.0 < drop.max() < G / (2.0 * np.pi) ** 2, drop.max()     # held by the pins above the goals' own sag


@pytest.mark.parametrize("frequency", [-1.0, np.nan, np.inf])
def test_bad_goal_frequencies_are_refused_in_one_line(frequency):
    mesh = box(1, 1, 1)
    world = core.World()
    f = np.zeros(mesh.num_nodes)
    f[0] = frequency
    with pytest.raises(core.InvalidInputError, match="goal frequencies"):
        world.add_body(mesh, core.Material(), goal_frequency=f)
    assert world.bodies == []


def test_bad_goal_targets_and_static_solves_are_refused():
    world, body, mesh = _world(1.0, pinned=[0])
    with pytest.raises(core.InvalidInputError, match="goal targets must have shape"):
        body.set_goal_targets(np.zeros((2, 3)))
    bad = mesh.nodes.copy()
    bad[0, 0] = np.nan
    with pytest.raises(core.InvalidInputError, match="NaN"):
        body.set_goal_targets(bad)
    with pytest.raises(core.InvalidInputError, match="goal springs"):
        world.solve_static()
