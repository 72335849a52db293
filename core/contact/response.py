"""Response kernel: contact pseudo-impulses with Coulomb friction, a bound-constrained QP solved by MPRGP (mprgp.py) on
a working set of rows grown group by group, with outer passes updating the friction bounds."""
import math

import numpy as np

from ..jit import njit
from .mprgp import gradients, matvec, mprgp, node_velocity, over_tolerance, power_iterations

FRICTION_PASSES = 2   # outer passes updating the friction bounds μ λn from the last normal impulses
GROUP_COS = 0.99      # rows over the same stencil nodes, with the same μ and normals this close, are one group
ADD_PER_ROUND = 2     # violated rows a group adds to the working set per round
ROUNDS = 8            # working-set solves per pass (the last but one round adds every violated row)


@njit(cache=True)
def _touched_nodes(stencil_node, num_nodes):
    """The nodes the rows' stencils reach, ascending."""
    seen = np.zeros(num_nodes, np.bool_)
    for j in stencil_node.ravel():
        if j >= 0:
            seen[j] = True
    return np.flatnonzero(seen)


@njit(cache=True)
def _groups(node, normal, mu, nodes, num_nodes):
    """Group id per row (and the number of groups): rows with the same stencil nodes in the same order, the
    same μ and normals within GROUP_COS. A group's rows are nearly redundant: many render points in one tet.
    Each row joins the group of the first earlier row of its stencil it matches. nodes: the rows' nodes."""
    nc, S = node.shape
    # the rows by stencil, rows of one stencil in ascending order: a stable counting sort per stencil entry,
    # on the nodes' ranks among `nodes` (−1 first)
    rank = np.empty(num_nodes, np.int64)
    for k in range(nodes.shape[0]):
        rank[nodes[k]] = k
    digit = np.empty((nc, S), np.int64)
    for c in range(nc):
        for s in range(S):
            digit[c, s] = rank[node[c, s]] + 1 if node[c, s] >= 0 else 0
    order = np.arange(nc)
    swap = np.empty(nc, np.int64)
    count = np.empty(nodes.shape[0] + 2, np.int64)
    for s in range(S - 1, -1, -1):
        count[:] = 0
        for c in order:
            count[digit[c, s] + 1] += 1
        for k in range(1, count.shape[0]):
            count[k] += count[k - 1]
        for c in order:
            swap[count[digit[c, s]]] = c
            count[digit[c, s]] += 1
        order, swap = swap, order
    group = np.full(nc, -1, np.int64)
    ng = 0
    i = 0
    while i < nc:
        j = i + 1
        while j < nc:
            same = True
            for s in range(S):
                same = same and node[order[j], s] == node[order[i], s]
            if not same:
                break
            j += 1
        for a in range(i, j):
            c = order[a]
            if group[c] >= 0:
                continue
            group[c] = ng
            for e in range(a + 1, j):
                d = order[e]
                if group[d] < 0 and mu[d] == mu[c] and normal[c, 0] * normal[d, 0] + normal[c, 1] * normal[d, 1] \
                        + normal[c, 2] * normal[d, 2] >= GROUP_COS:
                    group[d] = ng
            ng += 1
        i = j
    return group, ng


@njit(cache=True)
def _initial_rows(group, ng, coef, b, scale, in_w):
    """Seed the working set: per group, its most violated row and the rows with the largest weight on each
    stencil entry (the extreme points of the patch, which span it)."""
    nc, S = coef.shape
    worst = np.full(ng, -1, np.int64)
    top = np.full((ng, S), -1, np.int64)
    for c in range(nc):
        if scale[c] <= 0.0:
            continue
        g = group[c]
        if worst[g] < 0 or b[3 * c] / scale[c] > b[3 * worst[g]] / scale[worst[g]]:
            worst[g] = c
        for s in range(S):
            if top[g, s] < 0 or abs(coef[c, s]) > abs(coef[top[g, s], s]):
                top[g, s] = c
    for g in range(ng):
        if worst[g] >= 0:
            in_w[worst[g]] = True
        for s in range(S):
            if top[g, s] >= 0:
                in_w[top[g, s]] = True


