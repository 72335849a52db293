"""Self collision: a body folding onto itself never passes through itself (the U squeezed shut, the bar folded over a
rod, a long cylinder wrapped round a rod), the exclusion rule, the rows' shared nodes, and a body far from folding
unchanged by it."""
import numpy as np
import pytest
from scipy.spatial import cKDTree

import core
from contact_scenes import box_surface, depth_inside, plane, turn
from core.contact.row_kernels import fold_diagonal
from core.contact.surface import point_positions
import core.contact.self_contact as self_contact
from core.contact.self_contact import exclusion_radius, self_exclusions
from open_shapes import open_box
from self_scenes import bar, cage_body, passed_inside, rod, squeezed_u_world, tube, voxel_surface

DT = 1 / 120


def _squeezed_u(self_collision):
    """The U squeezed shut and let go (_u_world). Returns per step the render vertices that passed into the body, the
    self contacts, and the least height of the upper arm's inner face over the lower arm's (between vertices one
    above the other at rest; negative: passed through)."""
    world, tm, v, f, press = squeezed_u_world(self_collision, DT)
    lower = {tuple(np.round(q[:2], 6)): i for i, q in enumerate(v) if np.isclose(q[2], 0.075)}
    pairs = np.array([(i, lower[tuple(np.round(q[:2], 6))]) for i, q in enumerate(v)
                      if np.isclose(q[2], 0.175) and tuple(np.round(q[:2], 6)) in lower])
    tau = world.contact_settings.body_thickness
    inside, self_contacts, gap = [], [], []
    for k in range(120):
        press(k)
        world.step(DT)
        p = tm.embedding.positions(world.state.x)
        inside.append(int(passed_inside(p, f, tau).sum()))
        c = world.contacts
        self_contacts.append(int(np.sum((c.body == 0) & (c.other_body == 0))))
        gap.append(float((p[pairs[:, 0], 2] - p[pairs[:, 1], 2]).min()))
    return np.array(inside), np.array(self_contacts), np.array(gap)


def test_a_u_squeezed_shut_presses_its_arms_together_without_passing_through_and_springs_apart():
    inside, self_contacts, gap = _squeezed_u(True)
    assert inside.max() == 0, f"render vertices inside the body's own surface: {inside.max()}"
    squeezed = slice(70, 96)   # the plate at its lowest
    assert self_contacts[squeezed].min() > 0            # the arms touch, reported with other_body == body
    assert gap[squeezed].min() > -1e-3                  # pressed together, not through (10 cm apart at rest)
    assert gap[squeezed].max() < 5e-3
    assert self_contacts[-1] == 0 and gap[-1] > 0.05    # lifted: apart again


def test_self_rows_are_the_same_in_a_moving_frame_and_by_either_choice_of_pairs(monkeypatch):
    """The U pressed shut: its self rows of one step are the same (points, triangles, gaps) whether the body moves
    with a common velocity besides, and whether its pairs come from the clusters' BVH queries or from a reference pair
    list taken at the step's start (the drift bound, core.contact.self_contact)."""
    monkeypatch.setattr(self_contact, "REFERENCE_SHARE", 1.0)   # (the reference serves however many points are near)
    calls = []
    real = self_contact.SelfSurface.rows
    monkeypatch.setattr(self_contact.SelfSurface, "rows",
                        lambda own, lay, sides, x0, v, *a: calls.append((own, lay, sides, x0.copy(), v.copy(), a))
                        or real(own, lay, sides, x0, v, *a))
    world, _, _, _, press = squeezed_u_world(True, DT)
    world.contact_settings.edge_contacts = False   # (vertex rows only: the edges' rows would hold the arms apart)
    for k in range(66):
        press(k)
        world.step(DT)
    own, lay, sides, x0, v, (dt, tau, margin, least, K, mu) = calls[-1]
    n0, n1 = own.node_range

    def rows(velocity, reference):
        own.reference, own.wait = reference, 10 ** 9
        found = real(own, lay, sides, x0, velocity, dt, tau, margin, least, K, mu)
        c = found[0]
        return sorted(zip(c.point.tolist(), c.tri.tolist(), np.round(c.gap, 12).tolist()))

    by_clusters = rows(v, None)
    shifted = v.copy()
    shifted[n0:n1] += [3.0, -2.0, 1.0]
    p0 = point_positions(x0, own.nodes, own.weights, 0.0, v - v[n0:n1].mean(axis=0))
    listed = own.pair_list(x0[n0:n1], p0, tau + self_contact.REACH * tau)
    by_list = rows(v, listed)
    assert own.reference is listed                           # the pair list served (not dropped)
    assert len(by_clusters) > 10
    assert rows(shifted, None) == by_clusters
    assert by_list == by_clusters


