"""Contact building blocks in isolation: BVH vs brute force, closest points, continuous detection, friction."""
import warnings

import numpy as np
import pytest

from core.contact import ContactStage
from core.contact.bvh import BVH, STACK_SIZE, boxes_touch, cell_boxes, query_box
from core.contact.response import solve_contacts
from core.contact.triangle import closest_point_barycentric
from core.errors import InvalidInputError
from core.tetmesh import TetMesh

PLANE_V = np.array([[-2.0, -2, 0], [2, -2, 0], [2, 2, 0], [-2, 2, 0]])
PLANE_T = np.array([[0, 1, 2], [0, 2, 3]])
TET = np.array([[0.0, 0, 0], [0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]])


def _query(bvh, lo, hi):
    out = np.empty(len(bvh.triangles), np.int64)
    n = query_box(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], bvh.left, bvh.right, bvh.start, bvh.count,
                  bvh.order, bvh.lo, bvh.hi, np.empty(STACK_SIZE, np.int64), out)
    return set(out[:n].tolist())


def test_bvh_query_finds_every_overlapping_triangle_after_refit():
    rng = np.random.default_rng(0)
    centres = rng.uniform(-1, 1, (3000, 1, 3))
    v0 = (centres + rng.normal(0, 0.03, (3000, 3, 3))).reshape(-1, 3)
    tris = np.arange(len(v0)).reshape(-1, 3)
    bvh = BVH(v0, tris)
    v1 = v0 + rng.normal(0, 0.02, v0.shape) + [0.1, 0, 0]   # deformed and moved
    pad = rng.uniform(0, 0.05, len(tris))
    bvh.refit(v0, v1, pad)
    both = np.stack([v0[tris], v1[tris]], axis=1).reshape(len(tris), 6, 3)
    tlo = both.min(axis=1) - pad[:, None]
    thi = both.max(axis=1) + pad[:, None]
    for _ in range(50):
        c = rng.uniform(-1, 1, 3)
        lo, hi = c - 0.1, c + 0.1
        brute = set(np.flatnonzero(np.all(tlo <= hi, axis=1) & np.all(thi >= lo, axis=1)).tolist())
        found = _query(bvh, lo, hi)
        assert brute <= found
        assert len(found) <= 3 * len(brute) + 20  # leaves hold a few triangles: the query stays local


def test_fit_leaves_is_exact_on_its_leaves_reads_only_their_vertices_and_finds_only_their_triangles():
    rng = np.random.default_rng(7)
    centres = rng.uniform(-1, 1, (300, 1, 3))
    v0 = (centres + rng.uniform(-0.05, 0.05, (300, 10, 3))).reshape(-1, 3)
    v1 = v0 + rng.normal(0, 0.01, v0.shape)
    tris = np.concatenate([c * 10 + rng.integers(0, 10, (8, 3)) for c in range(300)])
    pad = rng.uniform(0, 0.02, len(tris))
    exact = BVH(v0, tris)
    exact.refit(v0, v1, pad)
    part = BVH(v0, tris)
    part.refit(v0, v1, pad)        # then partial fits: boxes set by refit must not survive them
    for _ in range(3):
        leaves = rng.choice(part.leaves, 200, replace=False)
        read = np.zeros(len(v0), bool)
        read[part.leaf_vertices(leaves)] = True
        assert np.array_equal(np.flatnonzero(read), np.unique(tris[np.concatenate(
            [part.order[part.start[n]:part.start[n] + part.count[n]] for n in leaves])]))
        garbage0, garbage1 = np.where(read[:, None], v0, np.nan), np.where(read[:, None], v1, np.nan)
        part.fit_leaves(leaves, garbage0, garbage1, pad)
        assert np.array_equal(part.lo[leaves], exact.lo[leaves]) and np.array_equal(part.hi[leaves], exact.hi[leaves])
        others = np.setdiff1d(part.leaves, leaves)
        assert np.all(part.lo[others] == np.inf) and np.all(part.hi[others] == -np.inf)
        inner = np.flatnonzero(part.left >= 0)
        for child in (part.left[inner], part.right[inner]):   # every node holds its children
            assert np.all(part.lo[inner] <= part.lo[child]) and np.all(part.hi[inner] >= part.hi[child])
        mine = set(np.concatenate([part.order[part.start[n]:part.start[n] + part.count[n]] for n in leaves]).tolist())
        for _ in range(30):
            c = rng.uniform(-1, 1, 3)
            assert _query(part, c - 0.1, c + 0.1) == _query(exact, c - 0.1, c + 0.1) & mine


