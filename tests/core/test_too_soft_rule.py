"""The too-soft warning's rule (addon/scene_warnings.collapse_load) against the finite-strain reference: a box clamped
at its base stands under its own weight just below the rule's bound and has no stable equilibrium above it."""
import numpy as np
import pytest

import core
from addon.scene_warnings import collapse_load, too_soft

E, NU, RHO = 1e5, 0.45, 1000.0     # the add-on's default material, neo-Hookean
SHEAR = E / (2 * (1 + NU))


def box_under_own_weight(height, width, load, min_step, cells=4):
    """scikit-fem's neo-Hookean reference (P2 tets, `cells` along the longest side) of a box `height` tall and
    `width` wide, its base clamped, under the gravity that makes ρ g h / G = `load`. Returns the relative sink of its
    top's centre and the tangent's lowest stiffness there, or None where Newton (12 iterations) finds no equilibrium
    on load steps down to `min_step` of the full load."""
    skfem = pytest.importorskip("skfem")
    from finite_strain_reference import NeoHookeanStatic   # needs scikit-fem
    n = [max(1, round(cells * s / max(height, width))) for s in (width, width, height)]
    lo = (-width / 2, -width / 2, 0.0)
    mesh = skfem.MeshTet.init_tensor(*(np.linspace(lo[k], lo[k] + (width, width, height)[k], n[k] + 1)
                                       for k in range(3)))
    ref = NeoHookeanStatic(mesh, E, NU, RHO, lambda x: np.abs(x[2]) < 1e-9, order=2)
    try:
        u = ref.solve((0.0, 0.0, -load * SHEAR / (RHO * height)), max_newton=12, min_step=min_step)
    except RuntimeError:
        return None
    return -ref.displacement_at(u, [[0.0, 0.0, height]])[0, 2] / height, ref.lowest_stiffness(u)


@pytest.mark.parametrize("height, width", [(1.0, 0.5), (1.0, 1.0)])
def test_the_reference_stands_just_below_the_too_soft_bound_and_has_no_stable_equilibrium_above_it(height, width):
    """The rule's bound: 0.475 for a column (h = 2w), 1.9 for a cube. Measured with this reference (the load
    continued from the rest shape until the tangent's lowest eigenvalue turns negative or Newton fails; at 4 cells,
    6 in brackets): the column loses its stability at ρgh/G = 0.633 (0.609), the cube at 2.06 (1.93). At 0.9 of the
    bound the column's top sinks 6.3 % and the cube's 21 %, both stable; at 1.5 of it the column's equilibrium is
    unstable (lowest stiffness −2.8e-5) and the cube's Newton finds none (on load steps down to 1/8: they reach
    ρgh/G = 2.0, just below its collapse)."""
    bound = collapse_load(height, width)
    below = box_under_own_weight(height, width, 0.9 * bound, 1 / 32)
    assert below is not None
    sink, stiffness = below
    assert stiffness > 0.0 and 0.0 < sink < 0.5
    above = box_under_own_weight(height, width, 1.5 * bound, 1 / 8)
    assert above is None or above[1] < 0.0


class Named:
    name = "Body"


def test_the_warning_takes_the_bound_of_the_bodys_proportions_and_not_a_hanging_bodys():
    """At the default material (ρgh/G = 0.28 a metre): a 1 m cube stands (bound 1.9), a 1 m column 5 cm wide does
    not (bound 0.0048), turned 30° about gravity alike; hung from its top it is in tension and takes the cube's bound;
    a 7 m cube (ρgh/G = 1.99) is warned."""
    material = core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0)
    gravity = np.array([0.0, 0.0, -9.81])

    def box(width, height, turn=0.0):
        corners = np.array([[a, b, c] for a in (0.0, width) for b in (0.0, width) for c in (0.0, height)])
        c, s = np.cos(turn), np.sin(turn)
        return corners @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]).T

    assert too_soft(Named, material, box(1.0, 1.0), gravity) is None
    assert too_soft(Named, material, box(7.0, 7.0), gravity) is not None
    column = box(0.05, 1.0, np.radians(30.0))
    assert "too soft" in too_soft(Named, material, column, gravity)
    assert too_soft(Named, material, column, gravity, np.flatnonzero(column[:, 2] == 1.0)) is None
    assert too_soft(Named, material, column, gravity, np.flatnonzero(column[:, 2] == 0.0)) is not None
