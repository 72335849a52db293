"""Body.set_material: Young's modulus, damping and friction changed mid-simulation (animated settings)."""
import numpy as np
import pytest

import core

from contact_scenes import plane, tet_box
from test_contact_world import G, rubber
from test_fem_cantilever import RHO, _cantilever, _p1_linear_solve, _tip_deflection


def test_stiffer_material_set_mid_simulation_gives_the_independent_static_sag():
    mesh, world, body, pinned = _cantilever(1)
    world.solve_static()
    soft = _tip_deflection(mesh, body.x)
    E4 = 4 * body.material.youngs_modulus
    body.set_material(core.Material(youngs_modulus=E4, poisson_ratio=0.0, density=RHO))
    body.x[:] = mesh.nodes
    world.solve_static()
    u_ref = _p1_linear_solve(mesh, E4, 0.0, RHO, world.gravity, pinned)
    assert np.linalg.norm(body.x - mesh.nodes - u_ref) < 1e-4 * np.linalg.norm(u_ref)
    assert abs(_tip_deflection(mesh, body.x) * 4 / soft - 1) < 1e-3   # linear elasticity: sag ∝ 1/E


def test_lowering_friction_mid_simulation_starts_a_slide_at_the_coulomb_acceleration():
    theta = np.radians(30)
    w = core.World(gravity=(G * np.sin(theta), 0.0, -G * np.cos(theta)))
    b = w.add_body(tet_box(2, 0.1, (-0.05, -0.05, 0.0)), rubber(0.8, E=1e6))
    w.add_collider(*plane(5.0), friction=0.8)
    m = w.model.mass
    dt = 1 / 60
    xs = []
    for _ in range(30):
        w.step(dt)
        xs.append((m @ b.x[:, 0]) / m.sum())
    assert abs(xs[-1] - xs[0]) < 5e-3                      # μ = 0.8 holds it on 30°
    b.set_material(rubber(0.05, E=1e6))                    # contact μ = sqrt(0.8 · 0.05) = 0.2
    xs = []
    for _ in range(60):
        w.step(dt)
        xs.append((m @ b.x[:, 0]) / m.sum())
    t = np.arange(1, len(xs) + 1) * dt
    a = np.polyfit(t[12:], xs[12:], 2)[0] * 2
    expected = G * (np.sin(theta) - 0.2 * np.cos(theta))
    assert abs(a - expected) < 0.1 * expected


def test_density_and_poisson_ratio_cannot_change():
    mesh, world, body, _ = _cantilever(1)
    with pytest.raises(core.InvalidInputError):
        body.set_material(core.Material(youngs_modulus=1e7, poisson_ratio=0.0, density=2 * RHO))
    with pytest.raises(core.InvalidInputError):
        body.set_material(core.Material(youngs_modulus=1e7, poisson_ratio=0.3, density=RHO))


def test_changed_material_model_equals_a_model_built_with_it():
    mesh, world, body, pinned = _cantilever(1)
    scale = np.linspace(0.5, 1.0, mesh.num_tets)
    w2 = core.World()
    b2 = w2.add_body(mesh, body.material, pinned=pinned, stiffness_scale=scale)
    w2.add_body(mesh, body.material)
    new = core.Material(youngs_modulus=3e7, poisson_ratio=0.0, density=RHO, damping_mass=0.5,
                        damping_stiffness=0.01, friction=0.2)
    b2.set_material(new)
    w3 = core.World()
    w3.add_body(mesh, new, pinned=pinned, stiffness_scale=scale)
    w3.add_body(mesh, body.material)
    for name in ("mu_v", "lam_v", "damping_mass", "damping_stiffness", "mass", "gm", "pinned"):
        np.testing.assert_allclose(getattr(w2.model, name), getattr(w3.model, name), rtol=1e-12, err_msg=name)