def test_cell_boxes_bound_embedded_points_and_boxes_touch_matches_brute_force():
    rng = np.random.default_rng(8)
    x0 = (rng.uniform(-1, 1, (40, 1, 3)) + rng.uniform(-0.05, 0.05, (40, 4, 3))).reshape(-1, 3)
    x1 = x0 + rng.normal(0, 0.02, x0.shape)
    cells = rng.permuted(np.arange(160).reshape(40, 4), axis=1)   # cell c holds nodes 4c..4c+3
    cells[0, 2:] = -1                                   # a cell of two nodes
    w = rng.dirichlet(np.ones(4), 40) * 1.2 - 0.05      # some weights negative, each row sums to 1
    w[0, 2:] = 0.0
    w[0, :2] = [1.1, -0.1]
    grow = -np.minimum(w, 0).sum(axis=1)
    lo, hi = np.empty((40, 3)), np.empty((40, 3))
    cell_boxes(cells, grow, x0, x1, 0.01, lo, hi)
    for x in (x0, x1, 0.3 * x0 + 0.7 * x1):
        p = np.einsum("cs,csd->cd", w, x[np.maximum(cells, 0)])
        assert np.all(p >= lo + 0.01 - 1e-12) and np.all(p <= hi - 0.01 + 1e-12)
    v = (rng.uniform([0, -1, -1], [1, 1, 1], (200, 1, 3)) + rng.normal(0, 0.02, (200, 3, 3))).reshape(-1, 3)
    bvh = BVH(v, np.arange(600).reshape(-1, 3))
    bvh.refit(v, v, np.zeros(200))
    out = np.zeros(40, np.bool_)
    boxes_touch(lo, hi, bvh.left, bvh.right, bvh.count, bvh.lo, bvh.hi, out)
    leaf = bvh.left < 0
    brute = np.array([np.any(np.all(bvh.lo[leaf] <= hi[i], axis=1) & np.all(bvh.hi[leaf] >= lo[i], axis=1))
                      for i in range(40)])
    assert np.array_equal(out, brute) and 0 < out.sum() < 40


def test_closest_point_matches_dense_sampling():
    rng = np.random.default_rng(1)
    s = np.linspace(0, 1, 201)
    u, v = np.meshgrid(s, s)
    keep = u + v <= 1
    bary = np.stack([1 - u[keep] - v[keep], u[keep], v[keep]], axis=1)
    for _ in range(20):
        a, b, c, p = rng.normal(size=(4, 3))
        samples = bary @ np.stack([a, b, c])
        best = np.linalg.norm(samples - p, axis=1).min()
        w = closest_point_barycentric(*p, *a, *b, *c)
        q = w[0] * a + w[1] * b + w[2] * c
        assert min(w) >= -1e-12 and abs(sum(w) - 1) < 1e-12
        assert np.linalg.norm(q - p) <= best + 1e-12
        assert np.linalg.norm(q - p) >= best - 0.02  # sampling resolution


def _one_tet_stage(friction=0.5, collider_friction=0.5, **collider):
    st = ContactStage()
    c = st.add_collider(collider.pop("vertices", PLANE_V), collider.pop("triangles", PLANE_T),
                        friction=collider_friction, **collider)
    st.add_body(TetMesh(TET, [[0, 1, 2, 3]]), friction, "tet")
    return st, c


def test_fast_point_does_not_cross_a_thin_plate():
    # 20 m/s at 24 fps: 0.83 m per step through a zero-thickness plane
    st, _ = _one_tet_stage()
    x = TET + [0, 0, 0.3]
    v = np.tile([0.0, 0, -20.0], (4, 1))
    dt = 1 / 24
    st.solve(x, v, np.ones(4), dt, [4])
    end = x + dt * v
    assert end[:, 2].min() >= -1e-9
    assert np.allclose(end[:3, 2], 0.0, atol=1e-9)    # the bottom face stops on the plane
    assert len(st.contacts) >= 3 and np.allclose(st.contacts.normals[:, 2], 1.0)


