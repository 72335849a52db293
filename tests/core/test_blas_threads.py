"""OpenBLAS runs on one thread while a World steps (core.blas_threads), and gets its thread count back after."""
import numpy as np

import core
from core.blas_threads import blas_threads
from fem_testmeshes import box


def test_a_step_holds_openblas_to_one_thread_and_restores_it():
    before = blas_threads()
    assert before, "no OpenBLAS thread setter found in numpy's or scipy's bundled libraries"
    world = core.World(gravity=(0.0, 0.0, -9.81))
    world.add_body(box(2, 1, 1, 0.2, 0.1, 0.1), core.Material(1e5, 0.45, 1000.0))
    seen = []
    step = world._step
    world._step = lambda dt: (seen.append(blas_threads()), step(dt))
    world.step(1.0 / 96.0)
    assert seen == [[1] * len(before)]
    assert blas_threads() == before
    assert np.all(np.isfinite(world.bodies[0].x))
