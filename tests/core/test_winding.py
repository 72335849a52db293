"""Fast generalized winding numbers against exact values and analytic cases."""
import numpy as np

from core.geometry.winding import WindingNumber
from test_tetrahedralize import icosphere


def test_closed_sphere_inside_outside():
    v, t = icosphere(3)
    w = WindingNumber(v, t)
    rng = np.random.default_rng(0)
    d = rng.normal(size=(2000, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    r = rng.uniform(0.0, 2.0, size=(2000, 1))
    pts = d * r
    val = w(pts)
    inside = r[:, 0] < 0.95
    outside = r[:, 0] > 1.05
    # first-order far field (dipoles, beta = 2): a few percent at most, far from the 1/2 threshold
    np.testing.assert_allclose(val[inside], 1.0, atol=0.05)
    np.testing.assert_allclose(val[outside], 0.0, atol=0.05)
    # the exact sum (no far field) is 1 / 0 to rounding: solid angles of a closed surface
    exact = w(pts, beta=np.inf)
    np.testing.assert_allclose(exact[inside], 1.0, atol=1e-9)
    np.testing.assert_allclose(exact[outside], 0.0, atol=1e-9)
    # reversed orientation flips the sign
    np.testing.assert_allclose(WindingNumber(v, t[:, ::-1])(pts[inside]), -val[inside], atol=1e-12)


def test_hemisphere_solid_angle():
    # open cap z > 0 of the unit sphere, seen from the centre: half the sphere, winding 1/2
    v, t = icosphere(4)
    cap = t[v[t].mean(axis=1)[:, 2] > 0]
    val = WindingNumber(v, cap)(np.zeros((1, 3)), beta=np.inf)[0]
    # the cut follows triangle edges, so compare against the exact solid-angle fraction of the kept triangles:
    # each triangle's solid angle from the centre of a sphere is its spherical area / 4pi; use the area ratio
    p = v[cap]
    area = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1).sum()
    pa = v[t]
    total = 0.5 * np.linalg.norm(np.cross(pa[:, 1] - pa[:, 0], pa[:, 2] - pa[:, 0]), axis=1).sum()
    np.testing.assert_allclose(val, area / total, atol=0.01)
    assert 0.45 < val < 0.55


def test_far_field_error_small_on_a_large_mesh():
    v, t = icosphere(5)  # 20k triangles
    v = v * np.array([1.0, 0.6, 0.3]) + 0.05 * np.sin(5 * v)  # lumpy ellipsoid
    w = WindingNumber(v, t)
    rng = np.random.default_rng(1)
    pts = rng.uniform(-1.2, 1.2, size=(400, 3))
    near = v[rng.integers(0, len(v), 200)] + rng.normal(scale=0.01, size=(200, 3))
    pts = np.concatenate([pts, near])
    err = np.abs(w(pts) - w(pts, beta=np.inf))
    assert err.max() < 0.05


def test_segment_crossings():
    v, t = icosphere(2)
    w = WindingNumber(v, t)
    starts = np.array([[0, 0, 0], [0, 0, 0], [2, 0, 0], [0.99, 0, 0], [2, 2, 2]], float)
    ends = np.array([[0.5, 0, 0], [2, 0, 0], [-2, 0, 0], [0.99, 0, 0.01], [3, 2, 2]], float)
    np.testing.assert_array_equal(w.crossings(starts, ends), [False, True, True, False, False])