def test_point_passing_beside_a_triangle_is_not_stopped():
    st, _ = _one_tet_stage(vertices=PLANE_V * 0.1 + [1.0, 0, 0])   # small plate at x ~ 1, the tet falls at x ~ 0
    x = TET + [0, 0, 0.3]
    v = np.tile([0.0, 0, -20.0], (4, 1))
    st.solve(x, v, np.ones(4), 1 / 24, [4])
    assert np.allclose(v[:, 2], -20.0) and len(st.contacts) == 0


def test_moving_collider_sweeps_up_through_a_resting_point():
    st, c = _one_tet_stage()
    x = TET + [0, 0, 0.05]
    st.move_collider(c, PLANE_V + [0, 0, 0.5])        # the plane rises 0.5 m in one step
    v = np.zeros((4, 3))
    dt = 0.1
    st.solve(x, v, np.ones(4), dt, [4])
    end = x + dt * v
    assert end[:, 2].min() >= 0.5 - 1e-9


@pytest.mark.parametrize("mu, stick", [(0.8, True), (0.1, False)])
def test_coulomb_stick_and_slip_on_a_plane(mu, stick):
    # Bottom face resting on the plane, falling at 1 m/s and sliding at 0.5 m/s: the normal impulse
    # removes Δvn = 1 m/s, friction removes min(|vt|, μ Δvn) of the tangential speed.
    st, _ = _one_tet_stage(friction=mu, collider_friction=mu)
    v = np.tile([0.5, 0.0, -1.0], (4, 1))
    v[3] = [0.5, 0, -1.0]
    st.solve(TET.copy(), v, np.ones(4), 0.01, [4])
    bottom = v[:3]
    assert np.allclose(bottom[:, 2], 0.0, atol=1e-6)
    expected_vt = 0.0 if stick else 0.5 - mu * 1.0
    assert np.allclose(bottom[:, 0], expected_vt, atol=1e-6)
    f = st.contacts.forces
    assert np.all(np.linalg.norm(f[:, :2], axis=1) <= mu * f[:, 2] + 1e-9)


def test_embedded_point_correction_reaches_the_nodes_mass_consistently():
    class Emb:
        tet = np.array([0])
        point_nodes = np.array([[0, 1, 2, 3]])
        weights = np.array([[0.7, 0.1, 0.1, 0.1]])
        triangles = None
    mesh = TetMesh(TET + [0, 0, 0.01], [[0, 1, 2, 3]], embedding=Emb())
    st = ContactStage()
    st.add_collider(PLANE_V, PLANE_T, friction=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        st.add_body(mesh, 0.0, "embedded")
    m = np.array([1.0, 2.0, 3.0, 4.0])
    v = np.tile([0.0, 0, -1.0], (4, 1))
    x = mesh.nodes.copy()
    p0 = Emb.weights[0] @ x
    dt = 0.1
    momentum0 = (m[:, None] * v).sum(axis=0)
    st.solve(x, v, 1 / m, dt, [4])
    p1 = Emb.weights[0] @ (x + dt * v)
    assert abs(p1[2]) < 1e-7 and p0[2] > 0            # the embedded point lands on the plane
    dv = v - [0, 0, -1.0]
    # node velocity changes are w_i J / m_i for one impulse J on the point
    J = dv * m[:, None] / Emb.weights[0][:, None]
    assert np.allclose(J, J[0], atol=1e-9)
    # the contact force (both plane triangles report the point: it lies on their shared edge) is the momentum change
    assert np.allclose((m[:, None] * v).sum(axis=0) - momentum0, st.contacts.forces.sum(axis=0) * dt)


BOX_V = np.array([[x, y, z] for x in (-2.0, 2.0) for y in (-2.0, 2.0) for z in (-1.0, 0.0)])
BOX_T = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])


def test_initial_overlap_with_a_closed_collider_is_pushed_out_gradually_and_pins_hold():
    st, c = _one_tet_stage(vertices=BOX_V, triangles=BOX_T)
    assert c.closed
    x = TET - [0, 0, 0.008]                           # bottom face 8 mm inside the box (search depth: 1 cm)
    inv = np.array([1.0, 1.0, 1.0, 0.0])              # node 3 pinned
    for _ in range(40):
        before = x.copy()
        st.stabilize(x, inv, 0.04, [4])
        assert np.abs(x - before).max() <= 0.5 * 0.04 + 1e-12   # at most max_correction_speed dt per step
        assert np.allclose(x[3], before[3])
    assert np.allclose(x[:3, 2], 0.0, atol=1e-3)      # out (within the solver tolerance), and not launched