@njit(cache=True)
def _bounds(rows, group, ng, mu, x, floor_impulse, scale, in_w, use_normal, lo, hi, floor):
    """Friction bounds ±μ (λn + floor) of the working rows. The floor of a group's rows outside the working
    set is shared among its working rows (floor, in the scaled units of x), so the group keeps its
    friction capacity."""
    nc = mu.shape[0]
    spare = np.zeros(ng)
    count = np.zeros(ng)
    for c in range(nc):
        if scale[c] > 0.0:
            if in_w[c]:
                count[group[c]] += 1.0
            else:
                spare[group[c]] += floor_impulse[c]
    for c in rows:
        g = group[c]
        floor[c] = (floor_impulse[c] + spare[g] / count[g]) / scale[c]
        bound = mu[c] * ((x[3 * c] if use_normal else 0.0) + floor[c])
        for d in (1, 2):
            lo[3 * c + d] = -bound
            hi[3 * c + d] = bound


@njit(cache=True)
def _row_arrays(rows, frames, scale, node, coef, num_nodes):
    """The working rows' frames, scales, stencils and the nodes those reach."""
    m = rows.shape[0]
    S = node.shape[1]
    fs = np.empty((m, 3, 3))
    ss = np.empty(m)
    ns = np.empty((m, S), np.int64)
    cs = np.empty((m, S))
    for i in range(m):
        c = rows[i]
        fs[i] = frames[c]
        ss[i] = scale[c]
        ns[i] = node[c]
        cs[i] = coef[c]
    return fs, ss, ns, cs, _touched_nodes(ns, num_nodes)


@njit(cache=True)
def _power_rows(rows, fs, ss, ns, cs, nodes, inv_mass, power, known):
    """power_iterations on the rows `rows` (their _row_arrays fs, ss, ns, cs, nodes; their entries of power
    updated in place)."""
    m = rows.shape[0]
    ps = np.empty(3 * m)
    for i in range(m):
        for d in range(3):
            ps[3 * i + d] = power[3 * rows[i] + d]
    if not power_iterations(fs, ss, ns, cs, inv_mass, nodes, ps, known):
        return False
    for i in range(m):
        for d in range(3):
            power[3 * rows[i] + d] = ps[3 * i + d]
    return True


@njit(cache=True)
def _solve_rows(rows, owed, x, b, lo, hi, frames, scale, node, coef, inv_mass, iterations, tolerance, power, known):
    """MPRGP on the working rows only (x updated in place for them). Returns the iterations used and the rows
    whose power iterations are owed: when the working rows meet the tolerance as they stand, the solve needs
    no step length and its power iterations are put off until the next solve, which runs them first on those
    rows (`owed`): the same ‖A‖ estimates as running them at once, skipped when no solve follows."""
    m = rows.shape[0]
    xs = np.empty(3 * m)
    bs = np.empty(3 * m)
    los = np.empty(3 * m)
    his = np.empty(3 * m)
    clipped = False
    for i in range(m):
        c = rows[i]
        for d in range(3):
            xs[3 * i + d] = np.minimum(np.maximum(x[3 * c + d], lo[3 * c + d]), hi[3 * c + d])
            clipped = clipped or xs[3 * i + d] != x[3 * c + d]
            bs[3 * i + d] = b[3 * c + d]
            los[3 * i + d] = lo[3 * c + d]
            his[3 * i + d] = hi[3 * c + d]
    fs, ss, ns, cs, nodes = _row_arrays(rows, frames, scale, node, coef, inv_mass.shape[0])
    g = np.empty(3 * m)
    matvec(xs, fs, ss, ns, cs, inv_mass, nodes, np.empty((inv_mass.shape[0], 3)), g)
    g -= bs
    phi = np.zeros(3 * m)
    beta = np.zeros(3 * m)
    gradients(xs, g, los, his, 1.0, phi, beta)   # φ and β do not depend on the step length
    none = np.empty(0, np.int64)
    if owed.shape[0] == 0 and not clipped and not over_tolerance(phi, beta, ss, tolerance):
        return 0, rows
    if owed.shape[0] > 0:
        fo, so, no, co, nodes_o = _row_arrays(owed, frames, scale, node, coef, inv_mass.shape[0])
        _power_rows(owed, fo, so, no, co, nodes_o, inv_mass, power, known)
    if not _power_rows(rows, fs, ss, ns, cs, nodes, inv_mass, power, known):
        return 0, none   # A maps the power iterate to 0: x is left as it was
    it = mprgp(xs, g, bs, los, his, 1.9 / (1.05 * known[0]), fs, ss, ns, cs, inv_mass, nodes, iterations,
                tolerance)
    for i in range(m):
        for d in range(3):
            x[3 * rows[i] + d] = xs[3 * i + d]
    return it, none


