"""Newmark (implicit trapezoidal, β = 1/4, γ = 1/2): energy kept by an undamped cantilever where backward Euler loses
it, Rayleigh damping at the analytic ratio βω/2, exact free fall, inelastic contact, bad input."""
import numpy as np
import pytest

import core
import core.world as world_module

from contact_scenes import plane, soft_ball, tet_box
from fem_testmeshes import box
from test_integrator_motion import blowing_up

L, H, E, RHO = 1.0, 0.1, 1e7, 100.0
DT = 1.0 / 96.0                      # the add-on's default substep (24 fps, 4 substeps)
TIGHT = dict(cg_iterations=500, cg_tolerance=1e-6, preconditioner="multigrid")


def _released_beam(integrator, damping_stiffness=0.0, **settings):
    """A 20 × 2 × 2-cube cantilever pinned at x = 0, bent by its weight (static solve), then released with gravity
    off: it swings about its straight rest shape (first mode ~6.6 Hz, ωΔt ≈ 0.43)."""
    mesh = box(20, 2, 2, L, H, H)
    world = core.World(gravity=(0.0, 0.0, -9.81), settings=core.SolverSettings(integrator=integrator, **settings))
    body = world.add_body(mesh, core.Material(youngs_modulus=E, poisson_ratio=0.0, density=RHO,
                                              damping_stiffness=damping_stiffness),
                          pinned=np.flatnonzero(mesh.nodes[:, 0] < 1e-9))
    world.solve_static()
    world.gravity = (0.0, 0.0, 0.0)
    return world, body, mesh.nodes[:, 0] > L - 1e-9


def _energy(world, body):
    return 0.5 * float(np.sum(world.model.mass[:, None] * body.v ** 2)) + float(world._tet_energies().sum())


def _swing(integrator, steps, damping_stiffness=0.0, **settings):
    """Total energy after each step relative to the start, and the tip's height."""
    world, body, tip = _released_beam(integrator, damping_stiffness, **settings)
    e0 = _energy(world, body)
    energy, z = [], []
    for _ in range(steps):
        world.step(DT)
        energy.append(_energy(world, body) / e0)
        z.append(body.x[tip, 2].mean() - 0.5 * H)
    return np.array(energy), np.array(z)


def test_newmark_keeps_the_energy_of_a_free_vibrating_cantilever_over_ten_periods():
    # measured: Newmark (2 Newton iterations) 0.9992–1.0000 of the start; backward Euler keeps 8e-8 of it
    newmark, z = _swing("newmark", 150, **TIGHT)
    assert np.all(np.abs(newmark - 1.0) < 0.02), (newmark.min(), newmark.max())
    crossings = np.flatnonzero((z[:-1] > 0) & (z[1:] <= 0))
    assert len(crossings) >= 9, len(crossings)               # ten periods
    euler, _ = _swing("backward_euler", 150, **TIGHT)
    assert euler[-1] < 0.01, euler[-1]                       # its numerical damping eats the swing at this Δt


def test_newmark_at_the_default_cg_keeps_the_energy_within_two_percent():
    newmark, _ = _swing("newmark", 150)
    assert np.all(np.abs(newmark - 1.0) < 0.02), (newmark.min(), newmark.max())


def test_rayleigh_damping_under_newmark_matches_beta_omega_over_two():
    """A mode of angular frequency ω damped with ζ = βω/2 loses energy as e^(−2ζωt). Measured from the total energy
    once the higher modes have died (after 0.25 s), ω from the tip's downward zero crossings."""
    beta = 0.002                                             # ζ ≈ 0.04 for the first mode
    energy, z = _swing("newmark", 150, damping_stiffness=beta, **TIGHT)
    t = DT * np.arange(1, 151)
    later = t > 0.25
    crossings = np.flatnonzero((z[:-1] > 0) & (z[1:] <= 0))
    omega = 2 * np.pi / (DT * np.mean(np.diff(crossings)))
    zeta = -np.polyfit(t[later], np.log(energy[later]), 1)[0] / (2 * omega)
    assert abs(zeta / (0.5 * beta * omega) - 1.0) < 0.2, (zeta, 0.5 * beta * omega)