def test_a_point_beside_closed_boxes_is_not_inside_a_far_face():
    # A staircase of boxes and a floor plane in one collider tree: a leaf's candidates include faces far from
    # the point, and one of them, nearest among the candidates but 1.15 m away, sees the point behind it.
    st = ContactStage()
    for k in range(4):
        lo, hi = np.array([0.5 * k, -0.8, 0.0]), np.array([0.5 * (k + 1), 0.8, 0.2 * (k + 1)])
        st.add_collider(lo + (BOX_V - [-2.0, -2.0, -1.0]) / [4.0, 4.0, 1.0] * (hi - lo), BOX_T, friction=0.5,
                        thickness=0.005)
    st.add_collider(PLANE_V * 10, PLANE_T, friction=0.5, thickness=0.005)
    assert all(c.closed for c in st.colliders[:4])
    st.add_body(TetMesh(TET, [[0, 1, 2, 3]]), 0.5, "tet")
    x = TET + [0.75, 0.35, 0.62]                      # above box 1 (top 0.4), beside box 2 (x from 1.0, top 0.6)
    v = np.tile([0.0, 0.0, -1.0], (4, 1))
    st.solve(x, v, np.ones(4), 1 / 96, [4])
    assert len(st.contacts) == 0 and np.allclose(v[:, 2], -1.0)
    before = x.copy()
    st.stabilize(x, np.ones(4), 1 / 96, [4])
    assert np.array_equal(x, before)


def test_bad_collider_input():
    st = ContactStage()
    bad = PLANE_V.copy()
    bad[2, 1] = np.nan
    with pytest.raises(InvalidInputError, match="Floor"):
        st.add_collider(bad, PLANE_T, name="Floor")
    with pytest.warns(UserWarning, match="zero triangles"):
        st.add_collider(PLANE_V, np.zeros((0, 3), int), name="Empty")
    c = st.add_collider(np.vstack([PLANE_V, [[0, 0, 0], [1, 0, 0]]]), np.vstack([PLANE_T, [[4, 5, 4], [4, 4, 4]]]))
    with pytest.raises(InvalidInputError, match="shape"):
        st.move_collider(c, PLANE_V)
    with pytest.raises(InvalidInputError, match="friction"):
        st.add_collider(PLANE_V, PLANE_T, friction=-1)
    st.add_body(TetMesh(TET + [0, 0, 0.2], [[0, 1, 2, 3]]), 0.5, "tet")
    x = TET + [0, 0, 0.2]
    v = np.tile([0.0, 0, -1e6], (4, 1))              # extreme speed, degenerate triangles present
    st.solve(x, v, np.ones(4), 0.01, [4])
    assert np.all(np.isfinite(v)) and ((x + 0.01 * v)[:, 2] >= -1e-6).all()


@pytest.mark.parametrize("floor, mu", [(0.3, 0.5), (3.0, 0.5), (10.0, 0.5), (2.0, 0.0)])
def test_normal_floor_widens_the_friction_bound(floor, mu):
    # One node (mass 2) sliding at 1 m/s along a plane it already rests on (no normal velocity): the
    # solve adds no normal impulse, so friction comes from the floor alone: Δvt = min(1, μ F / m).
    m = 2.0
    vel = np.array([[1.0, 0.0, 0.0]])
    lam_n, lam_t = np.zeros(1), np.zeros((1, 3))
    solve_contacts(vel, np.array([1 / m]), np.array([[0]]), np.array([[1.0]]), np.array([[0.0, 0, 1]]),
                   np.zeros(1), np.array([mu]), np.array([floor]), np.zeros((1, 3)), 50, 1e-10, lam_n, lam_t)
    expected = max(0.0, 1.0 - mu * floor / m)
    assert np.allclose(vel[0], [expected, 0.0, 0.0], atol=1e-8)
    assert abs(lam_n[0]) < 1e-12
    assert np.allclose(lam_t[0], [-m * (1.0 - expected), 0, 0], atol=1e-8)


