"""Stress test: a soft jelly (E = 1e4 Pa) at Δt = 1/24 s, one substep, stays finite and recovers from being crushed flat."""
import numpy as np
import pytest

import core

from fem_testmeshes import box


def _shape_error(x, rest):
    """Max distance between x and the best rigid placement of rest (Kabsch, proper rotation)."""
    xc, rc = x - x.mean(0), rest - rest.mean(0)
    u, _, vt = np.linalg.svd(xc.T @ rc)
    rot = u @ np.diag([1, 1, np.sign(np.linalg.det(u @ vt))]) @ vt
    return np.abs(xc - rc @ rot.T).max()


@pytest.mark.parametrize("height, speed", [(0.0, 0.0), (0.02, 2.0)])
def test_crushed_jelly_stays_finite_and_recovers(height, speed):
    size = 0.5
    mesh = box(4, 4, 4, size, size, size)
    world = core.World(gravity=(0.0, 0.0, 0.0))
    body = world.add_body(mesh, core.Material(youngs_modulus=1e4, poisson_ratio=0.4, density=1000.0))
    crushed = mesh.nodes.copy()
    crushed[:, 2] *= height                     # flat (height 0) or 2 % of its height
    body.x[:] = crushed
    body.v[:] = np.random.default_rng(0).uniform(-speed, speed, size=body.v.shape)
    for _ in range(72):                          # 3 s at 24 fps, one substep
        world.step(1.0 / 24.0)
        assert np.all(np.isfinite(body.x)) and np.all(np.isfinite(body.v))
    assert np.all(mesh.volumes(body.x) > 0)
    assert world.stats["degenerate_tets"] == 0
    assert _shape_error(body.x, mesh.nodes) < 0.01 * size


def test_jelly_dropped_hard_stays_finite():
    mesh = box(3, 3, 3, 0.3, 0.3, 0.3)
    world = core.World(gravity=(0.0, 0.0, -9.81))
    body = world.add_body(mesh, core.Material(youngs_modulus=1e4, poisson_ratio=0.3, density=1000.0),
                          pinned=[0])
    body.v[:] = [0.0, 0.0, -20.0]               # a violent start, pinned by one corner
    for _ in range(48):
        world.step(1.0 / 24.0)
        assert np.all(np.isfinite(body.x))
    assert np.abs(body.x - body.x[0]).max() < 3.0   # it hangs from its pin, not flung off
