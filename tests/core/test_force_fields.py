"""core.forces: Blender-style force fields as node accelerations, and a wind drift in a World."""
import numpy as np
import pytest

import core
from core.forces import ForceFields

from contact_scenes import tet_box


def test_field_directions_falloff_and_drag():
    x = np.array([[0.0, 0.0, 2.0], [1.0, 0.0, 0.0], [0.0, 3.0, 0.0]])
    v = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]])
    wind = ForceFields()
    wind.add("WIND", (0, 0, 0), (0, 0, 2), strength=4.0, flow=2.0, shape="PLANE", power=2.0)
    a = wind.acceleration(x, v)
    # plane distance |z|: 2, 0, 0 -> falloff 1/(1+d)^2 = 1/9, 1, 1; drag -flow v
    np.testing.assert_allclose(a, [[0, 0, 4.0 / 9], [-1.0, 0, 4.0], [0, 0, 4.0]])
    force = ForceFields()
    force.add("FORCE", (0, 0, 0), (0, 0, 1), strength=-3.0, d_max=2.5)   # attracts, within 2.5 m
    np.testing.assert_allclose(force.acceleration(x, np.zeros_like(x)), [[0, 0, -3.0], [-3.0, 0, 0], [0, 0, 0]])
    vortex = ForceFields()
    vortex.add("VORTEX", (0, 0, 0), (0, 0, 1), strength=1.5, d_min=5.0, power=1.0)
    np.testing.assert_allclose(vortex.acceleration(x[1:], np.zeros((2, 3))), [[0, 1.5, 0], [-1.5, 0, 0]], atol=1e-12)
    turb = ForceFields()
    turb.add("TURBULENCE", (0, 0, 0), (0, 0, 1), strength=2.0, size=0.5, seed=3)
    p = np.random.default_rng(0).uniform(-1, 1, (500, 3))
    t = turb.acceleration(p, np.zeros_like(p))
    assert np.abs(t).max() <= 2.0 and np.abs(t).std() > 0.2             # bounded, varied
    near = turb.acceleration(p + 1e-4, np.zeros_like(p))
    assert np.abs(near - t).max() < 1e-2                                 # smooth
    with pytest.raises(core.InvalidInputError):
        turb.add("MAGNET", (0, 0, 0), (0, 0, 1), 1.0)


def test_wind_drifts_a_free_body_at_strength_over_flow():
    """No gravity: a_i = s·n − f·v_i, so every node's velocity tends to s/f along the wind (exponentially,
    rate f): after 2 s at f = 3/s it is within e^-6 of it."""
    w = core.World(gravity=(0.0, 0.0, 0.0))
    b = w.add_body(tet_box(2, 0.2, (0.0, 0.0, 0.0)), core.Material(youngs_modulus=1e5, poisson_ratio=0.3))
    wind = ForceFields()
    wind.add("WIND", (0, 0, 0), (1.0, 0.0, 0.0), strength=1.5, flow=3.0, shape="PLANE")
    dt = 1 / 96
    for _ in range(192):
        b.v[:] += dt * wind.acceleration(b.x, b.v)
        w.step(dt)
    m = w.model.mass
    drift = (m @ b.v) / m.sum()
    np.testing.assert_allclose(drift, (0.5, 0.0, 0.0), atol=0.5 * np.exp(-6) + 1e-4)
