"""The SPD factorization of the cage fits (addon/spd_factor.py): the same answer as a dense solve, less fill."""
import importlib

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import splu


def cage(softfem, resolution):
    primitives = importlib.import_module(softfem.__name__ + ".core.geometry.primitives")
    v, f = primitives.icosphere(3, 0.5)
    return importlib.import_module(softfem.__name__ + ".core").tetrahedralize(v, f, resolution=resolution,
                                                                              mode="cage")


def stiffness_like(tm):
    """An SPD matrix coupling the cage's nodes as its tets do: the graph Laplacian of the tets' edges plus 1e-3 I."""
    pairs = tm.tets[:, [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]].reshape(-1, 2)
    n = tm.num_nodes
    adjacency = sparse.coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    adjacency = ((adjacency + adjacency.T) > 0).astype(np.float64)
    return (sparse.diags(np.asarray(adjacency.sum(axis=1)).ravel()) - adjacency + 1e-3 * sparse.identity(n)).tocsc()


def test_the_nested_dissection_factorization_solves_as_a_dense_solve(softfem):
    spd = importlib.import_module(softfem.__name__ + ".addon.spd_factor")
    tm = cage(softfem, 8)
    matrix = stiffness_like(tm)
    order = spd.nested_dissection(tm.nodes, matrix)
    assert np.array_equal(np.sort(order), np.arange(tm.num_nodes))
    b = np.random.default_rng(1).normal(size=(tm.num_nodes, 3))
    solve = spd.factorized_spd(matrix, tm.nodes)
    expected = np.linalg.solve(matrix.toarray(), b)
    assert np.abs(solve(b) - expected).max() < 1e-9 * np.abs(expected).max()
    assert np.abs(solve(b[:, 1]) - expected[:, 1]).max() < 1e-9 * np.abs(expected).max()


def test_the_nested_dissection_order_fills_the_factor_less_than_superlus_own(softfem):
    # the point of the order: SuperLU's COLAMD fills a cage's factor more, the more the larger the cage (the shape
    # fit's matrix of a 20,900-node cage: 2.6x the nonzeros, 8x the time; here 9,288 nodes: 1.6x)
    spd = importlib.import_module(softfem.__name__ + ".addon.spd_factor")
    tm = cage(softfem, 24)
    matrix = stiffness_like(tm)
    order = spd.nested_dissection(tm.nodes, matrix)
    ours = splu(matrix.tocsr()[order][:, order].tocsc(), permc_spec="NATURAL", diag_pivot_thresh=0.0,
                options={"SymmetricMode": True})
    theirs = splu(matrix)
    assert ours.L.nnz + ours.U.nnz < 0.75 * (theirs.L.nnz + theirs.U.nnz)
