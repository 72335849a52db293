"""Each body's step matrix A factored exactly (sparse LU per body), as the contact solve's preconditioner away from
its contact region (core.contact.mlcp) for stiff bodies small enough to factor, when they touch each other: there the
V-cycle's iterations grow with the stack's height, while for a single stiff body against a collider the V-cycle is
cheaper than the factor (benchmarks/RESULTS.md)."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl

MAX_NODES = 4000   # bodies up to this many nodes are factored (the factor's fill grows faster than the body)


def factorable(system):
    """Whether every body of the assembled `system` is small enough to factor."""
    return hasattr(system, "pattern") and all(n1 - n0 <= MAX_NODES for n0, n1 in system.node_ranges)


def factored_inverse(system, free):
    """A callable solve(r, z) -> r·z: z = A⁻¹ r on the free nodes, body by body (A has no blocks between bodies),
    zero on the held ones."""
    pat = system.pattern
    a = sp.bsr_matrix((system.data, pat.col, pat.row_ptr), shape=(3 * len(free),) * 2).tocsr()
    parts = []
    for n0, n1 in system.node_ranges:
        dof = 3 * n0 + np.flatnonzero(np.repeat(free[n0:n1] > 0, 3))
        if len(dof):
            # A is symmetric positive definite: a symmetric ordering and no pivoting (as core.contact.region)
            parts.append((dof, spl.splu(a[dof][:, dof].tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                                        options={"SymmetricMode": True})))

    def solve(r, z):
        z[:] = 0.0
        rf, zf = r.reshape(-1), z.reshape(-1)
        for dof, lu in parts:
            zf[dof] = lu.solve(rf[dof])
        return float(np.vdot(r, z))
    return solve
