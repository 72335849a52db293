"""Rolling resistance (core.contact.rolling): a ball holds on a slight incline, rolls down a steep one at the rate of
rigid rolling with a braking torque η·a·Fₙ, and a ball put on a floor stays where it is put."""
import numpy as np

import core
from contact_scenes import plane, soft_ball

DT = 1.0 / 96.0
G = 9.81
RADIUS = 0.5


def ball_on_incline(degrees, seconds, rolling_resistance=None, damping=0.001):
    """A 1 m ball (icosphere, 4 subdivisions, cage resolution 12, E = 1e5 Pa) put 0.5 mm above a plane tilted by
    `degrees` (gravity tilted instead, down-slope = +x), μ = 0.8. Returns its centre of mass's down-slope position per step, the world, the
    ball's masses and its nodes' range."""
    th = np.radians(degrees)
    world = core.World(gravity=(G * np.sin(th), 0.0, -G * np.cos(th)), settings=core.SolverSettings(cg_iterations=50))
    world.sleeping = False
    if rolling_resistance is not None:
        world.contact_settings.rolling_resistance = rolling_resistance
    world.add_collider(*plane(20.0), friction=0.8)
    tm, _ = soft_ball(4, RADIUS, (0.0, 0.0, RADIUS + 0.0005), 12)
    body = world.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0,
                                            damping_stiffness=damping, friction=0.8))
    mass = world.model.mass[body.node_slice]
    com = []
    for _ in range(int(round(seconds / DT))):
        world.step(DT)
        com.append((mass[:, None] * body.x).sum(axis=0) / mass.sum())
    return np.array(com), world, mass, body


def patch(world):
    """Normal force, RMS radius of the contact patch (weighted by normal force) and its centre."""
    c = world.contacts
    fn = np.maximum(np.einsum("cd,cd->c", c.forces, c.normals), 0.0)
    centre = (c.points * fn[:, None]).sum(axis=0) / fn.sum()
    d = c.points - centre
    d[:, 2] = 0.0
    return fn.sum(), np.sqrt((fn * np.einsum("cd,cd->c", d, d)).sum() / fn.sum()), centre


def test_a_ball_put_on_a_floor_stays_where_it_is_put():
    # Without rolling resistance the cage's stiffness, which depends slightly on its orientation, rolled this ball
    # put on a floor 5 cm to and fro over 8 s (measured: 34 mm by 4 s at this damping, which quiets its bounce)
    com, _, _, _ = ball_on_incline(0.0, 4.0, damping=0.03)
    free, _, _, _ = ball_on_incline(0.0, 4.0, rolling_resistance=0.0, damping=0.03)
    drift = np.linalg.norm(com[:, :2] - com[0, :2], axis=1).max()
    drift_free = np.linalg.norm(free[:, :2] - free[0, :2], axis=1).max()
    assert drift < 0.001, f"it rolled {drift * 1e3:.2f} mm"
    assert drift_free > 5 * drift


def test_a_ball_holds_on_an_incline_its_rolling_resistance_can_carry():
    # The braking torque η·a·Fₙ carries the weight's torque m g sinθ · h about the patch while tanθ < η a / h. Measured:
    # it creeps 0.4 mm in its last second (below the sleep speed, so a sleeping world freezes it); without rolling
    # resistance it rolls away.
    com, world, _, _ = ball_on_incline(0.3, 3.0, damping=0.03)
    free, _, _, _ = ball_on_incline(0.3, 3.0, rolling_resistance=0.0, damping=0.03)
    fn, a, centre = patch(world)
    h = com[-1, 2] - centre[2]
    eta = world.contact_settings.rolling_resistance
    assert np.tan(np.radians(0.3)) < 0.5 * eta * a / h       # well inside what it can carry
    assert abs(com[-1, 0] - com[-96, 0]) < 0.001              # its last second
    assert abs(com[-1, 0] - com[0, 0]) < 0.005
    assert free[-1, 0] - free[0, 0] > 10 * abs(com[-1, 0] - com[0, 0])


def test_a_ball_rolls_down_a_steep_incline_braked_about_as_the_rolling_resistance_law_says():
    # A rigid body rolling without slipping down an incline, braked by the torque b·Fₙ (b = η a), accelerates at
    # g (sinθ − (b/h) cosθ) · m h² / I_c (torques about the contact line; I_c its moment of inertia about it, h the
    # height of its centre of mass over the patch): the brake takes g (b/h) cosθ · m h² / I_c off. The ball's I_c and
    # h are taken from its nodes, a from its patch. Measured at 10°: without rolling resistance it accelerates at
    # 0.87 m/s², 80 % of rigid rolling's 1.11 (the soft ball's own losses as it deforms round); with it at 0.57: the
    # brake takes 0.31 m/s² off where the law says 0.19 (1.65x, not explained; 1.43x before the implicit solve's
    # rows grew with the points its motion brings into contact, ContactStage.grow, which leaves the free ball's
    # rate as it was and brakes it harder whether or not those rows carry friction).
    degrees = 10.0
    th = np.radians(degrees)
    t = np.arange(1, 97) * DT
    late = t > 0.4                                      # landed and rolling
    rates = []
    for rr in (None, 0.0):
        com, world, mass, body = ball_on_incline(degrees, 1.0, rolling_resistance=rr)
        rates.append(2.0 * np.polyfit(t[late], com[late, 0], 2)[0])
        if rr is None:
            fn, a, centre = patch(world)
            x = body.x - com[-1]
            h = com[-1, 2] - centre[2]
            inertia = (mass * (x[:, 0] ** 2 + x[:, 2] ** 2)).sum() + mass.sum() * h * h
            brake = G * world.contact_settings.rolling_resistance * a / h * np.cos(th) * mass.sum() * h * h / inertia
    braked, free = rates
    assert 0.7 * brake < free - braked < 1.8 * brake
    assert free < G * np.sin(th) * 0.8 and braked > 0.0   # it rolls (it does not slide, nor stop)
