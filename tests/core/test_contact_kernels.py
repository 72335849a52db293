"""Contact building blocks in isolation: BVH vs brute force, closest points, continuous detection, side hints."""

import numpy as np
import pytest

from core.contact import ContactStage
from core.contact.bvh import BVH, STACK_SIZE, boxes_touch, cell_boxes, query_box
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


def test_fast_point_is_found_before_it_crosses_a_thin_plate():
    # 20 m/s at 24 fps: 0.83 m per step through a zero-thickness plane; the bottom face's rows hold it on the plane
    st, _ = _one_tet_stage()
    x = TET + [0, 0, 0.3]
    v = np.tile([0.0, 0, -20.0], (4, 1))
    problem = st.problem(x, v, 1 / 24, [4], 1e-4)
    assert problem is not None and set(problem.point) >= {0, 1, 2}
    assert np.allclose(problem.rows.frame[:, 0], [0, 0, 1])
    assert np.allclose(problem.gap[problem.point < 3], 0.3)


def test_point_passing_beside_a_triangle_is_not_stopped():
    st, _ = _one_tet_stage(vertices=PLANE_V * 0.1 + [1.0, 0, 0])   # small plate at x ~ 1, the tet falls at x ~ 0
    x = TET + [0, 0, 0.3]
    v = np.tile([0.0, 0, -20.0], (4, 1))
    assert st.problem(x, v, 1 / 24, [4], 1e-4) is None


def test_moving_collider_sweeps_up_through_a_resting_point():
    # the plane rises 0.5 m in one step: each of the tet's points gets a row whose target is the plane's motion
    st, c = _one_tet_stage()
    x = TET + [0, 0, 0.05]
    st.move_collider(c, PLANE_V + [0, 0, 0.5])
    problem = st.problem(x, np.zeros((4, 3)), 0.1, [4], 1e-4)
    assert problem is not None and set(problem.point) == {0, 1, 2, 3}
    assert np.allclose(problem.rows.frame[:, 0], [0, 0, 1])
    assert np.allclose(problem.rows.target[:, 0], 0.5 - problem.gap)


BOX_V = np.array([[x, y, z] for x in (-2.0, 2.0) for y in (-2.0, 2.0) for z in (-1.0, 0.0)])
BOX_T = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])


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
    assert st.problem(x, v, 1 / 96, [4], 1e-4) is None
    assert st.problem(x, np.zeros((4, 3)), 1 / 96, [4], 0.0) is None


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
    problem = st.problem(x, v, 0.01, [4], 1e-4)
    assert problem is not None and np.all(np.isfinite(problem.rows.target)) and np.all(np.isfinite(problem.gap))


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
    sides.after_solve(np.array([0, 1]), np.array([0, 0, 1]), np.array([[0, 0, 1.0], [0.97, 0.23, -0.01],
                                                                     [1.0, 0.0, 0.0]]),
                      np.array([floor, cube, cube]), np.zeros(3), two_sided)
    assert np.allclose(sides.hint[0], [0, 0, 1]) and sides.source[0] == floor
    assert np.allclose(sides.hint[1], [1, 0, 0]) and sides.source[1] == cube
