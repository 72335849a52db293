"""ContactPenalty's per-stencil blocks against the rows they sum, built densely one row at a time."""
import numpy as np

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
    return ContactPenalty(node, coef, normal, np.zeros(num_rows), kappa, point, none, none,
                          np.zeros(num_rows, bool), np.zeros(num_rows), num_nodes)


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
