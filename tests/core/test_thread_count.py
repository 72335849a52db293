"""A World's motion does not depend on how many threads its element kernels run on, and that count follows the
machine: whichever ran them faster lately (core.threads)."""
import numba
import numpy as np
import pytest

import core
import core.threads
from contact_scenes import plane, soft_ball
from core.threads import EXPLORE_EVERY, ElementThreads


def _drop(monkeypatch, tets_per_thread, steps=60):
    """A soft ball dropped on a plane: its node positions after each step, and the thread counts its steps ran on."""
    monkeypatch.setattr(core.threads, "TETS_PER_THREAD", tets_per_thread)
    mesh, _ = soft_ball(3, 0.3, (0.0, 0.0, 0.4), 6)
    world = core.World(settings=core.SolverSettings(preconditioner="jacobi"))
    body = world.add_body(mesh, core.Material(1e5, 0.45, 1000.0, damping_stiffness=0.001, friction=0.5))
    world.add_collider(*plane(), friction=0.5, thickness=0.02)
    threads, step = [], world._step
    world._step = lambda dt: (threads.append(numba.get_num_threads()), step(dt))
    path = []
    for _ in range(steps):
        world.step(1.0 / 96.0)
        path.append(body.x.copy())
    return np.array(path), set(threads), world


def test_a_landing_ball_moves_the_same_bit_for_bit_on_one_thread_and_on_two(monkeypatch):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only on this machine")
    one, threads_one, _ = _drop(monkeypatch, 10 ** 9)
    two, threads_two, world = _drop(monkeypatch, 1)
    assert threads_one == {1} and 2 in threads_two
    assert world.stats["contact_rows"] or world.stats["contacts"], "the ball never touched the plane"
    assert np.array_equal(one, two), f"apart by {np.abs(one - two).max():.3g} m"


def _run(choice, seconds, steps, used):
    for _ in range(steps):
        count = choice.next()
        used.append(count)
        choice.record(count, seconds(count, len(used)))


def test_the_element_threads_follow_whichever_count_ran_faster_and_try_the_other_now_and_then(monkeypatch):
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 4)
    assert ElementThreads(2499).counts == (1,)                     # too small to share
    choice = ElementThreads(2 * core.threads.TETS_PER_THREAD)
    assert choice.counts == (2, 1)
    used = []
    # two threads faster, but the first launch starts the pool and one step is delayed by the system
    _run(choice, lambda c, k: 0.02 if k == 1 else (0.005 if k == 40 else {2: 1e-3, 1: 1.6e-3}[c]),
         4 * EXPLORE_EVERY, used)
    assert choice.best == 2 and used[-2 * EXPLORE_EVERY:].count(1) == 2
    _run(choice, lambda c, k: {2: 3e-3, 1: 1.6e-3}[c], 3 * EXPLORE_EVERY, used)   # the other core got busy
    assert choice.best == 1 and used[-EXPLORE_EVERY:].count(2) == 1
