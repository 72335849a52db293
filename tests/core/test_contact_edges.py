"""Edge–edge contact detection against brute-force closest points, box edges, continuous crossings and bad input."""
import numpy as np
import pytest

from core.contact.edges import EdgeBVH, edge_contacts, edge_stencil, feature_edges, unique_edges
from core.errors import InvalidInputError


def brute_closest_many(a, b, c, d):
    """Closest points of segments ab, cd (arrays (n,3)) by enumeration: the squared distance is a convex
    quadratic on the unit square, so its minimum is the interior stationary point or a minimum on one of
    the four sides. Returns s, t, distance (n,)."""
    e1, e2, r = b - a, d - c, a - c
    dot = lambda x, y: np.einsum("ij,ij->i", x, y)  # noqa: E731
    A, B, E, C, F = dot(e1, e1), dot(e1, e2), dot(e2, e2), dot(e1, r), dot(e2, r)
    det = A * E - B * B
    ok = det > 1e-12 * A * E
    si = np.where(ok, (B * F - C * E) / np.where(ok, det, 1.0), -1.0)
    ti = np.where(ok, (A * F - B * C) / np.where(ok, det, 1.0), -1.0)
    inside = ok & (si >= 0) & (si <= 1) & (ti >= 0) & (ti <= 1)
    cands = [(np.where(inside, si, 0.0), np.where(inside, ti, 0.0), inside)]
    for side in (0.0, 1.0):   # s = side: nearest t on cd; t = side: nearest s on ab
        cands.append((np.full(len(a), side), np.clip((B * side + F) / E, 0, 1), np.ones(len(a), bool)))
        cands.append((np.clip((B * side - C) / A, 0, 1), np.full(len(a), side), np.ones(len(a), bool)))
    best_s, best_t, best_d = np.zeros(len(a)), np.zeros(len(a)), np.full(len(a), np.inf)
    for s, t, valid in cands:
        dist = np.linalg.norm(a + s[:, None] * e1 - c - t[:, None] * e2, axis=1)
        better = valid & (dist < best_d)
        best_s, best_t = np.where(better, s, best_s), np.where(better, t, best_t)
        best_d = np.where(better, dist, best_d)
    return best_s, best_t, best_d


def brute_closest(a, b, c, d):
    """brute_closest_many for one pair of segments: s, t, distance."""
    s, t, dist = brute_closest_many(*(np.atleast_2d(x) for x in (a, b, c, d)))
    return s[0], t[0], dist[0]


def cube(lo=(-1.0, -1.0, -1.0), hi=(0.0, 1.0, 0.0)):
    """Axis-aligned box, 8 vertices, 12 outward triangles."""
    x = np.array([[lo[0], lo[1], hi[2]], [hi[0], lo[1], hi[2]], [hi[0], hi[1], hi[2]], [lo[0], hi[1], hi[2]],
                  [lo[0], lo[1], lo[2]], [hi[0], lo[1], lo[2]], [hi[0], hi[1], lo[2]], [lo[0], hi[1], lo[2]]])
    t = np.array([[0, 1, 2], [0, 2, 3], [4, 6, 5], [4, 7, 6], [1, 5, 6], [1, 6, 2], [0, 3, 7], [0, 7, 4],
                  [0, 4, 5], [0, 5, 1], [3, 2, 6], [3, 6, 7]])
    return x, t


def grid(n, half=1.0, z=0.0):
    """Flat open (n-1)^2 * 2-triangle grid in the plane z."""
    g = np.linspace(-half, half, n)
    X, Y = np.meshgrid(g, g, indexing="ij")
    v = np.stack([X.ravel(), Y.ravel(), np.full(n * n, z)], 1)
    i = np.arange(n * n).reshape(n, n)
    a, b, c, d = i[:-1, :-1].ravel(), i[1:, :-1].ravel(), i[1:, 1:].ravel(), i[:-1, 1:].ravel()
    return v, np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])


def box_contacts(p0, p1, edges=((0, 1),), thickness=0.0, margin=1e-4, search_depth=0.01, side_hint=None):
    v, t = cube()
    fe, faces = feature_edges(v, t)
    return edge_contacts(np.array(edges), p0, p1, EdgeBVH(v, fe), v, v, thickness, margin, search_depth,
                         side_hint=side_hint, faces=faces, triangles=t), fe