def test_without_self_collision_the_squeezed_u_passes_through_itself():
    inside, self_contacts, gap = _squeezed_u(False)
    assert self_contacts.max() == 0
    assert inside.max() > 10 and gap.min() < -0.01


def test_a_soft_bar_dropped_across_a_thin_rod_folds_and_its_halves_touch_without_passing_through():
    h = 0.05
    v, f = bar(h, (20, 2, 2), origin=(-0.5, -0.05, 0.3))
    tm = cage_body(v, f, 20)
    world = core.World()
    world.add_body(tm, core.Material(youngs_modulus=1e4, poisson_ratio=0.3, density=1000, friction=0.5),
                          self_collision=True)
    world.add_collider(*rod(0.01, 0.6, (0.0, 0.0, 0.288)))
    tau = world.contact_settings.body_thickness
    worst, touched = 0, 0
    for _ in range(90):
        world.step(DT)
        p = tm.embedding.positions(world.state.x)
        worst = max(worst, int(passed_inside(p, f, tau).sum()))
        touched = max(touched, int(np.sum(world.contacts.other_body == 0)))
    ends = tm.embedding.positions(world.state.x)[np.abs(v[:, 0]) > 0.49]
    assert ends[:, 2].max() < 0.0                        # folded: both ends hang below the rod
    assert touched > 10                                  # its halves met
    assert worst == 0


def _coil(self_collision, steps=400, dt=1 / 480):
    """A soft cylinder 2 m long, 5 cm in radius (E = 3e4 Pa, 1000 kg/m³), dropped from rest across a rod 1 cm in
    radius 2 mm below it, 20 cm off its middle, so the longer side drags it round the rod until it hangs folded with
    its halves swinging into each other. A coarse cage (5 cm cells, two to three across the cylinder); stepped at
    480 Hz (at 120 Hz the halves meet at ~6 m/s and 2 vertices pass through: a known gap, README's limits). Returns per
    step the render vertices that passed into the body, the self contacts, and those of them where the two halves
    meet (render vertices within 2 cm of the contact lay more than 30 cm apart along the cylinder at rest; the others
    are the fold's inner side creasing on the rod), then the rest and final render positions."""
    v, f = tube(0.05, 2.0, (0.2, 0.0, 0.6))
    tm = cage_body(v, f, 40)
    world = core.World()
    world.add_body(tm, core.Material(youngs_modulus=3e4, poisson_ratio=0.3, density=1000, friction=0.5),
                   self_collision=self_collision)
    world.add_collider(*rod(0.01, 0.6, (0.0, 0.0, 0.538)))
    tau = world.contact_settings.body_thickness
    inside, self_contacts, halves = [], [], []
    for _ in range(steps):
        world.step(dt)
        p = tm.embedding.positions(world.state.x)
        inside.append(int(passed_inside(p, f, tau).sum()))
        c = world.contacts
        own = (c.body == 0) & (c.other_body == 0)
        self_contacts.append(int(own.sum()))
        near = cKDTree(p).query_ball_point(c.points[own], 0.02) if own.any() else []
        halves.append(sum(1 for j in near if j and np.ptp(v[j, 0]) > 0.3))
    return np.array(inside), np.array(self_contacts), np.array(halves), v, tm.embedding.positions(world.state.x)


def test_a_long_cylinder_dropped_across_a_rod_wraps_round_it_and_lies_on_itself_without_passing_through():
    # Why it folds and stays: the rod (1 cm) is far narrower than the cylinder's bending length, so each side hangs.
    # A hanging half of length L ≈ 1 m is stretched at the top by ρgL/E = 1000·9.81·1/3e4 ≈ 0.33, so it drapes
    # without becoming a rope; and the capstan law T_long/T_short ≤ e^(μθ) = e^(0.5π) ≈ 4.8 over half a turn far
    # exceeds the halves' weight ratio 1.2/0.8 = 1.5, so once wrapped it slides only while the fold forms and then
    # hangs on the rod, both ends below it, its halves swinging into each other under the rod.
    inside, self_contacts, halves, v, p = _coil(True)
    ends = p[np.abs(v[:, 0] - 0.2) > 0.99]
    assert ends[:, 2].max() < 0.538                     # wrapped: both ends hang below the rod's axis
    assert p[:, 2].max() > 0.538                        # and it still lies over the rod (not slid off)
    assert halves.max() > 20                            # its halves meet: rows with other_body == body (59 measured)
    assert (halves > 0).sum() > 40                      # over many steps, not one graze (81 of 400 measured)
    assert self_contacts.max() >= halves.max()
    assert inside.max() == 0, f"render vertices inside the body's own surface: {inside.max()}"


