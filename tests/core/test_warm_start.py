"""The CG's warm start extrapolates the last steps' accelerations where their CG met its tolerance."""
import numpy as np
import pytest

import core

from contact_scenes import plane, tet_box
from fem_testmeshes import box


def _swing(youngs_modulus, forget, steps=24, cg_iterations=40, cg_tolerance=1e-3):
    """A 1 m beam (12×3×3 cells) pinned at x = 0, swinging down from rest under block-Jacobi CG; forget: the last
    step's motion forgotten before each step (World.reset_preconditioner), so each starts from Δt vⁿ. Returns the
    node positions per step and the CG iterations of all steps."""
    mesh = box(12, 3, 3, 1.0, 0.25, 0.25)
    settings = core.SolverSettings(preconditioner="jacobi", cg_iterations=cg_iterations, cg_tolerance=cg_tolerance)
    world = core.World(settings=settings)
    body = world.add_body(mesh, core.Material(youngs_modulus=youngs_modulus, poisson_ratio=0.45, density=1000.0),
                          pinned=np.flatnonzero(mesh.nodes[:, 0] < 1e-9))
    path, its = [], 0
    for _ in range(steps):
        if forget:
            world.reset_preconditioner()
        world.step(1.0 / 96.0)
        path.append(body.x.copy())
        its += world.stats["cg_iterations"]
    return np.array(path), its


def test_extrapolating_the_motion_saves_cg_iterations_and_is_as_accurate():
    """Against a converged solve (tolerance 1e-9) of the 401 mm swing: 0.51 mm off at worst with the extrapolated
    warm start, 0.56 mm from Δt vⁿ, in 217 against 425 block-Jacobi iterations (measured; extrapolating aⁿ⁻¹ alone,
    0.40 mm in 284)."""
    path, its = _swing(1e5, forget=False)
    path_plain, its_plain = _swing(1e5, forget=True)
    reference, _ = _swing(1e5, forget=True, cg_iterations=2000, cg_tolerance=1e-9)
    assert its < 0.8 * its_plain, (its, its_plain)
    error, error_plain = np.abs(path - reference).max(), np.abs(path_plain - reference).max()
    assert error < 1.25 * error_plain, (error, error_plain)


def test_a_capped_cg_is_not_extrapolated():
    """A stiff beam whose block-Jacobi CG stops at its cap every step moves exactly as from Δt vⁿ: extrapolating the
    capped solves' error made the Rubber beam swing up to 74 % of its swing off the converged path (27 % without)."""
    path, its = _swing(3.6e6, forget=False, cg_iterations=10)
    path_plain, _ = _swing(3.6e6, forget=True, cg_iterations=10)
    assert its == 10 * len(path)
    assert np.array_equal(path, path_plain)


def test_a_body_in_contact_is_not_extrapolated():
    """Contact's impulses come and go: extrapolated, Blender's 20 cm default cube landing at the defaults took 772 CG
    iterations over 96 steps against 576. A box resting on a plane from the start moves exactly as from Δt vⁿ."""
    paths = []
    for forget in (False, True):
        world = core.World(settings=core.SolverSettings(preconditioner="jacobi"))
        body = world.add_body(tet_box(3, 0.2, (-0.1, -0.1, 0.0)), core.Material(youngs_modulus=1e5))
        world.add_collider(*plane(), friction=0.5)
        world.sleeping = False
        path = []
        for _ in range(24):
            if forget:
                world.reset_preconditioner()
            world.step(1.0 / 96.0)
            assert len(world.contacts.points)
            path.append(body.x.copy())
        paths.append(np.array(path))
    assert np.array_equal(*paths)


def _beam_world():
    mesh = box(12, 3, 3, 1.0, 0.25, 0.25)
    world = core.World(settings=core.SolverSettings(preconditioner="jacobi"))
    body = world.add_body(mesh, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0),
                          pinned=np.flatnonzero(mesh.nodes[:, 0] < 1e-9))
    return world, body


def test_a_world_given_the_same_state_and_motion_steps_on_exactly():
    """What the add-on caches with each frame: x, v and the motion (the last steps' accelerations) of the swinging
    beam, given to a fresh world, make the same next steps bit for bit; x and v alone do not."""
    world, body = _beam_world()
    for _ in range(8):
        world.step(1.0 / 96.0)
    x, v, motion = body.x.copy(), body.v.copy(), world.motion
    assert motion is not None and motion[0] is not None
    for _ in range(4):
        world.step(1.0 / 96.0)
    paths = []
    for restore in (True, False):
        fresh, fresh_body = _beam_world()
        fresh_body.x[:], fresh_body.v[:] = x, v
        if restore:
            fresh.motion = motion
        for _ in range(4):
            fresh.step(1.0 / 96.0)
        paths.append(fresh_body.x.copy())
    assert np.array_equal(paths[0], body.x)
    assert not np.array_equal(paths[1], body.x)


def test_a_motion_that_does_not_fit_the_world_is_refused():
    world, body = _beam_world()
    n = len(body.x)
    for bad in ([np.zeros((n, 3))], [(np.zeros((n - 1, 3)), np.zeros((n - 1, 3)))], [None, None],
                [(np.full((n, 3), np.nan), np.zeros((n, 3)))]):
        with pytest.raises(core.InvalidInputError):
            world.motion = bad
    world.motion = [None]          # none kept: forgotten
    assert world.motion is None


def test_after_a_write_to_the_velocities_only_the_last_step_is_extrapolated():
    """The prediction 2aⁿ⁻¹ − aⁿ⁻² needs two steps in a row: a step that went on from written velocities (a push,
    a teleport) is predicted from its own acceleration alone."""
    from core.warm_start import LastMotion
    ranges, keep, dt = [(0, 2)], np.array([True]), 0.01
    motion = LastMotion()
    v0 = np.zeros((2, 3))
    v1 = v0 + dt * np.array([0.0, 0.0, -1.0])
    motion.record(v0, v1, dt, ranges, keep)
    v2 = v1 + dt * np.array([0.0, 0.0, -2.0])
    motion.record(v1, v2, dt, ranges, keep)
    np.testing.assert_allclose(motion.acceleration(v2), [[0.0, 0.0, -3.0]] * 2)     # 2 (−2) − (−1)
    written = v2 + 1.0
    v3 = written + dt * np.array([0.0, 0.0, -4.0])
    assert motion.acceleration(written) is None
    motion.record(written, v3, dt, ranges, keep)
    np.testing.assert_allclose(motion.acceleration(v3), [[0.0, 0.0, -4.0]] * 2)
