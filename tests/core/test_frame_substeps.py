"""Adaptive substeps (core.frame_substeps): one step a frame when calm, more as the fastest node would cross more
than TRAVEL of its cell in a step or deform it by more than DEFORM, never more than asked, and bodies asleep count
for nothing."""
import math

import numpy as np
import pytest

import core
from contact_scenes import icosphere
from core.substeps import DEFORM, TRAVEL

FRAME = 1.0 / 24.0


def ball_world(resolution=7):
    world = core.World()
    v, t = icosphere(2, 1.0, (0.0, 0.0, 3.0))
    tm = core.tetrahedralize(v, t, resolution=resolution)
    return world, world.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0))


def test_a_cage_cell_is_its_grid_step():
    world, ball = ball_world()
    step = ball.mesh.report["cell_size"]
    assert ball.mesh.cell_size == pytest.approx(step, rel=0.2)   # outer tets are relaxed toward the surface


def test_calm_is_one_step_and_travel_or_deformation_takes_more_up_to_the_most_asked():
    world, ball = ball_world()
    h = ball.mesh.cell_size
    assert core.frame_substeps(world, FRAME, 4) == 1
    for travel in (0.4, 1.5, 2.5):                               # falling: a node crosses `travel` × TRAVEL cells
        ball.v[:] = (0.0, 0.0, -travel * TRAVEL * h / FRAME)
        assert core.frame_substeps(world, FRAME, 4) == math.ceil(travel)
    assert core.frame_substeps(world, FRAME, 2) == 2
    ball.v[:] = 0.0
    assert core.frame_substeps(world, FRAME, 4, outside_speed=2.5 * TRAVEL * h / FRAME) == 3   # a collider driven
    # spinning (or swinging): the fastest node against the body's mean motion moves 2.5 × DEFORM cells a frame
    mass = world.model.mass[ball.node_slice]
    r = ball.x - mass @ ball.x / mass.sum()
    spin = np.cross([0.0, 0.0, 1.0], r)
    ball.v[:] = spin * (2.5 * DEFORM * h / FRAME / np.linalg.norm(spin, axis=1).max())
    assert core.frame_substeps(world, FRAME, 4) == 3


def test_a_sleeping_body_takes_no_steps_of_its_own_and_bad_input_is_an_error():
    world, ball = ball_world()
    world.add_collider(np.array([[-5, -5, 1.9], [5, -5, 1.9], [5, 5, 1.9], [-5, 5, 1.9]], float),
                       np.array([[0, 1, 2], [0, 2, 3]]), friction=0.8)
    for _ in range(400):
        world.step(FRAME)
        if world.asleep.all():
            break
    assert world.asleep.all()
    ball.v[:] = (0.0, 0.0, -10.0)     # (read as asleep until the next step looks at it)
    assert world.asleep.all() and core.frame_substeps(world, FRAME, 4) == 1
    for args in ((0.0, 4), (FRAME, 0), (FRAME, 2.5), (float("nan"), 4)):
        with pytest.raises(core.InvalidInputError):
            core.frame_substeps(world, *args)