def test_without_self_collision_the_cylinder_on_the_rod_passes_through_itself():
    inside, self_contacts, _, _, _ = _coil(False)
    assert self_contacts.max() == 0
    assert inside.max() > 20                            # 197 measured, from step 281 when the halves meet


def _resting_cube(self_collision, monkeypatch):
    """A 10 cm cube resting on a plane after 60 steps: its render points, its contacts, and how many points the
    self detection tested in its last 20 steps."""
    v, f = voxel_surface(np.ones((3, 3, 3), bool), 0.1 / 3, origin=(-0.05, -0.05, 0.002))
    tm = cage_body(v, f, 4)
    world = core.World()
    world.add_body(tm, core.Material(youngs_modulus=5e4, poisson_ratio=0.3, density=1000),
                   self_collision=self_collision)
    world.add_collider(*plane(1.0, 0.0))
    for _ in range(40):
        world.step(DT)
    tested = []
    rows = self_contact.SelfSurface._rows   # (called with the points each detection tested)
    monkeypatch.setattr(self_contact.SelfSurface, "_rows",
                        lambda own, lay, ids, *a: tested.append(len(ids)) or rows(own, lay, ids, *a))
    for _ in range(20):
        world.step(DT)
    return tm.embedding.positions(world.state.x), world.contacts, sum(tested)


def test_a_resting_body_with_self_collision_rests_as_without_it(monkeypatch):
    on, contacts, tested = _resting_cube(True, monkeypatch)
    off, _, _ = _resting_cube(False, monkeypatch)
    assert tested == 0                                    # its steps skip the self detection: nothing within reach
    assert not np.any(contacts.other_body >= 0)           # no self contact on a body far from folding
    assert abs(on[:, 2].max() - off[:, 2].max()) < 1e-4   # the same rest height
    assert np.abs(on - off).max() < 1e-3


def test_an_open_surface_collides_with_itself_without_failing():
    v, f = open_box((0.2, 0.2, 0.2), n=4)
    tm = core.tetrahedralize(v + [0, 0, 0.05], f, resolution=6, mode="cage")
    tm.embedding.triangles = f
    world = core.World()
    world.add_body(tm, core.Material(youngs_modulus=2e4, poisson_ratio=0.3, density=500), self_collision=True)
    world.add_collider(*plane(1.0, 0.0))
    for _ in range(30):
        world.step(DT)
    assert np.all(np.isfinite(world.state.x))
    assert tm.embedding.positions(world.state.x)[:, 2].min() > -2e-3


def test_self_collision_takes_a_bool():
    tm = cage_body(*box_surface((0, 0, 0), (0.1, 0.1, 0.1)), 2)
    with pytest.raises(core.InvalidInputError, match="self_collision"):
        core.World().add_body(tm, core.Material(), self_collision="yes")


def test_the_exclusion_rule_drops_the_one_ring_and_the_rest_neighbours_and_keeps_the_far_faces():
    h = 0.05
    v, f = bar(h, (8, 2, 2))
    ptr, excl = self_exclusions(v, f, 0.001)
    radius = exclusion_radius(v, f, 0.001)
    # brute force: the triangles holding the point or within its radius at rest (closest point distance)
    from core.contact.triangle import closest_point_barycentric
    for p in range(len(v)):
        want = []
        for t, tri in enumerate(f):
            a, b, c = v[tri]
            u, s, w = closest_point_barycentric(*v[p], *a, *b, *c)
            d = v[p] - (u * a + s * b + w * c)
            if p in tri or d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < radius[p] * radius[p]:
                want.append(t)
        assert list(excl[ptr[p]:ptr[p + 1]]) == want
    # a vertex on the bottom face's middle is not excluded from the top face above it (0.1 m away)
    p = np.flatnonzero(np.all(np.isclose(v, [0.2, 0.05, 0.0]), axis=1))[0]
    top = np.flatnonzero(np.all(np.isclose(v[f][:, :, 2], 0.1), axis=1))
    assert np.isclose(radius[p], h * np.sqrt(2))
    assert not np.isin(top, excl[ptr[p]:ptr[p + 1]]).any()