def test_static_random_segments_match_brute_force():
    rng = np.random.default_rng(1)
    nb, no = 400, 300
    pb = rng.uniform(0, 1, (nb, 3))
    body = np.concatenate([pb, pb + rng.normal(0, 0.06, (nb, 3))])
    edges = np.stack([np.arange(nb), np.arange(nb) + nb], 1)
    po = rng.uniform(0, 1, (no, 3))
    ov = np.concatenate([po, po + rng.normal(0, 0.06, (no, 3))])
    oe = np.stack([np.arange(no), np.arange(no) + no], 1)
    tau, margin = 0.01, 0.005
    ec = edge_contacts(edges, body, body, EdgeBVH(ov, oe), ov, ov, tau, margin, max_per_edge=32)
    reach = tau + margin
    I, O = np.meshgrid(np.arange(nb), np.arange(no), indexing="ij")
    I, O = I.ravel(), O.ravel()
    S, T, D = brute_closest_many(body[I], body[I + nb], ov[O], ov[O + no])
    keep = (S > 1e-9) & (S < 1 - 1e-9) & (D < reach)
    expected = {(i, o): (s, t, d) for i, o, s, t, d in zip(I[keep], O[keep], S[keep], T[keep], D[keep])}
    assert len(expected) > 20
    got = {(int(i), int(o)): k for k, (i, o) in enumerate(zip(ec.edge, ec.other))}
    assert set(got) == set(expected)
    for key, (s, t, d) in expected.items():
        k = got[key]
        i, o = key
        assert ec.s[k] == pytest.approx(s, abs=1e-7) and ec.t[k] == pytest.approx(t, abs=1e-7)
        assert ec.gap[k] == pytest.approx(d - tau, abs=1e-9)
        p = (1 - s) * body[i] + s * body[i + nb]
        q = (1 - t) * ov[o] + t * ov[o + no]
        assert np.allclose(ec.normal[k], (p - q) / d, atol=1e-6)
        assert tuple(ec.points[k]) == (i, i + nb) and tuple(ec.other_points[k]) == (o, o + no)


def test_box_features_are_its_twelve_edges_even_when_split_per_face():
    v, t = cube()
    fe, faces = feature_edges(v, t)
    assert len(fe) == 12 and np.all(faces >= 0)
    lengths = sorted(np.round(np.linalg.norm(v[fe[:, 0]] - v[fe[:, 1]], axis=1), 9))
    assert lengths == [1.0] * 8 + [2.0] * 4
    # flat shading: every triangle has its own vertices; welding recovers the same 12 edges
    vs, ts = v[t].reshape(-1, 3), np.arange(36).reshape(12, 3)
    fs, fas = feature_edges(vs, ts, closed=True)
    key = lambda x, e: sorted(tuple(sorted(map(tuple, np.round(x[p], 9)))) for p in e)  # noqa: E731
    assert key(vs, fs) == key(v, fe)
    assert np.all(fas >= 0)


def test_flat_plane_has_only_its_rim_and_its_interior_edges_are_not_reported():
    v, t = grid(11)
    fe, faces = feature_edges(v, t, closed=False)
    assert len(fe) == 40 and np.all(faces == -1)
    on_rim = np.abs(v[fe]).max(axis=2)   # both ends on |x| = 1 or |y| = 1
    assert np.allclose(on_rim, 1.0)
    # a body edge lying on the plane across many interior edges, pressed down: no edge contact
    p0 = np.array([[-0.55, -0.33, 0.0], [0.47, 0.52, 0.0]])
    ec = edge_contacts(np.array([[0, 1]]), p0, p0 - [0, 0, 0.01], EdgeBVH(v, fe), v, v, 0.0, 1e-4)
    assert len(ec) == 0


def test_concave_edges_of_a_closed_mesh_are_not_features():
    # an L-shaped step as two boxes merged: 6 x 2 outline extruded; its inner corner edge is concave
    outline = np.array([[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]], float)
    bottom = np.c_[outline, np.zeros(6)]
    v = np.vstack([bottom, bottom + [0, 0, 1]])
    caps = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 5], [3, 4, 5]])
    sides = np.concatenate([[[k, (k + 1) % 6, 6 + (k + 1) % 6], [k, 6 + (k + 1) % 6, 6 + k]] for k in range(6)])
    t = np.concatenate([caps[:, ::-1], caps + 6, sides])
    fe, _ = feature_edges(v, t)
    concave = {3, 9}   # the vertical edge at the inner corner (1, 1)
    assert len(fe) == 17
    assert not any(set(e) == concave for e in fe.tolist())
    fe_open, _ = feature_edges(v, t, closed=False)   # two-sided: the concave edge is sharp from the other side
    assert len(fe_open) == 18


