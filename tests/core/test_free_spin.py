"""A stiff body spinning freely keeps its spin: the step starts from the body turned through its rigid spin, so only
backward Euler's own damping of a rotation is left."""
import numpy as np

import core
from contact_scenes import soft_ball

DT = 1.0 / 96.0


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
    # it was left after 1 s, and a Rubber ball rolling down 10° stalled at 0.6 m/s.
    world = core.World(gravity=(0.0, 0.0, 0.0))
    tm, _ = soft_ball(4, 0.25, (0.0, 0.0, 0.0), 12)
    ball = world.add_body(tm, core.Material(youngs_modulus=3.6e6, poisson_ratio=0.45, density=1100.0,
                                            damping_stiffness=0.0002, model="neo_hookean"))
    mass = world.model.mass[ball.node_slice]
    omega = np.array([0.0, 2.5, 0.0])
    ball.v[:] = np.cross(omega, ball.x)
    start = _spin(ball, mass)
    for _ in range(96):
        world.step(DT)
    kept = _spin(ball, mass) @ start / (start @ start)
    backward_euler = (1.0 + (np.linalg.norm(start) * DT) ** 2) ** -48
    assert backward_euler - 0.03 < kept < 1.0 + 1e-6, (kept, backward_euler)
