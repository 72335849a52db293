"""MPRGP (modified proportioning with reduced gradient projections) for the contact QP: min ½ yᵀA y − bᵀy over
lo ≤ y ≤ hi, with A = J M⁻¹ Jᵀ applied row-wise through the rows' node stencils (never assembled)."""
import math

import numpy as np

from ..jit import njit

POWER_ITERATIONS = 12      # power iterations estimating ‖A‖ on the first working set
POWER_WARM_ITERATIONS = 3  # on a grown working set, warm-started from the last one's iterate


@njit(cache=True)
def node_velocity(y, frames, scale, stencil_node, stencil_coef, inv_mass, nodes, dv):
    """dv_j = inv_mass_j Σ_c coef_cj P_c: node velocity change of the (scaled, local-frame) impulses y, written
    for the rows' nodes `nodes` only (a scatter over the rows: no latency chain through one node's sum). Rows
    without impulse are skipped: the ±0 they would add leaves every sum as it is (each starts at +0), and in
    MPRGP most are (a search direction lives on the free variables)."""
    nc, S = stencil_node.shape
    for j in nodes:
        dv[j] = 0.0
    for c in range(nc):
        if y[3 * c] == 0.0 and y[3 * c + 1] == 0.0 and y[3 * c + 2] == 0.0:
            continue
        for s in range(S):
            j = stencil_node[c, s]
            if j >= 0:
                a = stencil_coef[c, s] * scale[c]
                gx, gy, gz = dv[j, 0], dv[j, 1], dv[j, 2]
                for d in range(3):
                    t = a * y[3 * c + d]
                    gx += t * frames[c, d, 0]
                    gy += t * frames[c, d, 1]
                    gz += t * frames[c, d, 2]
                dv[j, 0], dv[j, 1], dv[j, 2] = gx, gy, gz
    for j in nodes:
        for d in range(3):
            dv[j, d] = inv_mass[j] * dv[j, d]


@njit(cache=True)
def contact_velocity(vel, frames, scale, stencil_node, stencil_coef, out):
    """out_cd = scale_c frame_cd · Σ_s coef_cs vel_node(cs): relative velocities in the contacts' frames."""
    nc, S = stencil_node.shape
    for c in range(nc):
        ux = uy = uz = 0.0
        for s in range(S):
            j = stencil_node[c, s]
            if j >= 0:
                a = stencil_coef[c, s]
                ux += a * vel[j, 0]
                uy += a * vel[j, 1]
                uz += a * vel[j, 2]
        for d in range(3):
            out[3 * c + d] = scale[c] * (frames[c, d, 0] * ux + frames[c, d, 1] * uy + frames[c, d, 2] * uz)


@njit(cache=True)
def matvec(y, frames, scale, node, coef, inv_mass, nodes, dv, out):
    """out = A y (nodes: the rows' _touched_nodes; dv: scratch node velocities)."""
    node_velocity(y, frames, scale, node, coef, inv_mass, nodes, dv)
    contact_velocity(dv, frames, scale, node, coef, out)


@njit(cache=True)
def gradients(x, g, lo, hi, alpha, phi, beta):
    """Free gradient φ, chopped gradient β and the reduced free gradient's φᵀφ̃ of MPRGP."""
    red = 0.0
    for i in range(x.shape[0]):
        if lo[i] >= hi[i]:  # fixed variable (a friction bound of zero width)
            phi[i] = 0.0
            beta[i] = 0.0
        elif x[i] <= lo[i]:
            phi[i] = 0.0
            beta[i] = min(g[i], 0.0)
        elif x[i] >= hi[i]:
            phi[i] = 0.0
            beta[i] = max(g[i], 0.0)
        else:
            phi[i] = g[i]
            beta[i] = 0.0
            room = (x[i] - lo[i]) / alpha if g[i] > 0.0 else (x[i] - hi[i]) / alpha
            r = min(g[i], room) if g[i] > 0.0 else max(g[i], room)
            red += r * g[i]
    return red


