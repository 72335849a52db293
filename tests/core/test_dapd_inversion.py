"""DAPD: inversion-safe rotations (monotone energy, recovery from inversion and scrambling, one-step crossings)."""
import numpy as np
import pytest

import core
from core.fem import dapd

from fem_testmeshes import box, rotation, single_tet


def _world(mesh, damping_mass=0.0, youngs_modulus=1e4, gravity=(0.0, 0.0, 0.0), **settings):
    world = core.World(gravity=gravity, settings=core.SolverSettings(**settings))
    body = world.add_body(mesh, core.Material(youngs_modulus=youngs_modulus, poisson_ratio=0.3,
                                              density=1000.0, damping_mass=damping_mass))
    return world, body


def _unit(v):
    return v / np.linalg.norm(v)


def _deformation_gradient(x, rest):
    return (x[1:] - x[0]).T @ np.linalg.inv((rest[1:] - rest[0]).T)


def _rigid_fit(x, rest):
    """Best rotation (Kabsch, det +1) and the max residual of x ≈ R rest + t."""
    xc, rc = x - x.mean(0), rest - rest.mean(0)
    u, _, vt = np.linalg.svd(xc.T @ rc)
    rot = u @ np.diag([1, 1, np.sign(np.linalg.det(u @ vt))]) @ vt
    return rot, np.abs(xc - rc @ rot.T).max()


def _vertex_face_path(rest, depths):
    n = _unit(np.cross(rest[1] - rest[0], rest[2] - rest[0]))
    h = (rest[3] - rest[0]) @ n
    for s in depths:
        x = rest.copy()
        x[3] -= (1 - s) * h * n
        yield x


def _edge_edge_path(rest, depths):
    n = _unit(np.cross(rest[1] - rest[0], rest[3] - rest[2]))
    h = (rest[2] - rest[0]) @ n
    for s in depths:
        x = rest.copy()
        x[2:] -= (1 - s) * h * n
        yield x


@pytest.mark.parametrize("path", [_vertex_face_path, _edge_edge_path])
def test_energy_rises_monotonically_with_inversion_depth(path):
    mesh = single_tet()
    world, body = _world(mesh)
    energies = []
    for x in path(mesh.nodes, np.linspace(1.0, -3.0, 81)):   # s = h / h_rest from rest to 3× inverted
        body.x[:] = x
        energies.append(body.elastic_energy())
    assert energies[0] < 1e-12
    assert np.all(np.diff(energies) > 0), np.round(energies, 2)


def test_tet_pushed_through_its_face_recovers_without_spurious_rotation():
    mesh = single_tet()
    world, body = _world(mesh, damping_mass=5.0)
    body.x[:] = list(_vertex_face_path(mesh.nodes, [-1.5]))[0]
    assert mesh.volumes(body.x)[0] < 0
    for _ in range(300):
        world.step(0.01)
    rot, residual = _rigid_fit(body.x, mesh.nodes)
    angle = np.degrees(np.arccos(np.clip((np.trace(rot) - 1) / 2, -1, 1)))
    assert residual < 1e-3
    assert angle < 5.0, angle
    assert world.stats["degenerate_tets"] == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scrambled_cube_recovers_its_rest_shape_within_two_seconds(seed):
    mesh = box(3, 3, 3)
    world, body = _world(mesh, damping_mass=5.0, youngs_modulus=1e5)
    body.x[:] = np.random.default_rng(seed).uniform(0.0, 1.0, size=body.x.shape)
    assert np.any(mesh.volumes(body.x) < 0)
    for _ in range(200):                       # 2 s
        world.step(0.01)
    assert np.all(mesh.volumes(body.x) > 0)
    _, residual = _rigid_fit(body.x, mesh.nodes)
    assert residual < 0.01                     # size 1 m: < 1 %


