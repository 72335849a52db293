"""Bodies that do not touch are integrated independently: other bodies in the World do not change a body's motion."""
import numpy as np
import pytest

import core

from fem_testmeshes import box

STEPS = 20
DT = 1.0 / 60.0


def _hanging_block(world):
    """A soft 4×2×2 bar pinned at its x = 0 end, sagging under gravity."""
    mesh = box(4, 2, 2, 1.0, 0.25, 0.25)
    return world.add_body(mesh, core.Material(youngs_modulus=2e4, poisson_ratio=0.3, damping_stiffness=0.005),
                          pinned=np.flatnonzero(mesh.nodes[:, 0] < 1e-9))


def _others(world):
    """Two distant bodies whose CG behaves differently: a stiff pinned slab and a large soft falling block."""
    slab = box(3, 3, 1, 0.6, 0.6, 0.1, origin=(5.0, 0.0, 0.0))
    world.add_body(slab, core.Material(youngs_modulus=5e6, poisson_ratio=0.45),
                   pinned=np.flatnonzero(slab.nodes[:, 0] < 5.0 + 1e-9))
    cube = box(3, 3, 3, 0.8, 0.8, 0.8, origin=(-6.0, 0.0, 2.0))
    falling = world.add_body(cube, core.Material(youngs_modulus=3e3, poisson_ratio=0.4, density=300.0))
    falling.v[:] = np.random.default_rng(3).normal(scale=0.5, size=falling.v.shape)


def _trajectory(order, differential):
    """Positions of the hanging block after each step, in a world built in `order`."""
    settings = core.SolverSettings(cg_iterations=6, cg_tolerance=1e-6, stress_differential=differential)
    world = core.World(gravity=(0.0, 0.0, -9.81), settings=settings)
    body = None
    for part in order:
        if part == "block":
            body = _hanging_block(world)
        else:
            _others(world)
    xs = []
    for _ in range(STEPS):
        world.step(DT)
        xs.append(body.x.copy())
    return np.array(xs), world.stats


# hybrid: assembled block system; exact: matrix-free products
@pytest.mark.parametrize("order,differential", [(("block", "others"), "hybrid"), (("others", "block"), "hybrid"),
                                                (("others", "block"), "exact")])
def test_other_bodies_do_not_change_a_bodys_trajectory(order, differential):
    alone, alone_stats = _trajectory(("block",), differential)
    together, stats = _trajectory(order, differential)
    assert np.abs(alone[-1] - alone[0]).max() > 1e-3          # the block does move (sags and swings)
    assert alone_stats["cg_iterations"] == 6                    # capped: where a global CG would couple bodies
    difference = np.abs(together - alone).max()
    assert difference <= 1e-12, f"other bodies moved this one by {difference:.3g} m"
    assert stats["cg_iterations"] <= 6 < stats["cg_iterations_sum"] <= 3 * 6