@njit(cache=True)
def _add_violated(x, b, lo, hi, frames, scale, node, coef, inv_mass, nodes, group, ng, tolerance,
                  tangential, limit, in_w):
    """Check every row against the impulses of the working rows; add to the working set, per group, up to
    `limit` rows that miss their target by more than the tolerance (normal velocity below its minimum; with
    `tangential`, a tangential velocity left on a row whose group still sticks: none of its working rows at a
    friction bound). Returns how many rows were added."""
    nc = scale.shape[0]
    dv = np.empty((inv_mass.shape[0], 3))
    g = np.empty(3 * nc)
    matvec(x, frames, scale, node, coef, inv_mass, nodes, dv, g)
    g -= b
    slipping = np.zeros(ng, np.bool_)
    if tangential:
        for c in range(nc):
            if in_w[c] and scale[c] > 0.0:
                for d in (1, 2):
                    i = 3 * c + d
                    if lo[i] >= hi[i] or x[i] <= lo[i] or x[i] >= hi[i]:
                        slipping[group[c]] = True
    miss = np.zeros(nc)
    for c in range(nc):
        if in_w[c] or scale[c] <= 0.0:
            continue
        e = -g[3 * c] / scale[c]
        if tangential and not slipping[group[c]]:
            e = max(e, math.sqrt(g[3 * c + 1] ** 2 + g[3 * c + 2] ** 2) / scale[c])
        miss[c] = e
    late = np.flatnonzero(miss > tolerance)
    if late.shape[0] == 0:
        return 0
    # the most violated first: sorting only those gives the order of np.argsort(-miss) unless two tie
    by = np.argsort(-miss[late])
    order = late[by]
    for a in range(1, order.shape[0]):
        if miss[order[a]] == miss[order[a - 1]]:
            order = np.argsort(-miss)[:late.shape[0]]
            break
    added = 0
    taken = np.zeros(ng, np.int64)
    for c in order:
        if taken[group[c]] < limit:
            taken[group[c]] += 1
            in_w[c] = True
            added += 1
    return added