@pytest.mark.parametrize("depth", [-0.5, -3.0])
def test_one_step_odd_crossing_keeps_the_rotation_and_pushes_back(depth):
    mesh = single_tet()
    world, body = _world(mesh)
    rot = rotation([0.2, 0.3, 1.0], np.pi / 4)
    x = list(_vertex_face_path(mesh.nodes, [depth]))[0]
    body.x[:] = x @ rot.T + [0.5, 0.0, 0.0]     # one jump: rotate 45°, vertex 3 through its face
    world.step(1e-4)
    assert world.state.witness[0] == 3          # vertex 3 over face 012
    assert np.allclose(world.state.rot[0], rot, atol=1e-9)
    n = rot @ _unit(np.cross(mesh.nodes[1] - mesh.nodes[0], mesh.nodes[2] - mesh.nodes[0]))
    assert body.v[3] @ n > 0                     # pushed back out through the face


def test_one_step_even_crossing_is_a_plain_rotation():
    mesh = single_tet()
    world, body = _world(mesh)
    rot = rotation([1.0, 0.0, 0.0], np.pi)
    target = mesh.nodes @ rot.T
    dets = [np.linalg.det(_deformation_gradient((1 - t) * mesh.nodes + t * target, mesh.nodes))
            for t in np.linspace(0, 1, 101)]
    assert min(dets) < 0.1 and dets[-1] > 0.1   # the straight path collapses and comes back
    body.x[:] = target
    world.step(1e-3)
    assert world.state.witness[0] == dapd.NO_WITNESS
    assert np.allclose(world.state.rot[0], rot, atol=1e-9)
    assert np.abs(body.v).max() < 1e-9           # no elastic force: it is a rigid rotation


def test_first_crossing_matches_sampled_determinant():
    rng = np.random.default_rng(4)
    for _ in range(200):
        d0 = np.eye(3) + 0.2 * rng.normal(size=(3, 3))
        d1 = rng.normal(size=(3, 3))
        target = 0.1 * np.linalg.det(d0)
        ts = np.linspace(0, 1, 20001)
        dets = np.linalg.det(d0[None] + ts[:, None, None] * (d1 - d0)[None]) - target
        below = np.flatnonzero(dets <= 0)
        t = dapd.first_crossing(tuple(d0.ravel()), tuple(d1.ravel()), target)
        if len(below) == 0:
            assert t == -1.0
        else:
            assert abs(t - ts[below[0]]) <= 1e-4


def test_nearest_witness_names_the_coincident_pair():
    flat_vf = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.3, 0.3, -0.01]])    # 3 under face 012
    assert dapd.nearest_witness(*map(tuple, flat_vf)) == 3
    flat_ee = np.array([[0, 0, 0], [1, 1, 0], [1, 0, -0.01], [0, 1, -0.01]])    # edges 01 and 23 cross
    assert dapd.nearest_witness(*map(tuple, flat_ee)) == 4


def test_vertex_thrown_through_its_face_in_one_step_is_caught_and_the_shape_recovers():
    mesh = single_tet()
    world, body = _world(mesh, damping_mass=3.0)
    n = _unit(np.cross(mesh.nodes[1] - mesh.nodes[0], mesh.nodes[2] - mesh.nodes[0]))
    h = (mesh.nodes[3] - mesh.nodes[0]) @ n
    dt = 0.01
    body.v[3] = -3.0 * h / dt * n                # one step carries vertex 3 ~2 heights through face 012
    world.step(dt)
    assert mesh.volumes(body.x)[0] < -mesh.volumes()[0]
    world.step(dt)                               # the crossing along that step is found: witness 3, no flip
    assert world.state.witness[0] == 3
    assert np.abs(world.state.rot[0] - np.eye(3)).max() < 0.01
    for _ in range(400):
        world.step(dt)
    assert mesh.volumes(body.x)[0] > 0
    _, residual = _rigid_fit(body.x, mesh.nodes)  # it tumbles (the throw gave it angular momentum) but unfolds
    assert residual < 0.01