def test_body_edge_across_a_box_top_edge_moving_down():
    # the box occupies x in [-1, 0], z in [-1, 0]; its top edge along y at x = 0, z = 0
    p0 = np.array([[-0.4, 0.2, 0.01], [0.6, 0.2, 0.01]])
    ec, fe = box_contacts(p0, p0 - [0, 0, 0.02])
    assert len(ec) == 1
    a, b = cube()[0][fe[ec.other[0]]]
    assert {tuple(a), tuple(b)} == {(0.0, -1.0, 0.0), (0.0, 1.0, 0.0)}
    assert ec.s[0] == pytest.approx(0.4)
    assert ((1 - ec.t[0]) * a + ec.t[0] * b)[1] == pytest.approx(0.2)
    assert np.allclose(ec.normal[0], [0, 0, 1]) and ec.gap[0] == pytest.approx(0.01)
    # tilted, drooping over the edge: the normal is the start closest-point direction (reference: brute force)
    p0 = np.array([[-0.4, 0.2, 0.1], [0.6, 0.2, -0.1]])
    ec, fe = box_contacts(p0, p0 - [0, 0, 0.06])
    assert len(ec) == 1
    a, b = cube()[0][fe[ec.other[0]]]
    s, t, d = brute_closest(p0[0], p0[1], a, b)
    p, q = (1 - s) * p0[0] + s * p0[1], (1 - t) * a + t * b
    assert ec.s[0] == pytest.approx(0.4, abs=1e-6)     # the row acts where the edges meet, above the box edge
    assert np.allclose(ec.normal[0], (p - q) / d) and ec.gap[0] == pytest.approx(d)
    # moving away: nothing to hold
    p0 = np.array([[-0.4, 0.2, 0.01], [0.6, 0.2, 0.01]])
    assert len(box_contacts(p0, p0 + [0, 0, 0.02])[0]) == 0


def test_edge_already_crossed_into_the_box_is_pushed_back_out():
    # the body edge's middle is 3 mm inside the box's top edge (below the top face, behind the side face)
    p0 = np.array([[-0.3, 0.0, 0.3], [0.3, 0.0, -0.3]]) + [-0.003, 0.0, -0.003]
    ec, _ = box_contacts(p0, p0)
    assert len(ec) == 1
    assert np.allclose(ec.normal[0], [np.sqrt(0.5), 0, np.sqrt(0.5)])
    assert ec.gap[0] == pytest.approx(-0.003 * np.sqrt(2))
    # deeper than search_depth: not this edge's business
    assert len(box_contacts(p0 - [0.02, 0, 0.02], p0 - [0.02, 0, 0.02])[0]) == 0


def test_edge_sagging_across_a_box_top_edge_stays_on_its_side():
    # resting across the top edge, it sags 1 mm below the top face: straight below the edge, level with the
    # side face (not strictly behind it); its last normal (up) says it is inside, to be pushed back up
    p0 = np.array([[-0.4, 0.2, -0.001], [0.6, 0.2, -0.001]])
    ec, _ = box_contacts(p0, p0, side_hint=np.array([[0.0, 0.0, 1.0]]))
    assert len(ec) == 1 and np.allclose(ec.normal[0], [0, 0, 1]) and ec.gap[0] == pytest.approx(-0.001)
    assert len(box_contacts(p0, p0)[0]) == 0   # without a history: 1 mm below the edge, outside the side face
    # beside the side face, in front of the two planes' mean, an opposite hint does not flip it
    p0 = np.array([[0.003, 0.0, 0.3], [0.003, 0.4, -0.3]])
    ec, _ = box_contacts(p0, p0 - [0.005, 0.0, 0.0], side_hint=np.array([[-1.0, 0.0, 0.0]]))
    assert len(ec) == 1 and ec.normal[0, 0] > 0.99 and ec.gap[0] == pytest.approx(0.003)