def test_a_stencil_naming_a_node_twice_adds_its_summed_coefficient_to_the_diagonal():
    k = np.eye(3)[None].repeat(1, axis=0) * 2.0
    pinv = np.eye(3)[None].repeat(3, axis=0).copy()
    node = np.array([[0, 1, 0, 2]])
    coef = np.array([[0.3, 0.5, -0.3, 1.0]])
    fold_diagonal(node, coef, k, pinv)
    assert np.allclose(pinv[0], np.eye(3))               # 0.3 − 0.3: nothing added on node 0
    assert np.allclose(pinv[1], np.eye(3) / 1.5)          # 1 + 0.25 × 2
    assert np.allclose(pinv[2], np.eye(3) / 3.0)          # 1 + 1 × 2


@pytest.mark.parametrize("edges", [True, False])
def test_two_cubes_of_one_body_meeting_edge_across_edge_do_not_cut_into_each_other(edges):
    """One body of two 20 cm cubes (8 vertices each), the lower turned 45° about x and the upper about y, 35 cm apart
    (beyond the exclusion radius, the cubes' 28 cm face diagonal) and closing at 1 m/s edge across edge, no gravity:
    no vertex comes near the other cube's faces, so only self edge–edge rows hold them apart."""
    w = core.World(gravity=(0.0, 0.0, 0.0), settings=core.SolverSettings(cg_iterations=50))
    w.contact_settings.edge_contacts = edges
    v, t = box_surface((-0.1, -0.1, -0.1), (0.1, 0.1, 0.1))
    lower, upper = v @ turn("x", np.pi / 4).T, v @ turn("y", np.pi / 4).T + [0.0, 0.0, 0.6428]
    tm = core.tetrahedralize(np.concatenate([lower, upper]), np.concatenate([t, t + 8]), resolution=12, mode="cage")
    body = w.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0,
                                        damping_stiffness=0.001, friction=0.5), self_collision=True)
    top = body.x[:, 2] > 0.32   # the upper cube's nodes: the cubes are 35 cm apart, no cell holds both
    body.v = np.where(top[:, None], [0.0, 0.0, -0.5], [0.0, 0.0, 0.5])
    deepest, touched = 0.0, 0
    for _ in range(60):
        w.step(1 / 96)
        p = tm.embedding.positions(body.x)
        deepest = max(deepest, depth_inside(p[:8], p[8:], t), depth_inside(p[8:], p[:8], t))
        touched = max(touched, int(np.sum((w.contacts.body == 0) & (w.contacts.other_body == 0))))
    if not edges:   # without them the edges cut 37 mm into the other cube: the check sees it
        assert deepest > 0.01
        return
    assert deepest < 1e-3, f"{deepest * 1e3:.1f} mm deep"
    assert touched > 0   # self contacts, reported with other_body == body
    assert body.v[top, 2].mean() > 0.1   # and they part


def test_the_self_edge_exclusion_rule_drops_neighbours_and_keeps_edges_across_the_body():
    """A subdivided 1 m × 0.1 m × 0.1 m bar's sharp edges: a pair that shares a point or lies within the larger exclusion
    radius of its points is excluded, both ways; the edges along the bar's opposite long sides, 0.14 m apart, are far
    along the bar from each other's ends and kept."""
    from core.contact.edges import feature_edges
    from core.contact.segments import segment_closest
    from core.contact.self_edges import self_edge_exclusions
    v, f = bar(0.05, n=(20, 2, 2))
    fe, _ = feature_edges(v, f, closed=True)
    radius = exclusion_radius(v, f, 0.005)
    ptr, excl = self_edge_exclusions(v, fe, radius)
    pairs = {(i, int(j)) for i in range(len(fe)) for j in excl[ptr[i]:ptr[i + 1]]}
    assert all((j, i) in pairs for i, j in pairs)
    for i in range(len(fe)):
        for j in range(len(fe)):
            if i == j:
                continue
            a, b, c, d = v[fe[i, 0]], v[fe[i, 1]], v[fe[j, 0]], v[fe[j, 1]]
            s, u = segment_closest(*a, *b, *c, *d)
            dist = np.linalg.norm(a + s * (b - a) - c - u * (d - c))
            near = len({*fe[i]} & {*fe[j]}) > 0 or dist < max(radius[fe[i]].max(), radius[fe[j]].max())
            assert ((i, j) in pairs) == near
    assert len(pairs) < len(fe) * (len(fe) - 1)   # not everything
