"""Inversion: a cube whose nodes are scrambled at random recovers its rest shape with every hyperelastic material."""
import numpy as np
import pytest

import core

from fem_testmeshes import box
from test_dapd_inversion import _rigid_fit

SEEDS = 48


def _unrecovered(model, poisson_ratio):
    """Every node of a 1 m cube (3×3×3 cells, 162 tets) placed uniformly at random in the cube (about half the tets
    inverted), then backward Euler at 0.01 s with mass damping 5/s and no gravity, for each seed. Criterion, checked
    every 0.1 s up to 4 s: every tet upright (positive volume) and the nodes within 1 % of the size of a rigid motion
    of the rest shape. Returns (seed, distance from a rigid motion, inverted tets) of the seeds that fail it."""
    mesh = box(3, 3, 3)
    failed = []
    for seed in range(SEEDS):
        world = core.World(gravity=(0.0, 0.0, 0.0))
        world.sleeping = False
        body = world.add_body(mesh, core.Material(youngs_modulus=1e5, poisson_ratio=poisson_ratio, density=1000.0,
                                                  damping_mass=5.0, model=model))
        body.x[:] = np.random.default_rng(seed).uniform(0.0, 1.0, size=body.x.shape)
        assert np.any(mesh.volumes(body.x) < 0)
        for step in range(1, 401):
            world.step(0.01)
            if step % 10 == 0 and np.all(mesh.volumes(body.x) > 0) and _rigid_fit(body.x, mesh.nodes)[1] < 0.01:
                break
        else:
            failed.append((seed, _rigid_fit(body.x, mesh.nodes)[1], int(np.sum(mesh.volumes(body.x) <= 0))))
    return failed


@pytest.mark.parametrize("model", ["stvk", "neo_hookean", "mooney_rivlin"])
def test_scrambled_cube_recovers_its_rest_shape(model):
    """ν = 0.3. Measured: the last seed to recover took 3.6 s (StVK; medians 1.3 to 1.6 s); of 200 seeds 0, 0 and 1
    stay tangled (neo-Hookean, Mooney–Rivlin, StVK: seed 20, every tet upright, the cube folded; 0, 2 and 1 with the
    warm start extrapolating aⁿ⁻¹ alone, 3, 3 and 0 before issue 15). Which seeds tangle depends on the solve's
    rounding; at most one of these 48 leaves a binomial tail of ~1 % at those rates."""
    failed = _unrecovered(model, 0.3)
    assert len(failed) <= 1, failed


@pytest.mark.parametrize("model, most", [("neo_hookean", 4), ("mooney_rivlin", 8)])
def test_scrambled_nearly_incompressible_cube_mostly_recovers(model, most):
    """ν = 0.45, the presets' (λ = 9μ). Some scrambles end in a tangle that is a local minimum of the energy (a
    twist or fold with every tet upright, or a few inverted tets held by their neighbours; see
    core/fem/hyperelastic.py): measured 6 and 12 of 200 seeds (neo-Hookean, Mooney–Rivlin; 3–5 and 17–18 with the
    CG's warm start extrapolating aⁿ⁻¹ alone or not at all), which seeds depending on the solve's rounding: 3 and 4
    of these 48 (1–2 and 2–5 before). The bounds leave a binomial tail of ~2 % at those rates. Before issue 15 (continuation curvature μ, floor 0.45) 31 and
    34 of 48 stayed tangled, most with tens of tets inverted."""
    failed = _unrecovered(model, 0.45)
    assert len(failed) <= most, failed
