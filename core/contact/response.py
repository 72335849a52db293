"""Response kernel: projected-Jacobi pseudo-impulses with Coulomb stick/slip friction, mass-split per node."""
import math

import numpy as np

from ..jit import njit, prange


@njit(cache=True)
def _incidence(stencil_node, num_nodes):
    """CSR lists node -> flat stencil entries (c*S + s), and the number of contacts touching each node."""
    nc, S = stencil_node.shape
    ptr = np.zeros(num_nodes + 1, np.int64)
    for c in range(nc):
        for s in range(S):
            j = stencil_node[c, s]
            if j >= 0:
                ptr[j + 1] += 1
    for j in range(num_nodes):
        ptr[j + 1] += ptr[j]
    fill = ptr[:-1].copy()
    entries = np.empty(ptr[-1], np.int64)
    for c in range(nc):
        for s in range(S):
            j = stencil_node[c, s]
            if j >= 0:
                entries[fill[j]] = c * S + s
                fill[j] += 1
    split = np.zeros(num_nodes)
    for j in range(num_nodes):
        split[j] = max(1, ptr[j + 1] - ptr[j])
    return ptr, entries, split


@njit(cache=True, parallel=True)
def solve_contacts(vel, inv_mass, stencil_node, stencil_coef, normal, vmin, mu, surface_vel,
                   iterations, tolerance, lam_n, lam_t):
    """Make every contact's relative normal velocity n·u ≥ vmin, with Coulomb friction |λt| ≤ μ λn.

    u_c = Σ_s coef[c,s] vel[node[c,s]] − surface_vel[c]; an impulse P on contact c changes
    vel[j] by inv_mass[j] coef P (the embedding's barycentric weights carry it to the nodes,
    mass-consistently). Each node's mass is split evenly among the contacts that touch it (Jacobi
    with per-node averaging: order-independent, no jitter). Accumulated impulses λn ≥ 0 and
    λt (|λt| ≤ μλn: stick inside the cone, slip on its boundary) are returned in lam_n, lam_t,
    vel is updated in place. Returns the iterations used.
    """
    nc, S = stencil_node.shape
    num_nodes = vel.shape[0]
    ptr, entries, split = _incidence(stencil_node, num_nodes)
    keff = np.zeros(nc)
    for c in prange(nc):
        k = 0.0
        for s in range(S):
            j = stencil_node[c, s]
            if j >= 0:
                k += stencil_coef[c, s] ** 2 * inv_mass[j] * split[j]
        keff[c] = k
    dP = np.zeros((nc, 3))
    change = np.zeros(nc)
    it = 0
    while it < iterations:
        it += 1
        for c in prange(nc):
            if keff[c] <= 0.0:
                dP[c, 0] = dP[c, 1] = dP[c, 2] = change[c] = 0.0
                continue
            ux = -surface_vel[c, 0]
            uy = -surface_vel[c, 1]
            uz = -surface_vel[c, 2]
            for s in range(S):
                j = stencil_node[c, s]
                if j >= 0:
                    a = stencil_coef[c, s]
                    ux += a * vel[j, 0]
                    uy += a * vel[j, 1]
                    uz += a * vel[j, 2]
            nx, ny, nz = normal[c, 0], normal[c, 1], normal[c, 2]
            un = nx * ux + ny * uy + nz * uz
            ln = max(0.0, lam_n[c] + (vmin[c] - un) / keff[c])
            dln = ln - lam_n[c]
            lam_n[c] = ln
            tx = lam_t[c, 0] - (ux - un * nx) / keff[c]
            ty = lam_t[c, 1] - (uy - un * ny) / keff[c]
            tz = lam_t[c, 2] - (uz - un * nz) / keff[c]
            tl = math.sqrt(tx * tx + ty * ty + tz * tz)
            cap = mu[c] * ln
            if tl > cap:
                f = cap / tl
                tx *= f
                ty *= f
                tz *= f
            dP[c, 0] = dln * nx + tx - lam_t[c, 0]
            dP[c, 1] = dln * ny + ty - lam_t[c, 1]
            dP[c, 2] = dln * nz + tz - lam_t[c, 2]
            lam_t[c, 0], lam_t[c, 1], lam_t[c, 2] = tx, ty, tz
            change[c] = keff[c] * math.sqrt(dP[c, 0] ** 2 + dP[c, 1] ** 2 + dP[c, 2] ** 2)
        for j in prange(num_nodes):
            if ptr[j + 1] == ptr[j]:
                continue
            gx = gy = gz = 0.0
            for e in range(ptr[j], ptr[j + 1]):
                c = entries[e] // S
                a = stencil_coef[c, entries[e] % S]
                gx += a * dP[c, 0]
                gy += a * dP[c, 1]
                gz += a * dP[c, 2]
            vel[j, 0] += inv_mass[j] * gx
            vel[j, 1] += inv_mass[j] * gy
            vel[j, 2] += inv_mass[j] * gz
        if nc == 0 or change.max() <= tolerance:
            break
    return it
