"""Free vibration: the first bending frequency of a pinned cantilever (no damping) against Euler–Bernoulli,
f₁ = (1.875² / 2π) √(EI / (ρ A L⁴)), on mesh refinement, and its independence of the CG once converged."""
import numpy as np

import core

from fem_testmeshes import box

L, H, E, RHO = 1.0, 0.1, 1e7, 100.0    # L / H = 10, square section: f₁ = 5.11 Hz
F_EB = 1.875104 ** 2 / (2 * np.pi) * np.sqrt(E * H ** 4 / 12 / (RHO * H * H * L ** 4))
DT = 1.0 / 1000.0                      # ω₁Δt = 0.03: backward Euler's period error ~ (ωΔt)²/3 = 3e-4


def _frequency(k, **settings):
    """The tip's oscillation frequency of a 10k × k × k-cube beam released from rest under gravity: from the
    times its height crosses the middle of its swing downwards, over 1.6 periods."""
    mesh = box(10 * k, k, k, L, H, H)
    world = core.World(gravity=(0.0, 0.0, -9.81), settings=core.SolverSettings(**settings))
    body = world.add_body(mesh, core.Material(youngs_modulus=E, poisson_ratio=0.0, density=RHO),
                          pinned=np.flatnonzero(mesh.nodes[:, 0] < 1e-9))
    tip = mesh.nodes[:, 0] > L - 1e-9
    z = []
    for _ in range(int(1.6 / F_EB / DT)):
        world.step(DT)
        z.append(body.x[tip, 2].mean())
    s = np.array(z) - 0.5 * (max(z) + min(z))
    i = np.flatnonzero((s[:-1] > 0) & (s[1:] <= 0))
    crossings = (i + s[i] / (s[i] - s[i + 1])) * DT
    assert len(crossings) >= 2, crossings
    return 1.0 / (crossings[1] - crossings[0])


def test_first_bending_frequency_converges_to_euler_bernoulli():
    # measured (ratio to Euler–Bernoulli): 1.30 (k = 2, 480 tets), 1.16 (k = 3), 1.09 (k = 4, 3,840 tets): linear
    # tets are too stiff in bending, and the error falls as h² (eigenvalues of P1 elements); extrapolated from
    # k = 2 and 4, 1.02 (a 3D beam of L/H = 10 vibrates ~1 % below Euler–Bernoulli: shear, rotary inertia)
    tight = dict(preconditioner="multigrid", cg_iterations=200, cg_tolerance=1e-7)
    ratios = np.array([_frequency(k, **tight) for k in (2, 3, 4)]) / F_EB
    assert np.all(np.diff(ratios) < 0) and ratios[-1] > 1.0, ratios
    extrapolated = ratios[2] + (ratios[2] - ratios[0]) / 3.0
    assert abs(extrapolated - 1.0) < 0.04, (ratios, extrapolated)


def test_frequency_does_not_depend_on_the_cg_once_converged():
    tight = _frequency(2, preconditioner="multigrid", cg_iterations=200, cg_tolerance=1e-7)
    for pre in ("multigrid", "jacobi"):
        f = _frequency(2, preconditioner=pre, cg_iterations=50, cg_tolerance=1e-3)
        assert abs(f / tight - 1.0) < 0.005, (pre, f, tight)
