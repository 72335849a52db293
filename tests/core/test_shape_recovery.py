"""A silicone Suzanne (the demo's body) dropped on a plane comes to rest near her rest shape, no tet inverted."""
import os

import numpy as np
import pytest

import core
from core.geometry.obj import load_obj

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "..",
                      "shared", "models")
SUZANNE = os.path.join(MODELS, "suzanne.obj")


def rotation(axis, degrees):
    """Right-handed rotation matrix about coordinate axis 0, 1 or 2."""
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    i, j = [k for k in range(3) if k != axis]
    r = np.eye(3)
    r[i, i], r[i, j], r[j, i], r[j, j] = c, -s, s, c
    return r


def subdivide(v, t):
    """Each triangle split in four at its edge midpoints (the demo subdivides Suzanne once)."""
    e = np.sort(np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]]), axis=1)
    edges, index = np.unique(e, axis=0, return_inverse=True)
    m01, m12, m20 = (len(v) + index.ravel().reshape(3, -1))
    a, b, c = t.T
    v = np.vstack([v, 0.5 * (v[edges[:, 0]] + v[edges[:, 1]])])
    return v, np.concatenate([np.c_[a, m01, m20], np.c_[b, m12, m01], np.c_[c, m20, m12], np.c_[m01, m12, m20]])


def shape_error(rest, x):
    """RMS and max distance of x to rest after removing the best-fit rigid motion (Kabsch), per point."""
    a, b = rest - rest.mean(axis=0), x - x.mean(axis=0)
    u, _, vt = np.linalg.svd(b.T @ a)
    r = u @ np.diag([1.0, 1.0, np.sign(np.linalg.det(u @ vt))]) @ vt
    d = np.linalg.norm(b - a @ r.T, axis=1)
    return np.sqrt(np.mean(d * d)), d.max()


def box(lo, hi):
    """A closed, outward-facing box (8 vertices, 12 triangles)."""
    c = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return c, np.array([t for a, b, d, e in quads for t in ((a, b, d), (a, d, e))])


@pytest.mark.skipif(not os.path.isdir(MODELS), reason="shared models folder absent")
@pytest.mark.parametrize("preconditioner", ["auto", "jacobi", "multigrid"])
@pytest.mark.parametrize("step", [False, True], ids=["floor", "across a box edge"])
def test_silicone_suzanne_dropped_on_plane_rests_in_shape(step, preconditioner):
    # every preconditioner: the CG's inexact solves must not decide the outcome (before the contact rows were
    # one-sided, the edge drop failed even with converged solves and passed with block-Jacobi's at 1e-3 by chance)
    v, t = subdivide(*load_obj(SUZANNE))
    v = v[:, [0, 2, 1]] * np.array([1.0, -1.0, 1.0])         # OBJ y-up -> Blender z-up, face toward -y
    v = (v - v.mean(axis=0)) * (0.76 / np.ptp(v, axis=0).max())
    v = v @ (rotation(2, -12.0) @ rotation(0, -10.0)).T + np.array([0.15, 0.25, 1.35])   # the demo's pose
    tm = core.tetrahedralize(v, t, resolution=12)             # the add-on's default resolution
    silicone = core.Material(youngs_modulus=1.0e5, poisson_ratio=0.45, density=1070.0, damping_mass=0.0,
                             damping_stiffness=0.001, friction=0.7)
    world = core.World(settings=core.SolverSettings(cg_iterations=50, preconditioner=preconditioner))   # add-on's cap
    body = world.add_body(tm, silicone)
    floor = np.array([[-5.0, -5.0, 0.0], [5.0, -5.0, 0.0], [5.0, 5.0, 0.0], [-5.0, 5.0, 0.0]])
    world.add_collider(floor, np.array([[0, 1, 2], [0, 2, 3]]), friction=0.5, thickness=0.02)
    if step:   # a 40 cm step whose edge runs under her left cheek
        world.add_collider(*box((0.2, -0.7, 0.0), (1.8, 1.3, 0.4)), friction=0.5, thickness=0.02)
    rest = tm.embedding.positions(tm.nodes)
    size = np.ptp(rest, axis=0).max()
    inverted_steps = 0
    steps = 240 if step else 192   # 24 fps x 4 substeps; from the step she slides off and lands again at 1.6 s
    for k in range(steps):
        world.step(1.0 / 96.0)
        if k >= steps - 48:                                   # landed: the last 0.5 s
            inverted_steps += bool((tm.volumes(body.x) <= 0.0).any())
    x = tm.embedding.positions(body.x)
    rms, worst = shape_error(rest, x)
    j = tm.volumes(body.x) / tm.volumes()
    assert x[:, 2].min() > -0.01, "fell through the floor"
    assert x[:, 2].max() < 0.9 * size, "not resting on the floor"
    # Under its own weight (rho g h ~ 8 kPa on E = 100 kPa) the head sags a few %, it is not crushed.
    assert inverted_steps == 0, f"tets inverted in {inverted_steps} of the last 48 steps"
    assert j.min() > 0.2, f"{int((j <= 0).sum())} tets inverted, min det F {j.min():.2f}"
    assert rms < 0.015 * size and worst < 0.08 * size, f"shape error rms {rms / size:.2%}, max {worst / size:.2%}"
