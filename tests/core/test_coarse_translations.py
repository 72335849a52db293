"""The block-Jacobi CG's coarse space of the bodies' translations, on a stack of default cubes: it solves the same
system as block-Jacobi alone, in fewer iterations."""
import numpy as np
import pytest

import core.solve.implicit_step as implicit_step
from core.solve.pcg import pcg
from core.solve.translations import Translations
from test_scenes_defaults import DT, default_cube, world_on_floor


@pytest.fixture(scope="module")
def stack_solve():
    """The first CG solve of a step of three stacked default cubes, 20 steps after they were set down: (system, b,
    warm start, free, penalty, load)."""
    world = world_on_floor()
    world.sleeping = False
    world.settings.preconditioner = "jacobi"
    for k in range(3):
        default_cube(world, 0.2, 0.0005 + k * 0.204)
    for _ in range(20):
        world.step(DT)
    captured = []

    def spy(system, b, x, free, *args, **kwargs):
        if not captured:
            captured.append((system, b.copy(), x.copy(), free.copy(), args[2], kwargs["load"]))
        return pcg(system, b, x, free, *args, **kwargs)
    implicit_step.pcg, real = spy, implicit_step.pcg
    try:
        world.step(DT)
    finally:
        implicit_step.pcg = real
    return captured[0]


def _solve(stack_solve, coarse, tolerance, cap, monkeypatch):
    system, b, start, free, penalty, load = stack_solve
    if not coarse:
        monkeypatch.setattr(Translations, "coarse", lambda self: (np.zeros((0, 2), np.int64), np.zeros((0, 0))))
    x = start.copy()
    its, res = pcg(system, b, x, free, cap, tolerance, penalty, load=load)
    monkeypatch.undo()
    return x, its, res


def test_the_stack_is_one_island_with_a_coarse_space_of_its_three_bodies(stack_solve):
    system, _b, _x, free, penalty, _load = stack_solve
    from core.solve.islands import islands
    (bodies, blocks), = islands(system.node_ranges, penalty)
    ranges, inverse = Translations(system, bodies, penalty, blocks, free).coarse()
    assert len(ranges) == 3 and inverse.shape == (9, 9)
    assert np.allclose(inverse, inverse.T, rtol=1e-8, atol=0.0)


def test_with_the_coarse_space_cg_converges_to_block_jacobis_solution(stack_solve, monkeypatch):
    plain, its_plain, _ = _solve(stack_solve, False, 1e-9, 3000, monkeypatch)
    coarse, its_coarse, _ = _solve(stack_solve, True, 1e-9, 3000, monkeypatch)
    assert max(its_plain) < 3000 and max(its_coarse) < 3000
    step = plain - stack_solve[2]
    assert np.abs(coarse - plain).max() <= 1e-6 * np.abs(step).max()


def test_the_coarse_space_takes_a_quarter_fewer_iterations_to_the_default_tolerance(stack_solve, monkeypatch):
    _, its_plain, res_plain = _solve(stack_solve, False, 1e-3, 500, monkeypatch)
    _, its_coarse, res_coarse = _solve(stack_solve, True, 1e-3, 500, monkeypatch)
    assert max(res_plain) <= 1e-3 and max(res_coarse) <= 1e-3
    assert max(its_coarse) <= 0.75 * max(its_plain), (its_coarse, its_plain)
