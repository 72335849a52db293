"""A World resumed from another's x, v, motion and carried() steps on bit for bit as the one it came from."""
import numpy as np
import pytest

import core

from contact_scenes import plane, soft_ball, tet_box

DT = 1.0 / 48.0
STEPS = 96                      # 2 s
CENTRES = [(0.0, 0.0, 0.1005), (0.05, 0.0, 0.3), (-0.03, 0.05, 0.48)]   # stacked loosely: they land on each other
RESUMED_AT = (30, 88)           # landing on each other; the bottom one asleep, the others awake
MEMORY = ("contact.row_",)   # the contact solve's memory: the rows' normal forces and friction anchors


def _world():
    """Three 0.1 m balls (108 nodes, ~320 tets each) above a plane, block-Jacobi CG (no preconditioner cache)."""
    world = core.World(settings=core.SolverSettings(preconditioner="jacobi"))
    for centre in CENTRES:
        tm, _ = soft_ball(2, 0.1, centre, resolution=4)
        world.add_body(tm, core.Material(youngs_modulus=1e5, friction=0.5))
    world.add_collider(*plane(), friction=0.5)
    return world


def _positions(world):
    return np.concatenate([b.x for b in world.bodies])


@pytest.fixture(scope="module")
def run():
    """An uninterrupted run of STEPS steps: what the add-on caches after each step of RESUMED_AT (x, v, motion,
    carried) and the asleep flags there, the body pairs that touched, the end positions."""
    world = _world()
    touched, saved = set(), {}
    for step in range(1, STEPS + 1):
        world.step(DT)
        c = world.contacts
        touched |= {tuple(sorted(p)) for p in zip(c.body[c.other_body >= 0], c.other_body[c.other_body >= 0])}
        if step in RESUMED_AT:
            saved[step] = ([b.x.copy() for b in world.bodies], [b.v.copy() for b in world.bodies], world.motion,
                           world.carried(), world.asleep)
    return saved, touched, _positions(world)


def _resumed(step, saved, leave_out=(), forget=False):
    """A fresh world given the state saved after `step` (but the carried arrays named in `leave_out`, taken from a
    fresh world instead; None: nothing carried; forget: the contact memory emptied), stepped to the end of the run."""
    x, v, motion, carried, _asleep = saved
    if forget:
        carried = {k: a[:0] if k.startswith(MEMORY) and a.ndim else a for k, a in carried.items()}
    world = _world()
    for body, xb, vb in zip(world.bodies, x, v):
        body.x[:], body.v[:] = xb, vb
    if leave_out is not None:
        fresh = world.carried()
        world.resume({k: fresh[k] if k in leave_out else a for k, a in carried.items()})
    world.motion = motion
    for _ in range(step, STEPS):
        world.step(DT)
    return _positions(world)


def test_the_scene_lands_touches_and_sleeps(run):
    saved, touched, _end = run
    assert touched == {(0, 1), (0, 2), (1, 2)}                      # every ball touched the others
    for step in RESUMED_AT:
        assert len(saved[step][3]["contact.row_key"]) > 0    # contacts carry forces and anchors on
    assert not saved[30][4].any()
    assert saved[88][4].any() and not saved[88][4].all()             # resumed with a body asleep, others awake


@pytest.mark.parametrize("step", RESUMED_AT)
def test_a_resumed_world_steps_on_bit_for_bit(run, step):
    saved, _touched, end = run
    resumed = _resumed(step, saved[step])
    assert np.array_equal(resumed, end), f"{np.abs(resumed - end).max():.3g} m apart"