def test_past_a_box_corner_is_outside():
    # a body edge just past the corner (0, 1, 0), below the top plane and behind the side plane, but beyond
    # the end face y = 1: outside, approaching the corner; every normal points out of the box (+y)
    corner = np.array([0.0, 1.0, 0.0])
    u = np.array([-0.002, 0.003, -0.001])
    w = np.array([1.0, 0.0, -2.0]) / np.sqrt(5.0)   # perpendicular to u: the corner is the closest point
    p0 = np.array([corner + u - 0.3 * w, corner + u + 0.3 * w])
    ec, fe = box_contacts(p0, p0 - 0.01 * u / np.linalg.norm(u))
    v = cube()[0]
    y_edge = {(0.0, -1.0, 0.0), (0.0, 1.0, 0.0)}
    at_corner = [k for k in range(len(ec)) if set(map(tuple, v[fe[ec.other[k]]])) == y_edge]
    assert len(at_corner) == 1
    k = at_corner[0]
    assert np.allclose(ec.normal[k], u / np.linalg.norm(u)) and ec.gap[k] == pytest.approx(np.linalg.norm(u))
    assert np.all(ec.normal[:, 1] > 0.0)


def test_exactly_crossing_edges_take_the_oriented_cross_product():
    p0 = np.array([[-0.5, 0.2, 0.0], [0.5, 0.2, 0.0]])   # lies on the top face, across the top edge
    ec, _ = box_contacts(p0, p0)
    assert len(ec) == 1 and np.allclose(ec.normal[0], [0, 0, 1]) and ec.gap[0] == pytest.approx(0.0)
    ec, _ = box_contacts(p0, p0, thickness=0.002)
    assert ec.gap[0] == pytest.approx(-0.002)
    # without faces (two-sided / another body): the previous side, else against the motion
    v, t = cube()
    fe, _ = feature_edges(v, t)
    other = EdgeBVH(v, fe)
    ec = edge_contacts(np.array([[0, 1]]), p0, p0, other, v, v, 0.0, 1e-4, side_hint=np.array([[0, 0, -1.0]]))
    assert len(ec) == 1 and np.allclose(ec.normal[0], [0, 0, -1])
    ec = edge_contacts(np.array([[0, 1]]), p0, p0 - [0, 0, 0.01], other, v, v, 0.0, 1e-4)
    assert len(ec) == 1 and np.allclose(ec.normal[0], [0, 0, 1])


def test_side_hint_keeps_a_crossed_two_sided_pair_on_its_previous_side():
    seg = np.array([[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]])
    e = np.array([[0, 1]])
    p0 = np.array([[-0.5, 0.3, -0.003], [0.5, 0.3, -0.003]])   # 3 mm below: it was above last step
    other = EdgeBVH(seg, e)
    ec = edge_contacts(e, p0, p0, other, seg, seg, 0.0, 1e-4, 0.01, side_hint=np.array([[0.0, 0.0, 1.0]]))
    assert len(ec) == 1 and np.allclose(ec.normal[0], [0, 0, 1]) and ec.gap[0] == pytest.approx(-0.003)
    assert len(edge_contacts(e, p0, p0, other, seg, seg, 0.0, 1e-4, 0.01)) == 0   # no hint: below is fine


def test_parallel_edges():
    # a body edge 5 mm above the box's top edge, along it, overlapping y in [0.5, 1]
    p0 = np.array([[0.0, 0.5, 0.005], [0.0, 1.5, 0.005]])
    ec, fe = box_contacts(p0, p0 - [0, 0, 0.01])
    v = cube()[0]
    k = [j for j in range(len(ec)) if set(map(tuple, v[fe[ec.other[j]]])) == {(0.0, -1.0, 0.0), (0.0, 1.0, 0.0)}]
    assert len(k) == 1
    k = k[0]
    assert ec.s[k] == pytest.approx(0.25)          # the middle of the overlap
    a, b = v[fe[ec.other[k]]]
    assert ((1 - ec.t[k]) * a + ec.t[k] * b)[1] == pytest.approx(0.75)
    assert np.allclose(ec.normal[k], [0, 0, 1]) and ec.gap[k] == pytest.approx(0.005)
    # parallel and touching exactly: the adjacent faces' average normal (perpendicular to the edge)
    p0 = np.array([[0.0, 0.5, 0.0], [0.0, 1.5, 0.0]])
    ec, fe = box_contacts(p0, p0)
    k = [j for j in range(len(ec)) if set(map(tuple, v[fe[ec.other[j]]])) == {(0.0, -1.0, 0.0), (0.0, 1.0, 0.0)}]
    assert len(k) == 1 and np.allclose(ec.normal[k[0]], [np.sqrt(0.5), 0, np.sqrt(0.5)])


