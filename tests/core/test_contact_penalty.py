"""ContactPenalty: its per-stencil blocks against the rows they sum, built densely one row at a time, and its
multiplier update (one-sided normal force, friction inside the Coulomb cone) against the laws it implements."""
import numpy as np
import pytest

from core.contact.penalty import ContactPenalty


def _random_penalty(rng, num_nodes=20, num_points=8, num_rows=40, width=4):
    """Rows of a few points, most sharing their point's stencil; some with a stencil of their own, some κ = 0."""
    point = rng.integers(0, num_points, num_rows)
    stencil = np.stack([rng.permutation(num_nodes)[:width] for _ in range(num_points)])
    stencil[3, 2] = -1
    node = stencil[point]
    node[::7] = np.stack([rng.permutation(num_nodes)[:width] for _ in range(len(node[::7]))])
    coef = rng.random((num_points, width))[point]
    normal = rng.normal(size=(num_rows, 3))
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    kappa = rng.random(num_rows)
    kappa[::5] = 0.0
    none = -np.ones(num_rows, np.int64)
    return ContactPenalty(node, coef, normal, np.zeros(num_rows), kappa, kappa.copy(), point, none, none,
                          np.zeros(num_rows, bool), np.zeros(num_rows), np.full(num_rows, 0.5), num_nodes, 1e-4)


def _dense(pen):
    """Σ κ Jᵀn nᵀJ as a dense (3N,3N) matrix, row by row."""
    a = np.zeros((3 * pen.num_nodes, 3 * pen.num_nodes))
    for c in range(len(pen)):
        g = np.zeros(3 * pen.num_nodes)
        for j, w in zip(pen.node[c], pen.coef[c]):
            if j >= 0:
                g[3 * j:3 * j + 3] += w * pen.normal[c]
        a += pen.kappa[c] * np.outer(g, g)
    return a


def test_block_product_and_diagonal_equal_the_rows_summed_one_by_one():
    rng = np.random.default_rng(1)
    pen = _random_penalty(rng)
    assert len(pen.block_node) < len(pen)          # rows did share blocks
    a = _dense(pen)
    p = rng.normal(size=(pen.num_nodes, 3))
    free = (rng.random(pen.num_nodes) > 0.2).astype(float)
    out = np.zeros_like(p)
    added = pen.product(p, out, free, np.arange(len(pen.block_node)))
    expected = np.repeat(free, 3) * (a @ p.ravel())
    assert np.allclose(out.ravel(), expected, rtol=0, atol=1e-12 * abs(expected).max())
    assert np.isclose(added, p.ravel() @ expected, rtol=1e-12)
    pinv = np.stack([np.eye(3) * (i + 1) for i in range(pen.num_nodes)])
    pen.precondition(pinv)
    blocks = [np.linalg.inv(np.eye(3) / (i + 1) + a[3 * i:3 * i + 3, 3 * i:3 * i + 3]) for i in range(pen.num_nodes)]
    assert np.allclose(pinv, np.stack(blocks), rtol=1e-12, atol=1e-14)


def _one_point(r0_normal, lam, r0_tangent, mu=0.5, kappa=2.0):
    """A point on one node (weight 1): a normal row along z with multiplier lam and value r0_normal, and two
    friction rows along x and y with values r0_tangent (its offset from its anchor)."""
    node = np.zeros((3, 1), np.int64)
    coef = np.ones((3, 1))
    normal = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    stiff = np.full(3, kappa)
    none = -np.ones(3, np.int64)
    return ContactPenalty(node, coef, normal, np.array([r0_normal, *r0_tangent]), stiff, stiff.copy(),
                          np.zeros(3, np.int64), none, none, np.array([False, True, True]),
                          np.array([lam, 0.0, 0.0]), np.full(3, mu), 1, 1e-6)


def test_a_normal_rows_force_is_its_multiplier_clipped_at_zero_and_friction_stays_inside_the_cone():
    d = np.zeros((1, 3))
    # pressed 1 mm in with λ = 0.01: the new multiplier is λ − κ r = 0.012
    pen = _one_point(-0.001, 0.01, (0.0, 0.0))
    assert pen.augment(d)
    assert pen.const[0] == pytest.approx(0.012) and pen.kappa[0] == 2.0
    # 10 mm clear with λ = 0.01: λ − κ r < 0 would pull, the row is released (no force, no spring)
    pen = _one_point(0.01, 0.01, (0.0, 0.0))
    assert pen.augment(d)
    assert pen.const[0] == 0.0 and pen.kappa[0] == 0.0
    assert pen.kappa[1] == 0.0 and pen.kappa[2] == 0.0      # no normal force: no friction
    # pressed with λn = 0.01 (after the update 0.012), offset (3, 4) mm from its anchor: the spring κ |u| = 0.01
    # is under μ λn = 0.006 only if softened to μ λn / |u|: the friction force is exactly on the cone
    pen = _one_point(-0.001, 0.01, (0.003, 0.004))
    pen.augment(d)
    u = np.array([0.003, 0.004])
    force = pen.kappa[1:] * u
    assert np.linalg.norm(force) == pytest.approx(0.5 * 0.012)
    # a small offset stays stuck: the full spring
    pen = _one_point(-0.001, 0.01, (0.0003, 0.0))
    pen.augment(d)
    assert pen.kappa[1] == 2.0


def test_a_row_joins_every_body_its_stencil_reaches_into_one_island():
    from types import SimpleNamespace
    from core.solve.islands import islands
    ranges = [(0, 4), (4, 8), (8, 12)]
    # a point of body 1 on a triangle of body 0: the stencil starts on the higher body (it once joined only the
    # first node's body and the largest, so body 1's CG read body 0's rows stale from another island)
    rows = SimpleNamespace(block_node=np.array([[5, 6, -1, 1, 2, 3], [9, 10, 11, -1, -1, -1]]))
    assert [(bodies, blocks.tolist()) for bodies, blocks in islands(ranges, rows)] == [([0, 1], [0]), ([2], [1])]


def test_two_equal_worlds_of_bodies_sliding_on_each_other_step_bit_for_bit_alike():
    import core
    from contact_scenes import tet_box

    def world():
        w = core.World(gravity=(3.0, 0.0, -9.0))
        slab = tet_box((6, 2, 1), (0.6, 0.2, 0.05), (-0.2, -0.1, 0.0))
        w.add_body(slab, core.Material(youngs_modulus=1e6, friction=0.2),
                   pinned=np.flatnonzero(slab.nodes[:, 2] < 1e-9))
        w.add_body(tet_box(2, 0.1, (-0.05, -0.05, 0.0505)),
                   core.Material(youngs_modulus=1e6, friction=0.2))
        return w

    a, b = world(), world()
    for _ in range(60):            # the two step in turn, so each finds the other's leftovers in freed memory
        a.step(1 / 120)
        b.step(1 / 120)
    for p, q in zip(a.bodies, b.bodies):
        assert np.array_equal(p.x, q.x) and np.array_equal(p.v, q.v)