@njit(cache=True)
def over_tolerance(phi, beta, scale, tolerance):
    """Whether some row's projected gradient |φ + β| (in velocity units) exceeds the tolerance."""
    for i in range(phi.shape[0]):
        if abs(phi[i] + beta[i]) / scale[i // 3] > tolerance:
            return True
    return False


@njit(cache=True)
def power_iterations(frames, scale, node, coef, inv_mass, nodes, power, known):
    """‖A‖ by power iteration, for the expansion step length 1.9/‖A‖: `power` holds the last working set's
    iterate (a warm start: the working set only grows, so ‖A‖ does too, and known[0], the largest estimate so
    far, is a lower bound). Updates power and known; False (nothing updated) if A maps the iterate to 0."""
    n = power.shape[0]
    dv = np.empty((inv_mass.shape[0], 3))
    Ap = np.zeros(n)
    p = power.copy()
    norm = 1.0
    for _ in range(POWER_ITERATIONS if known[0] == 0.0 else POWER_WARM_ITERATIONS):
        matvec(p, frames, scale, node, coef, inv_mass, nodes, dv, Ap)
        norm = math.sqrt(np.dot(Ap, Ap))
        if norm <= 0.0:
            return False
        for i in range(n):
            p[i] = Ap[i] / norm
    power[:] = p
    known[0] = max(norm, known[0])
    return True


@njit(cache=True)
def mprgp(x, g, b, lo, hi, alpha, frames, scale, node, coef, inv_mass, nodes, iterations, tolerance):
    """min ½ xᵀAx − bᵀx, lo ≤ x ≤ hi (A = Jacobi-scaled contact Delassus operator, matrix-free):
    modified proportioning with reduced gradient projections (Dostál), from x within the bounds and its
    gradient g = Ax − b, with the expansion step length alpha. Returns the iterations used."""
    n = x.shape[0]
    dv = np.empty((inv_mass.shape[0], 3))
    Ap = np.zeros(n)
    p = np.empty(n)
    phi = np.zeros(n)
    beta = np.zeros(n)
    red = gradients(x, g, lo, hi, alpha, phi, beta)
    p[:] = phi
    it = 0
    while it < iterations:
        if not over_tolerance(phi, beta, scale, tolerance):
            break
        it += 1
        if np.dot(beta, beta) <= red:
            matvec(p, frames, scale, node, coef, inv_mass, nodes, dv, Ap)
            pAp = np.dot(p, Ap)
            if pAp <= 0.0:
                break
            acg = np.dot(g, p) / pAp
            af = np.inf
            for i in range(n):
                if p[i] > 0.0:
                    af = min(af, (x[i] - lo[i]) / p[i])
                elif p[i] < 0.0:
                    af = min(af, (x[i] - hi[i]) / p[i])
            if acg <= af:  # conjugate gradient step
                for i in range(n):
                    x[i] -= acg * p[i]
                    g[i] -= acg * Ap[i]
                red = gradients(x, g, lo, hi, alpha, phi, beta)
                gamma = np.dot(phi, Ap) / pAp
                for i in range(n):
                    p[i] = phi[i] - gamma * p[i]
            else:          # expansion step: to the bound, then a projected gradient step on the free set
                for i in range(n):
                    x[i] -= af * p[i]
                    g[i] -= af * Ap[i]
                gradients(x, g, lo, hi, alpha, phi, beta)
                for i in range(n):
                    x[i] = np.minimum(np.maximum(x[i] - alpha * phi[i], lo[i]), hi[i])
                matvec(x, frames, scale, node, coef, inv_mass, nodes, dv, g)
                for i in range(n):
                    g[i] -= b[i]
                red = gradients(x, g, lo, hi, alpha, phi, beta)
                p[:] = phi
        else:              # proportioning step: release constraints whose multipliers pull the wrong way
            matvec(beta, frames, scale, node, coef, inv_mass, nodes, dv, Ap)
            bAb = np.dot(beta, Ap)
            if bAb <= 0.0:
                break
            a = np.dot(g, beta) / bAb
            for i in range(n):
                x[i] -= a * beta[i]
                g[i] -= a * Ap[i]
            red = gradients(x, g, lo, hi, alpha, phi, beta)
            p[:] = phi
    return it