def test_fast_edge_crossing_a_feature_edge_within_the_step_is_caught():
    # 1 m/step: starts 0.5 m above the box's top edge, ends 0.5 m below it (both ends clear at start and end)
    p0 = np.array([[-0.5, 0.3, 0.5], [0.5, 0.3, 0.5]])
    p1 = p0 - [0, 0, 1.0]
    ec, _ = box_contacts(p0, p1)
    assert len(ec) == 1 and np.allclose(ec.normal[0], [0, 0, 1]) and ec.gap[0] == pytest.approx(0.5)
    # the same fast edge crossing a moving other edge (relative motion only)
    seg = np.array([[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]])
    e = np.array([[0, 1]])
    ec = edge_contacts(e, p0, p0 - [0, 0, 0.3], EdgeBVH(seg, e), seg, seg + [0, 0, 0.7], 0.0, 1e-4)
    assert len(ec) == 1 and np.allclose(ec.normal[0], [0, 0, 1])
    # passing 0.13 m beside the other segment's end: lines cross, segments never meet: not reported
    q0 = np.array([[-0.5, 0.6, 0.5], [0.5, 1.8, 0.5]])
    ec = edge_contacts(e, q0, q0 - [0, 0, 1.0], EdgeBVH(seg, e), seg, seg, 0.0, 1e-4)
    assert len(ec) == 0
    # the same slanted edge crossing within the segment is reported
    q0 = q0 - [0, 0.7, 0]
    ec = edge_contacts(e, q0, q0 - [0, 0, 1.0], EdgeBVH(seg, e), seg, seg, 0.0, 1e-4)
    assert len(ec) == 1 and ec.normal[0, 2] > 0.99


def test_degenerate_and_nan_edges_are_skipped():
    seg = np.array([[0.0, -1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, np.nan], [0.0, 0.2, 0.0]])
    oe = np.array([[0, 1], [2, 2], [3, 4], [0, 3]])
    p0 = np.array([[-0.5, 0.3, 0.005], [0.5, 0.3, 0.005], [0.1, 0.3, 0.005], [np.nan, 0.0, 0.0],
                   [0.0, np.inf, 0.0]])
    edges = np.array([[0, 1], [2, 2], [0, 3], [3, 4], [2, 4]])
    ec = edge_contacts(edges, p0, p0 - [0, 0, 0.01], EdgeBVH(seg, oe), seg, seg, 0.0, 1e-4)
    assert ec.edge.tolist() == [0] and ec.other.tolist() == [0]
    assert np.all(np.isfinite(ec.normal)) and np.all(np.isfinite(ec.gap))
    empty = edge_contacts(np.zeros((0, 2), np.int64), p0, p0, EdgeBVH(seg, np.zeros((0, 2))), seg, seg, 0.0, 1e-4)
    assert len(empty) == 0


def test_edge_contacts_bad_input_is_a_clear_error():
    seg = np.array([[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]])
    e = np.array([[0, 1]])
    p0 = np.array([[-0.5, 0.3, 0.005], [0.5, 0.3, 0.005]])
    other = EdgeBVH(seg, e)
    with pytest.raises(InvalidInputError):
        edge_contacts(np.array([[0, 2]]), p0, p0, other, seg, seg, 0.0, 1e-4)   # edge index out of range
    with pytest.raises(InvalidInputError):
        edge_contacts(e, p0, p0[:1], other, seg, seg, 0.0, 1e-4)                # end positions mismatch
    with pytest.raises(InvalidInputError):
        edge_contacts(e, p0, p0, other, seg, seg, 0.0, 1e-4, faces=np.array([[0, 1]]),
                      triangles=np.zeros((0, 3), np.int64))                      # faces without triangles
    with pytest.raises(InvalidInputError):
        EdgeBVH(seg, np.array([[0, 5]]))


def test_feature_edges_bad_input():
    v, t = cube()
    with pytest.raises(InvalidInputError):
        feature_edges(v, t + 20)
    with pytest.raises(InvalidInputError):
        feature_edges(np.where(v == 0, np.nan, v), t)
    fe, faces = feature_edges(v, np.zeros((0, 3), np.int64))
    assert fe.shape == (0, 2) and faces.shape == (0, 2)