def _patch_problem(seed, points=40, mu=0.0):
    """Many render points embedded in two tets that share a face (5 nodes, masses 1..5), all touching a
    plane tilted slightly: a strongly redundant set of contact rows."""
    rng = np.random.default_rng(seed)
    nodes = 5
    tets = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    w = rng.dirichlet(np.ones(4), points)
    node = tets[rng.integers(0, 2, points)]
    n = np.array([0.05, -0.03, 1.0])
    normal = np.tile(n / np.linalg.norm(n), (points, 1))
    vel = rng.normal(0, 0.3, (nodes, 3)) + [0.2, 0, -1.0]
    inv_mass = 1.0 / np.arange(1.0, nodes + 1)
    vmin = rng.uniform(-0.2, 0.3, points)
    return vel, inv_mass, node, w, normal, vmin, np.full(points, mu)


def _solve(vel, inv_mass, node, coef, normal, vmin, mu, floor=None, tolerance=1e-9):
    nc = len(node)
    vel = vel.copy()
    lam_n, lam_t = np.zeros(nc), np.zeros((nc, 3))
    floor = np.zeros(nc) if floor is None else floor
    solve_contacts(vel, inv_mass, node, coef, normal, vmin, mu, floor, np.zeros((nc, 3)), 200, tolerance,
                   lam_n, lam_t)
    return vel, lam_n, lam_t


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_redundant_rows_give_the_velocities_of_an_independent_qp(seed):
    # Frictionless: the new velocities are the mass-weighted projection of the old ones onto
    # {n·u_c ≥ vmin_c for every row}, unique whatever the rows' redundancy; reference by SLSQP.
    from scipy.optimize import minimize
    vel0, inv_mass, node, coef, normal, vmin, mu = _patch_problem(seed)
    vel, lam_n, _ = _solve(vel0, inv_mass, node, coef, normal, vmin, mu)
    J = np.zeros((len(node), vel0.size))
    for c in range(len(node)):
        for s in range(4):
            J[c, 3 * node[c, s]:3 * node[c, s] + 3] += coef[c, s] * normal[c]
    m = np.repeat(1.0 / inv_mass, 3)
    v0 = vel0.ravel()
    ref = minimize(lambda v: 0.5 * np.sum(m * (v - v0) ** 2), v0, jac=lambda v: m * (v - v0), method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda v: J @ v - vmin, "jac": lambda v: J}],
                   options={"ftol": 1e-14, "maxiter": 500})
    assert ref.success
    assert np.abs(vel.ravel() - ref.x).max() < 1e-6
    assert (J @ vel.ravel() >= vmin - 1e-8).all() and (lam_n >= 0).all()
    # the reported impulses are the momentum change
    assert np.allclose(((vel - vel0) / inv_mass[:, None]).sum(axis=0), lam_n @ normal, atol=1e-9)
    # and every row whose constraint is active carries a share of it (as the full problem would)
    active = J @ vel.ravel() <= vmin + 1e-9       # the solve's tolerance
    assert active.sum() >= 2 and (lam_n[active] > 0).all() and (lam_n[~active] == 0).all()


def test_redundant_rows_with_friction_are_order_independent_and_inside_the_cone():
    vel0, inv_mass, node, coef, normal, vmin, mu = _patch_problem(3, points=60, mu=0.4)
    floor = np.random.default_rng(4).uniform(0, 0.05, len(node))
    vel, lam_n, lam_t = _solve(vel0, inv_mass, node, coef, normal, vmin, mu, floor, tolerance=1e-6)
    un = np.einsum("cs,csd,cd->c", coef, vel[node], normal)
    assert (un >= vmin - 1e-6).all()
    assert (np.linalg.norm(lam_t, axis=1) <= mu * (lam_n + floor) + 1e-9).all()
    assert np.allclose(np.einsum("cd,cd->c", lam_t, normal), 0.0, atol=1e-12)
    perm = np.random.default_rng(5).permutation(len(node))
    vel_p, _, _ = _solve(vel0, inv_mass, node[perm], coef[perm], normal[perm], vmin[perm], mu[perm], floor[perm],
                         tolerance=1e-6)
    assert np.abs(vel_p - vel).max() < 1e-4