@njit(cache=True)
def _share_in_groups(x, b, frames, scale, node, coef, inv_mass, nodes, group, ng, in_w, mu, floor_impulse,
                     tolerance, lam_n, lam_t):
    """Report a group's impulses over all its rows, not only its working rows: the normal impulse shared
    equally by the rows whose constraint is active (within the tolerance), the friction impulse in
    proportion to each row's bound μ (λn + floor), so every row stays inside its cone. The group's totals
    (its momentum change) are kept; how they split among redundant rows is not unique anyway."""
    nc = scale.shape[0]
    dropped = np.zeros(ng, np.bool_)
    for c in range(nc):
        if scale[c] > 0.0 and not in_w[c]:
            dropped[group[c]] = True
    if not dropped.any():
        return
    dv = np.zeros((inv_mass.shape[0], 3))
    g = np.zeros(3 * nc)
    matvec(x, frames, scale, node, coef, inv_mass, nodes, dv, g)
    g -= b
    active = np.zeros(nc, np.bool_)
    total_n = np.zeros(ng)
    count = np.zeros(ng)
    total_t = np.zeros((ng, 3))
    for c in range(nc):
        k = group[c]
        if dropped[k] and scale[c] > 0.0:
            active[c] = g[3 * c] / scale[c] <= tolerance or lam_n[c] > 0.0
            if active[c]:
                count[k] += 1.0
            total_n[k] += lam_n[c]
            for d in range(3):
                total_t[k, d] += lam_t[c, d]
    cap_sum = np.zeros(ng)
    for c in range(nc):
        k = group[c]
        if dropped[k] and scale[c] > 0.0:
            lam_n[c] = total_n[k] / count[k] if active[c] else 0.0
            cap_sum[k] += mu[c] * (lam_n[c] + floor_impulse[c])
    for c in range(nc):
        k = group[c]
        if dropped[k] and scale[c] > 0.0:
            f = mu[c] * (lam_n[c] + floor_impulse[c]) / cap_sum[k] if cap_sum[k] > 0.0 else 0.0
            for d in range(3):
                lam_t[c, d] = f * total_t[k, d]


