"""Volume under its own weight: a 50 cm ball of the Jelly preset dropped 50 cm keeps its volume (issue 15)."""
import numpy as np
import pytest

import core

from contact_scenes import enclosed_volume, plane, soft_ball

RADIUS = 0.25


@pytest.mark.parametrize("model", ["neo_hookean", "mooney_rivlin"])
def test_dropped_jelly_ball_keeps_its_volume(model):
    """The add-on's Jelly preset (E = 5 kPa, ν = 0.45, ρ = 1030 kg/m³, β = 0.002 s, friction 0.3) on a 50 cm
    cage-mode icosphere (resolution 12, 5,933 tets) dropped 50 cm onto a plane, Δt = 1/96 s, 3 s: it lands at
    3.1 m/s and its bottom carries ρgh ≈ E.

    Expectation, independent of the code: at rest on a floor at z = 0 the virial theorem (∫σ dV = ∮x⊗t dA +
    ∫x⊗b dV, the floor's tractions acting at z = 0, friction neglected) gives the mean pressure ρ g z_c / 3, z_c the
    centroid's height: 0.4–0.5 kPa for the squat ball (z_c = 0.12–0.14 m), 2–3 % of the bulk modulus
    κ = E/(3(1 − 2ν)) = 16.7 kPa; the neo-Hookean shear term's own mean tension μ(I₁/3 − 1) (~0.4 kPa at stretches
    (1.3, 1.3, 0.6)) adds as much for it. A nearly incompressible body so keeps about 95 %: at least 90 %.
    Measured (render surface): neo-Hookean 93.1 %, Mooney–Rivlin 97.2 % (on a conforming mesh, 12,882 tets:
    neo-Hookean 92.9 %); continued below a 0.45 floor with the neo-Hookean energy's own curvature, which traps
    scrambled meshes, it keeps 96.4 %. Before issue 15 (curvature μ below a floor of 0.45) the ball flattened into
    a sheet of inverted tets 7 cm high: 2.5 % and 70 %. The landing still squashes it for ~0.2 s (least 34 % and
    54 %: the continuation below the floor is softer than the energy, see core/fem/hyperelastic.py)."""
    tm, tris = soft_ball(4, RADIUS, (0.0, 0.0, RADIUS + 0.5), 12)
    world = core.World(settings=core.SolverSettings(cg_iterations=50))
    world.add_collider(*plane())
    body = world.add_body(tm, core.Material(youngs_modulus=5.0e3, poisson_ratio=0.45, density=1030.0,
                                            damping_stiffness=0.002, friction=0.3, model=model))
    rest = enclosed_volume(tm.embedding.positions(tm.nodes), tris)
    least = 1.0
    for _ in range(72):                     # 3 s at 24 fps, 4 substeps
        for _ in range(4):
            world.step(1.0 / 96.0)
        least = min(least, enclosed_volume(tm.embedding.positions(body.x), tris) / rest)
    kept = enclosed_volume(tm.embedding.positions(body.x), tris) / rest
    assert 0.9 <= kept <= 1.02, kept
    assert least > 0.25, least              # no collapse at the landing either (it was 2 %)
    holding = np.bincount(tm.embedding.tet, minlength=tm.num_tets) > 0
    assert np.all(tm.volumes(body.x)[holding] > 0)      # no tet carrying the surface left inverted
    assert body.x[:, 2].max() > 0.8 * RADIUS            # a squat ball (top 0.32 m), not a sheet