@pytest.mark.parametrize("floor, expected", [(0.01, 0.85), (0.1, 0.0)])
def test_rows_outside_the_working_set_keep_their_friction(floor, expected):
    # 30 rows on one node (mass 2) sliding at 1 m/s on a plane it rests on: the friction available is
    # μ Σ floor = 0.3 N·s for floor 0.01 (slip: Δv = 0.15 m/s) and 3 N·s for 0.1 (stick: 2 N·s cancel the
    # slip), whichever rows the solve works on.
    k = 30
    vel, lam_n, lam_t = _solve(np.array([[1.0, 0.0, 0.0]]), np.array([0.5]), np.zeros((k, 1), np.int64),
                               np.ones((k, 1)), np.tile([0.0, 0, 1], (k, 1)), np.zeros(k), np.full(k, 1.0),
                               np.full(k, floor))
    assert np.allclose(vel[0], [expected, 0, 0], atol=1e-7)
    assert np.allclose(lam_t.sum(axis=0), [-2.0 * (1.0 - expected), 0, 0], atol=1e-7)
    assert (np.linalg.norm(lam_t, axis=1) <= lam_n + floor + 1e-12).all()


def _plane_sides(hint, hint_source, height=1e-4):
    """The rows the detect kernel gives a point `height` above an open zero-thickness floor plane (collider 0)
    whose side hint is `hint` from surface `hint_source` (core.contact.sides): their normals."""
    from core.contact.detect import detect
    v = np.array([[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]])
    tris = np.array([[0, 1, 2], [0, 2, 3]])
    bvh = BVH(v, tris)
    bvh.refit(v, v, np.full(2, 0.02))
    p = np.array([[0.1, 0.2, height]])
    slot_tri, slot_n = np.empty((1, 4), np.int64), np.empty((1, 4, 3))
    detect(p, p, np.array([0]), np.array([0]), v, v, tris, np.zeros((0, 3)), np.full(2, -1), np.zeros(2),
           np.zeros(2, np.bool_), np.zeros((1, 1), np.bool_), bvh.left, bvh.right, bvh.start, bvh.count, bvh.order,
           bvh.lo, bvh.hi, 1e-3, 0.01,
           0.01, np.array([hint], np.float64), np.array([hint_source]), np.zeros(2, np.int64), slot_tri, np.empty((1, 4, 3)),
           slot_n, np.empty((1, 4)))
    return slot_n[0][slot_tri[0] >= 0]


def test_a_side_hint_tells_only_its_own_surfaces_side():
    # the plane's own hint keeps a point on the side it was held on, even above the plane
    assert np.allclose(_plane_sides([0.0, 0.0, -1.0], 0), [[0, 0, -1]])
    # a cube's corner resting on a floor plane and pressed against another cube's face (its normal level with the
    # floor, a hair downward) was taken to be below the floor and pushed through it (a pile of ten default cubes)
    assert np.allclose(_plane_sides([0.97, 0.23, -0.01], -2), [[0, 0, 1]])
    assert np.allclose(_plane_sides([0.97, 0.23, -0.01], 1), [[0, 0, 1]])   # another collider's
    assert np.allclose(_plane_sides([0.0, 0.0, 0.0], -1), [[0, 0, 1]])      # none: the side it starts on


def test_a_one_sided_surfaces_row_keeps_a_points_side_of_a_two_sided_one():
    from core.contact.sides import SideHints, body_source
    sides = SideHints(2, 2)
    floor, cube = 0, body_source(1)
    two_sided = (np.array([True]), np.array([False, False]))      # an open floor plane; closed cubes
    # point 0 rests on the floor and touches the other cube, whose row comes last; point 1 touches the cube alone
    sides.after_correction(np.array([0, 1]), np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros(0, np.bool_),
                           np.zeros(0, np.int64), np.array([0, 0, 1]), np.array([[0, 0, 1.0], [0.97, 0.23, -0.01],
                                                                                  [1.0, 0.0, 0.0]]),
                           np.array([floor, cube, cube]), np.zeros(3), 1e-3, two_sided)
    assert np.allclose(sides.hint[0], [0, 0, 1]) and sides.source[0] == floor
    assert np.allclose(sides.hint[1], [1, 0, 0]) and sides.source[1] == cube