@njit(cache=True)
def solve_contacts(vel, inv_mass, stencil_node, stencil_coef, normal, vmin, mu, normal_floor, surface_vel,
                   iterations, tolerance, lam_n, lam_t):
    """Make every contact's relative normal velocity n·u ≥ vmin, with Coulomb friction
    |λt| ≤ μ (λn + normal_floor).

    u_c = Σ_s coef[c,s] vel[node[c,s]] − surface_vel[c]; an impulse P on contact c changes
    vel[j] by inv_mass[j] coef P (the embedding's barycentric weights carry it to the nodes,
    mass-consistently). The impulses are the pseudo-impulses of all contacts at once: the
    bound-constrained QP of the contacts' Delassus operator, Jacobi-scaled (every contact's impulse
    in units of its own effective mass, order-independent), solved by MPRGP. Rows over the same nodes
    with agreeing normals (render points in one tet) are nearly redundant and make that operator
    ill-conditioned, so the QP is solved on a working set: a few rows per such group, then every row is
    checked and the ones missing their target by more than the tolerance join, until none does. Friction:
    a stick contact's tangential velocity is cancelled within |λt| ≤ μλn (bounds updated from the normal
    impulses over a few passes; the slip direction is the initial tangential velocity); a slip
    contact gets friction on the cone's boundary. normal_floor (nc,) ≥ 0: a normal impulse already
    applied to each contact (by the implicit solve; same units as λn), which widens its friction bound
    from the first pass on; a group's rows outside the working set lend theirs to its working rows, and the
    group's impulses are reported over all its rows (see _share_in_groups). λn ≥ 0, λt returned in lam_n,
    lam_t; vel is updated in place. Returns the iterations used.
    """
    nc, S = stencil_node.shape
    num_nodes = vel.shape[0]
    if nc == 0:
        return 0
    scale = np.zeros(nc)
    frames = np.zeros((nc, 3, 3))
    b = np.zeros(3 * nc)
    for c in range(nc):
        k = 0.0
        ux = uy = uz = 0.0
        for s in range(S):
            j = stencil_node[c, s]
            if j >= 0:
                a = stencil_coef[c, s]
                k += a * a * inv_mass[j]
                ux += a * vel[j, 0]
                uy += a * vel[j, 1]
                uz += a * vel[j, 2]
        ux -= surface_vel[c, 0]
        uy -= surface_vel[c, 1]
        uz -= surface_vel[c, 2]
        nx, ny, nz = normal[c, 0], normal[c, 1], normal[c, 2]
        un = nx * ux + ny * uy + nz * uz
        tx, ty, tz = ux - un * nx, uy - un * ny, uz - un * nz
        tl = math.sqrt(tx * tx + ty * ty + tz * tz)
        if tl < 1e-12:  # no slip direction: any tangent
            if abs(nx) < 0.9:
                tx, ty, tz = 0.0, -nz, ny
            else:
                tx, ty, tz = nz, 0.0, -nx
            tl = math.sqrt(tx * tx + ty * ty + tz * tz)
        tx /= tl
        ty /= tl
        tz /= tl
        frames[c, 0, 0], frames[c, 0, 1], frames[c, 0, 2] = nx, ny, nz
        frames[c, 1, 0], frames[c, 1, 1], frames[c, 1, 2] = tx, ty, tz
        frames[c, 2, 0] = ny * tz - nz * ty
        frames[c, 2, 1] = nz * tx - nx * tz
        frames[c, 2, 2] = nx * ty - ny * tx
        scale[c] = 1.0 / math.sqrt(k) if k > 0.0 else 0.0
        target = (vmin[c], 0.0, 0.0)
        for d in range(3):
            ud = frames[c, d, 0] * ux + frames[c, d, 1] * uy + frames[c, d, 2] * uz
            b[3 * c + d] = scale[c] * (target[d] - ud)
    nodes = _touched_nodes(stencil_node, num_nodes)
    floor_impulse = np.maximum(normal_floor, 0.0)
    group, ng = _groups(stencil_node, normal, mu, nodes, num_nodes)
    in_w = np.zeros(nc, np.bool_)
    _initial_rows(group, ng, stencil_coef, b, scale, in_w)
    x = np.zeros(3 * nc)
    lo = np.zeros(3 * nc)
    hi = np.zeros(3 * nc)
    floor = np.zeros(nc)   # the working rows' friction floor in the scaled units of x
    for c in range(nc):
        if scale[c] > 0.0:
            hi[3 * c] = np.inf
    power = np.ones(3 * nc)
    known = np.zeros(1)
    owed = np.empty(0, np.int64)   # rows whose power iterations were put off (see _solve_rows)
    passes = FRICTION_PASSES if mu.max() > 0.0 else 1
    total = 0
    for p in range(passes):
        for r in range(ROUNDS):
            rows = np.flatnonzero(in_w)
            _bounds(rows, group, ng, mu, x, floor_impulse, scale, in_w, p > 0, lo, hi, floor)
            it, owed = _solve_rows(rows, owed, x, b, lo, hi, frames, scale, stencil_node, stencil_coef, inv_mass,
                                   iterations, tolerance, power, known)
            total += it
            if r == ROUNDS - 1:
                break
            limit = ADD_PER_ROUND if r < ROUNDS - 2 else nc
            if _add_violated(x, b, lo, hi, frames, scale, stencil_node, stencil_coef, inv_mass, nodes,
                             group, ng, tolerance, p == passes - 1, limit, in_w) == 0:
                break
    # the tangential impulse within the isotropic cone |λt| ≤ μ (λn + floor)
    for c in range(nc):
        t1, t2 = x[3 * c + 1], x[3 * c + 2]
        tl = math.sqrt(t1 * t1 + t2 * t2)
        cap = mu[c] * (x[3 * c] + floor[c])
        if tl > cap:
            x[3 * c + 1] = t1 * cap / tl
            x[3 * c + 2] = t2 * cap / tl
    dv = np.zeros((num_nodes, 3))
    node_velocity(x, frames, scale, stencil_node, stencil_coef, inv_mass, nodes, dv)
    vel += dv
    for c in range(nc):
        lam_n[c] = scale[c] * x[3 * c]
        for k in range(3):
            lam_t[c, k] = scale[c] * (x[3 * c + 1] * frames[c, 1, k] + x[3 * c + 2] * frames[c, 2, k])
    _share_in_groups(x, b, frames, scale, stencil_node, stencil_coef, inv_mass, nodes, group, ng, in_w,
                     mu, floor_impulse, tolerance, lam_n, lam_t)
    return total
