"""A stiff body keeps its spin, in the air and rolling: the step starts from each free body turned through its rigid
spin, so only backward Euler's own damping of a rotation is left."""
import numpy as np

import core
from contact_scenes import plane, soft_ball

DT = 1.0 / 96.0
G = 9.81


def rubber_ball(world, centre):
    """A Rubber ball (neo-Hookean, E = 3.6 MPa, r = 0.25 m, cage resolution 12) at `centre`; returns it and its masses."""
    tm, _ = soft_ball(4, 0.25, centre, 12)
    ball = world.add_body(tm, core.Material(youngs_modulus=3.6e6, poisson_ratio=0.45, density=1100.0,
                                            damping_stiffness=0.0002, friction=0.8, model="neo_hookean"))
    return ball, world.model.mass[ball.node_slice]


def _spin(body, mass):
    """The body's angular velocity about its centre of mass (angular momentum over the inertia tensor)."""
    r = body.x - mass @ body.x / mass.sum()
    u = body.v - mass @ body.v / mass.sum()
    inertia = np.eye(3) * (mass @ np.einsum("nd,nd->n", r, r)) - (r * mass[:, None]).T @ r
    return np.linalg.solve(inertia, np.cross(r, u).T @ mass)


def test_a_rubber_ball_spinning_in_the_air_keeps_its_spin():
    # Backward Euler turns a body like an undamped oscillator of its angular frequency ω: each step scales it by
    # 1/sqrt(1 + (ωΔt)²), 0.968 of the spin kept over 1 s at ω = 2.5 rad/s. From the straight path x + Δt v, each step
    # began with the ball stretched by ½(ωΔt)² r, and backward Euler took that strain's energy out of the spin: 0.26 of
    # it was left after 1 s.
    world = core.World(gravity=(0.0, 0.0, 0.0))
    ball, mass = rubber_ball(world, (0.0, 0.0, 0.0))
    omega = np.array([0.0, 2.5, 0.0])
    ball.v[:] = np.cross(omega, ball.x)
    start = _spin(ball, mass)
    for _ in range(96):
        world.step(DT)
    kept = _spin(ball, mass) @ start / (start @ start)
    backward_euler = (1.0 + (np.linalg.norm(start) * DT) ** 2) ** -48
    assert backward_euler - 0.03 < kept < 1.0 + 1e-6, (kept, backward_euler)


def test_a_rubber_ball_rolls_down_a_gentle_slope_as_a_rigid_ball_does():
    # A rigid ball rolling without slipping down θ = 10° at μ = 0.8 (tanθ < 3.5 μ: it does not slip) accelerates at
    # 5/7 g sinθ. Measured at 1 s: 0.87 of that speed (backward Euler's damping of the turn, (ωΔt)²/2 a step, and the
    # rubber's own losses as it deforms round), rolling without slipping; from the straight path it stalled at 0.5.
    th = np.radians(10.0)
    world = core.World(gravity=(G * np.sin(th), 0.0, -G * np.cos(th)))
    world.sleeping = False
    world.add_collider(*plane(20.0), friction=0.8)
    ball, mass = rubber_ball(world, (0.0, 0.0, 0.2505))
    for _ in range(96):
        world.step(DT)
    speed = (mass @ ball.v / mass.sum())[0]
    rigid = 5.0 / 7.0 * G * np.sin(th) * 96 * DT
    assert 0.8 * rigid < speed < 1.02 * rigid, (speed, rigid)
    assert abs(_spin(ball, mass)[1] * 0.25 - speed) < 0.03 * speed      # rolling, not sliding
