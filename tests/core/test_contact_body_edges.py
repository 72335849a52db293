"""Bodies' edges against each other: two default cubes meeting edge across edge do not cut into each other."""
import numpy as np
import pytest

import core
from contact_scenes import box_surface

DT = 1.0 / 96.0


def _turn(axis, angle):
    c, s = np.cos(angle), np.sin(angle)
    return {"x": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]), "y": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])}[axis]


def _winding(points, v, t):
    """Generalised winding number of points about the closed surface (v, t): ~1 inside, ~0 outside."""
    a, b, c = (v[t[:, k]][None] - points[:, None] for k in range(3))
    la, lb, lc = (np.linalg.norm(x, axis=2) for x in (a, b, c))
    det = np.einsum("pij,pij->pi", a, np.cross(b, c))
    den = (la * lb * lc + lc * np.einsum("pij,pij->pi", a, b) + la * np.einsum("pij,pij->pi", b, c)
           + lb * np.einsum("pij,pij->pi", c, a))
    return (2 * np.arctan2(det, den)).sum(axis=1) / (4 * np.pi)


def _samples(v, t, n):
    return np.concatenate([v[t[:, 0]] * (1 - i / n - j / n) + v[t[:, 1]] * i / n + v[t[:, 2]] * j / n
                           for i in range(n + 1) for j in range(n + 1 - i)])


def _depth(pa, pb, t):
    """How deep the surface of a (dense samples) is inside the closed, near-convex surface b: a sample inside is as
    deep as its distance to the nearest of b's triangles' planes (exact for a convex b)."""
    s = _samples(pa, t, 12)
    inside = s[_winding(s, pb, t) > 0.5]
    if not len(inside):
        return 0.0
    a, b, c = pb[t[:, 0]], pb[t[:, 1]], pb[t[:, 2]]
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1)[:, None]
    return float(np.abs(np.einsum("tk,ptk->pt", n, inside[:, None] - a[None])).min(axis=1).max())


@pytest.mark.parametrize("edges, deepest", [(True, 0.001), (False, None)])
def test_two_default_cubes_meeting_edge_across_edge_do_not_cut_into_each_other(edges, deepest):
    # zero gravity: the lower cube's top edge (along x) and the upper's bottom edge (along y) close at 1 m/s; no
    # vertex of either comes near the other's faces
    w = core.World(gravity=(0.0, 0.0, 0.0), settings=core.SolverSettings(cg_iterations=50))
    w.contact_settings.edge_contacts = edges
    v, t = box_surface((-0.1, -0.1, -0.1), (0.1, 0.1, 0.1))
    cubes = []
    for verts, vz in ((v @ _turn("x", np.pi / 4).T, 0.5), (v @ _turn("y", np.pi / 4).T + [0, 0, 0.2928], -0.5)):
        tm = core.tetrahedralize(verts, t, resolution=12, mode="cage")
        tm.embedding.triangles = t
        body = w.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0,
                                            damping_stiffness=0.001, friction=0.5))
        body.v = np.tile([0.0, 0.0, vz], (tm.num_nodes, 1))
        cubes.append((tm, body))
    worst = 0.0
    for _ in range(30):
        w.step(DT)
        (ta, a), (tb, b) = cubes
        pa, pb = ta.embedding.positions(a.x), tb.embedding.positions(b.x)
        worst = max(worst, _depth(pa, pb, t), _depth(pb, pa, t))
    if deepest is None:   # without edge rows they cut in (27 mm measured): the check sees it
        assert worst > 0.01
    else:
        assert worst < deepest, f"{worst * 1e3:.1f} mm deep"
    assert b.v[:, 2].mean() > 0.1                       # and they part