def test_unique_edges_and_stencil():
    v, t = grid(3)
    e = unique_edges(t)
    assert len(e) == len(v) + len(t) - 1    # Euler: V - E + F = 1 for a disc
    nodes = np.array([[0, 1, 2, -1], [3, 4, 5, 6]])
    weights = np.array([[0.2, 0.3, 0.5, 0.0], [0.1, 0.2, 0.3, 0.4]])
    node, coef = edge_stencil(np.array([[0, 1]]), np.array([0.25]), nodes, weights)
    assert node.tolist() == [[0, 1, 2, -1, 3, 4, 5, 6]]
    assert np.allclose(coef, [[0.15, 0.225, 0.375, 0.0, 0.025, 0.05, 0.075, 0.1]])


def test_translating_random_segments_that_meet_are_all_reported():
    """Continuous and conservative: every pair of translating segments that comes within the thickness
    during the step (brute force over 2001 times) from outside it is reported, at the points that first
    come within reach."""
    rng = np.random.default_rng(5)
    nb, no = 300, 200
    pb = rng.uniform(0, 1, (nb, 3))
    body = np.concatenate([pb, pb + rng.normal(0, 0.08, (nb, 3))])
    edges = np.stack([np.arange(nb), np.arange(nb) + nb], 1)
    po = rng.uniform(0, 1, (no, 3))
    ov = np.concatenate([po, po + rng.normal(0, 0.08, (no, 3))])
    oe = np.stack([np.arange(no), np.arange(no) + no], 1)
    mb = np.tile(rng.normal(0, 0.1, (nb, 3)), (2, 1))   # each segment translates (fast: longer than itself)
    mo = np.tile(rng.normal(0, 0.05, (no, 3)), (2, 1))
    tau, margin = 0.002, 1e-4
    ec = edge_contacts(edges, body, body + mb, EdgeBVH(ov, oe), ov, ov + mo, tau, margin, max_per_edge=64)
    got = {(int(i), int(o)): k for k, (i, o) in enumerate(zip(ec.edge, ec.other))}
    # candidate pairs: swept boxes within the thickness; then the distance at 2001 times of the step
    pts_b = np.stack([body[:nb], body[nb:], body[:nb] + mb[:nb], body[nb:] + mb[nb:]])
    pts_o = np.stack([ov[:no], ov[no:], ov[:no] + mo[:no], ov[no:] + mo[no:]])
    near = np.all((pts_b.min(0)[:, None] <= pts_o.max(0)[None] + tau)
                  & (pts_b.max(0)[:, None] >= pts_o.min(0)[None] - tau), axis=2)
    times = np.linspace(0, 1, 2001)
    met = 0
    for i, o in zip(*np.nonzero(near)):
        x = times[:, None]
        S, T, D = brute_closest_many(body[i] + x * mb[i], body[i + nb] + x * mb[i], ov[o] + x * mo[o],
                                     ov[o + no] + x * mo[o])
        if D[0] <= tau or D.min() >= tau:
            continue
        k = int(np.argmax(D <= tau + margin))   # the first time within reach: where the row acts
        if not 0.01 < S[k] < 0.99:
            continue
        met += 1
        assert (i, o) in got, (i, o, S[k], D[k])
        j = got[(i, o)]
        assert ec.s[j] == pytest.approx(S[k], abs=0.005) and ec.t[j] == pytest.approx(T[k], abs=0.005)
        assert ec.normal[j] @ (mb[i] - mo[o]) < 0.0    # approaching along the normal
    assert met > 15


def test_a_side_hint_from_another_surface_does_not_orient_an_edge_pair():
    seg = np.array([[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]])
    e = np.array([[0, 1]])
    p0 = np.array([[-0.5, 0.3, -0.003], [0.5, 0.3, -0.003]])   # 3 mm below
    other = EdgeBVH(seg, e)
    hint = np.array([[0.0, 0.0, 1.0]])
    ec = edge_contacts(e, p0, p0, other, seg, seg, 0.0, 1e-4, 0.01, side_hint=hint, hint_source=np.array([3]),
                       other_source=np.array([3]))
    assert len(ec) == 1 and np.allclose(ec.normal[0], [0, 0, 1])      # its own edge's side: kept above
    assert len(edge_contacts(e, p0, p0, other, seg, seg, 0.0, 1e-4, 0.01, side_hint=hint, hint_source=np.array([-2]),
                             other_source=np.array([3]))) == 0          # another surface's: below is fine