@pytest.mark.parametrize("step", RESUMED_AT)
def test_without_the_contact_memory_the_resumed_world_parts(run, step):
    """The test measures something: without the contact memory (the points' normal forces and friction anchors; or
    without anything carried: the add-on's resume before) the resumed world moves otherwise."""
    saved, _touched, end = run
    without_rows = _resumed(step, saved[step], forget=True)
    without_anything = _resumed(step, saved[step], leave_out=None)
    assert not np.array_equal(without_rows, end)
    assert not np.array_equal(without_anything, end)
    print(f"\nresumed after step {step}: without the contact memory "
          f"{np.linalg.norm(without_rows - end, axis=1).max():.3g} m, without anything carried "
          f"{np.linalg.norm(without_anything - end, axis=1).max():.3g} m apart at step {STEPS}")


def test_what_is_resumed_is_carried_on(run):
    saved, _touched, _end = run
    x, v, _motion, carried, _asleep = saved[88]
    world = _world()
    for body, xb, vb in zip(world.bodies, x, v):
        body.x[:], body.v[:] = xb, vb
    world.resume(carried)
    again = world.carried()
    assert sorted(again) == sorted(carried)
    for name, a in carried.items():
        assert np.array_equal(again[name], a) and again[name].dtype == a.dtype, name


def test_a_carried_state_that_does_not_fit_is_refused_and_changes_nothing(run):
    carried = run[0][88][3]
    world = _world()
    before = world.carried()
    bad = [{**carried, "state.rot": carried["state.rot"][1:]},
           {**carried, "sleep.quiet": np.full(3, np.nan)},
           {k: a for k, a in carried.items() if k != "contact.row_stretch"},
           {**carried, "contact.collider_x": carried["contact.collider_x"][:2]},
           {**carried, "contact.row_key": carried["contact.row_key"][::-1].copy()},   # (keys must be sorted)
           "not a dict"]
    for b in bad:
        with pytest.raises(core.InvalidInputError):
            world.resume(b)
    after = world.carried()
    assert all(np.array_equal(after[k], before[k]) for k in before)


def _driven_world():
    """A 0.2 m box on goal springs (2 Hz, damped relative to their targets: β = 0.01 s) whose targets slide along x,
    on a plane rising 0.5 mm a step."""
    world = core.World(settings=core.SolverSettings(preconditioner="jacobi"))
    mesh = tet_box(3, 0.2, (-0.1, -0.1, 0.001))
    body = world.add_body(mesh, core.Material(youngs_modulus=1e5, friction=0.5, damping_stiffness=0.01),
                          goal_frequency=np.full(mesh.num_nodes, 2.0))
    floor = world.add_collider(*plane(), friction=0.5)
    return world, body, floor


def _drive(world, body, floor, steps):
    """Steps first..last (1-based): each sets the goal targets and the plane's end for its step, as the add-on does."""
    v, _ = plane()
    for step in steps:
        body.set_goal_targets(body.mesh.nodes + [0.002 * step, 0.0, 0.0])
        world.move_collider(floor, v + [0.0, 0.0, 0.0005 * step])
        world.step(DT)


def test_goal_targets_and_collider_places_carry_on():
    world, body, floor = _driven_world()
    _drive(world, body, floor, range(1, 21))
    saved = body.x.copy(), body.v.copy(), world.motion, world.carried()
    _drive(world, body, floor, range(21, 31))
    ends = []
    for leave_out in ((), ("goals.last",), ("contact.collider_x",)):
        fresh, fresh_body, fresh_floor = _driven_world()
        fresh_body.x[:], fresh_body.v[:] = saved[0], saved[1]
        blank = fresh.carried()
        fresh.resume({k: blank[k] if k in leave_out else a for k, a in saved[3].items()})
        fresh.motion = saved[2]
        _drive(fresh, fresh_body, fresh_floor, range(21, 31))
        ends.append(fresh_body.x.copy())
    assert len(world.contacts) and np.ptp(body.x[:, 0]) > 0.15           # it rests on the plane, sliding along
    assert np.array_equal(ends[0], body.x), f"{np.abs(ends[0] - body.x).max():.3g} m apart"
    assert not np.array_equal(ends[1], body.x)       # the targets' velocity measured from where the last step left them
    assert not np.array_equal(ends[2], body.x)       # the plane's motion within the step