def test_newmark_free_fall_is_exact():
    mesh = box(2, 2, 2, 0.2, 0.2, 0.2)
    world = core.World(gravity=(0.0, 0.0, -9.81), settings=core.SolverSettings(integrator="newmark"))
    body = world.add_body(mesh, core.Material())
    v0 = np.array([1.0, -0.5, 2.0])
    body.v[:] = v0
    for _ in range(48):
        world.step(DT)
    t = 48 * DT
    g = np.array([0.0, 0.0, -9.81])
    m = world.model.mass / world.model.mass.sum()
    assert np.allclose(m @ body.x, m @ mesh.nodes + v0 * t + 0.5 * g * t * t, rtol=0, atol=1e-9)
    assert np.allclose(m @ body.v, v0 + g * t, rtol=0, atol=1e-9)
    assert np.allclose(body.x, mesh.nodes + v0 * t + 0.5 * g * t * t, rtol=0, atol=1e-6)   # rigid, to the CG


def test_newmark_landing_is_inelastic_and_rests_on_the_plane():
    """A body in contact steps with backward Euler: the trapezoidal rule alone would reflect a stopped approach
    (δ = 0 gives vⁿ⁺¹ = −vⁿ) and the box would bounce back to its release height."""
    world = core.World(gravity=(0.0, 0.0, -9.81), settings=core.SolverSettings(integrator="newmark"))
    body = world.add_body(tet_box(3, 0.2, (-0.1, -0.1, 0.1)),
                          core.Material(youngs_modulus=1e5, damping_stiffness=0.001))   # the add-on's defaults
    world.add_collider(*plane(), friction=0.5)
    lowest = []
    for _ in range(192):                                     # 2 s: it lands after ~0.14 s
        world.step(DT)
        assert np.all(np.isfinite(body.x))
        lowest.append(body.x[:, 2].min())
    lowest = np.array(lowest)
    assert lowest[60:].max() < 0.01, lowest[60:].max()       # never bounces back up (released at 0.1 m)
    assert lowest.min() > -1e-3, lowest.min()                # nothing through the plane
    m = world.model.mass / world.model.mass.sum()
    assert np.abs(m @ body.v).max() < 0.01, m @ body.v


def test_an_unknown_integrator_is_refused_with_its_name():
    with pytest.raises(core.InvalidInputError, match="integrator"):
        core.SolverSettings(integrator="rk4")


def test_newmark_runs_two_newton_iterations_unless_told():
    assert core.SolverSettings(integrator="newmark").newton_iterations == 2
    assert core.SolverSettings().newton_iterations == 1
    assert core.SolverSettings(integrator="newmark", newton_iterations=1).newton_iterations == 1


def test_a_diverging_newmark_step_raises_and_restores_the_state(monkeypatch):
    mesh = box(2, 2, 2)
    world = core.World(settings=core.SolverSettings(integrator="newmark"))
    body = world.add_body(mesh, core.Material())
    world.step(0.01)
    x, v = body.x.copy(), body.v.copy()
    monkeypatch.setattr(world_module, "implicit_step", blowing_up("x"))
    with pytest.raises(core.SimulationDiverged):
        world.step(0.01)
    assert np.array_equal(body.x, x) and np.array_equal(body.v, v)


def test_a_newmark_rubber_ball_on_a_thick_plane_stays_calm():
    """The case that made bodies in contact step with backward Euler: a neo-Hookean rubber ball (the Rubber preset)
    dropped 30 cm on a plane of 2 cm thickness at the add-on's CG (block-Jacobi, cap 50). With the trapezoidal end
    velocity on its contact nodes its nodes rang at 5–10 m/s (1e4 m/s with a converged CG) instead of settling."""
    tm, _ = soft_ball(3, 0.15, (0.0, 0.0, 0.47), 12)
    world = core.World(gravity=(0.0, 0.0, -9.81), settings=core.SolverSettings(integrator="newmark", cg_iterations=50,
                                                                                 preconditioner="jacobi"))
    body = world.add_body(tm, core.Material(youngs_modulus=3.6e6, density=1100.0, damping_stiffness=0.0002,
                                            friction=0.8, model="neo_hookean"))
    world.add_collider(*plane(10.0), friction=0.8, thickness=0.02)
    speeds = []
    for _ in range(144):
        world.step(DT)
        speeds.append(np.abs(body.v).max())
    assert max(speeds) < 2 * np.sqrt(2 * 9.81 * 0.3), max(speeds)     # never faster than twice its impact speed
    assert max(speeds[-48:]) < 0.5, max(speeds[-48:])
    assert np.all(tm.volumes(body.x) > 0)
