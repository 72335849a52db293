"""Corotational linear tets: numba kernels for rotations (with DAPD), forces, energy and stiffness products.

Per tet e with nodes (i0..i3): F = Ds Gₑ with Gₑ = Dm⁻¹, shape gradients gₐ (rows of Gₑ for a = 1..3,
g₀ = −Σ), P = 2μ(F − R) + λ(tr(RᵀF) − 3) R, nodal forces fₐ = −V P gₐ, energy
V (μ‖F − R‖² + λ/2 (tr(RᵀF) − 3)²). `mu_v`, `lam_v` hold μV and λV. Per-tet results go to a
(M, 4, 3) buffer and are summed per node by `gather` (race-free, parallel over nodes).
"""

import numpy as np

from ..jit import njit, prange
from . import mat3
from .dapd import NO_WITNESS, edge_matrix, first_crossing, nearest_witness, uninverted_edges
from .polar import polar_rotation

HYBRID, WARPED, EXACT = 0, 1, 2


@njit(cache=True)
def _node(x, i):
    return (x[i, 0], x[i, 1], x[i, 2])


@njit(cache=True)
def _lerp(a, b, t):
    return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2]))


@njit(cache=True)
def _dapd_rotation(x_eval, rest, tets, g, f, ds, p0, p1, p2, p3, last, w, e, alpha, beta):
    """R of a tet with det F < α (DAPD: polar rotation of the un-inverted F̄, else its `last` R) and its witness."""
    i0, i1, i2, i3 = tets[e, 0], tets[e, 1], tets[e, 2], tets[e, 3]
    r0, r1, r2, r3 = _node(rest, i0), _node(rest, i1), _node(rest, i2), _node(rest, i3)
    if w == NO_WITNESS:
        q0, q1, q2, q3 = _node(x_eval, i0), _node(x_eval, i1), _node(x_eval, i2), _node(x_eval, i3)
        d0 = edge_matrix(q0, q1, q2, q3)
        t = -1.0
        if mat3.det(mat3.mul(d0, g)) > alpha:
            t = first_crossing(d0, ds, alpha / mat3.det(g))
        if t >= 0.0:
            w = nearest_witness(_lerp(q0, p0, t), _lerp(q1, p1, t), _lerp(q2, p2, t), _lerp(q3, p3, t))
        else:
            w = nearest_witness(p0, p1, p2, p3)
    for attempt in range(2):
        dbar, ok = uninverted_edges(w, p0, p1, p2, p3, r0, r1, r2, r3, alpha, beta)
        if ok:
            r, ok = polar_rotation(mat3.mul(dbar, g), last)
            if ok:
                return r, w
        # the remembered witness no longer un-inverts this tet: try the nearest one once
        w_near = nearest_witness(p0, p1, p2, p3)
        if w_near == w:
            break
        w = w_near
    return last, w


@njit(parallel=True, cache=True, fastmath={"contract"})
def update_rotations(x, x_eval, rest, tets, gm, rot, witness, gamma, shat, alpha, beta, mode):
    """Rotations, witnesses and the hybrid weight γ = min(1, Σ|σᵢ − 1|/3) of every tet, in place.
    `rot` holds the last R (kept where no rotation can be extracted) and receives R; `shat` receives S = RᵀF in
    EXACT mode.

    Three passes: tets with det F ≥ α (polar), the rare collapsed ones (DAPD), then γ (or S) from the new R. Each
    branch in the polar loop's body made every tet slower (the DAPD code ~45 ns, a mode switch ~7 ns, against
    ~280 ns per tet in all before; measured on a 5.9k-tet ball); γ's own pass, which gathers F again, timed the
    same as γ inside the polar loop."""
    m = tets.shape[0]
    collapsed = np.zeros(m, dtype=np.bool_)
    for e in prange(m):
        i0, i1, i2, i3 = tets[e, 0], tets[e, 1], tets[e, 2], tets[e, 3]
        f = mat3.mul(edge_matrix(_node(x, i0), _node(x, i1), _node(x, i2), _node(x, i3)), mat3.load(gm, e))
        if mat3.det(f) >= alpha:
            r, ok = polar_rotation(f, mat3.load(rot, e))
            witness[e] = NO_WITNESS
            mat3.store(rot, e, r)
        else:
            collapsed[e] = True
    for e in prange(m):
        if collapsed[e]:
            i0, i1, i2, i3 = tets[e, 0], tets[e, 1], tets[e, 2], tets[e, 3]
            p0, p1, p2, p3 = _node(x, i0), _node(x, i1), _node(x, i2), _node(x, i3)
            g = mat3.load(gm, e)
            ds = edge_matrix(p0, p1, p2, p3)
            r, w = _dapd_rotation(x_eval, rest, tets, g, mat3.mul(ds, g), ds, p0, p1, p2, p3, mat3.load(rot, e),
                                  witness[e], e, alpha, beta)
            witness[e] = w
            mat3.store(rot, e, r)
    if mode == WARPED:
        gamma[:] = 0.0
        return
    for e in prange(m):
        i0, i1, i2, i3 = tets[e, 0], tets[e, 1], tets[e, 2], tets[e, 3]
        f = mat3.mul(edge_matrix(_node(x, i0), _node(x, i1), _node(x, i2), _node(x, i3)), mat3.load(gm, e))
        s = mat3.tmul(mat3.load(rot, e), f)
        if mode == HYBRID:
            gamma[e] = min(1.0, mat3.sym_deviation_l1(s) / 3.0)
        else:
            gamma[e] = 1.0
            mat3.store(shat, e, s)


@njit(cache=True)
def _scatter(buf, e, m, g):
    """buf[e, a] = m gₐ for a = 1..3 and buf[e, 0] = −Σ."""
    s0, s1, s2 = 0.0, 0.0, 0.0
    for a in range(3):
        ga0, ga1, ga2 = g[3 * a], g[3 * a + 1], g[3 * a + 2]
        v0 = m[0] * ga0 + m[1] * ga1 + m[2] * ga2
        v1 = m[3] * ga0 + m[4] * ga1 + m[5] * ga2
        v2 = m[6] * ga0 + m[7] * ga1 + m[8] * ga2
        buf[e, a + 1, 0] = v0
        buf[e, a + 1, 1] = v1
        buf[e, a + 1, 2] = v2
        s0 += v0
        s1 += v1
        s2 += v2
    buf[e, 0, 0] = -s0
    buf[e, 0, 1] = -s1
    buf[e, 0, 2] = -s2


@njit(parallel=True, cache=True)
def tet_forces(x, tets, gm, mu_v, lam_v, rot, buf):
    """Per-tet nodal elastic forces −V P gₐ into buf (M, 4, 3)."""
    for e in prange(tets.shape[0]):
        i0, i1, i2, i3 = tets[e, 0], tets[e, 1], tets[e, 2], tets[e, 3]
        g = mat3.load(gm, e)
        f = mat3.mul(edge_matrix(_node(x, i0), _node(x, i1), _node(x, i2), _node(x, i3)), g)
        r = mat3.load(rot, e)
        k = lam_v[e] * (mat3.trace(mat3.tmul(r, f)) - 3.0)
        two_mu = 2.0 * mu_v[e]
        p = (-(two_mu * (f[0] - r[0]) + k * r[0]), -(two_mu * (f[1] - r[1]) + k * r[1]),
             -(two_mu * (f[2] - r[2]) + k * r[2]), -(two_mu * (f[3] - r[3]) + k * r[3]),
             -(two_mu * (f[4] - r[4]) + k * r[4]), -(two_mu * (f[5] - r[5]) + k * r[5]),
             -(two_mu * (f[6] - r[6]) + k * r[6]), -(two_mu * (f[7] - r[7]) + k * r[7]),
             -(two_mu * (f[8] - r[8]) + k * r[8]))
        _scatter(buf, e, p, g)


@njit(parallel=True, cache=True)
def tet_energies(x, tets, gm, mu_v, lam_v, rot, out):
    """Elastic energy of every tet: μV‖F − R‖² + λV/2 (tr(RᵀF) − 3)²."""
    for e in prange(tets.shape[0]):
        i0, i1, i2, i3 = tets[e, 0], tets[e, 1], tets[e, 2], tets[e, 3]
        f = mat3.mul(edge_matrix(_node(x, i0), _node(x, i1), _node(x, i2), _node(x, i3)),
                     mat3.load(gm, e))
        r = mat3.load(rot, e)
        d2 = 0.0
        for i in range(9):
            d2 += (f[i] - r[i]) ** 2
        tr = mat3.trace(mat3.tmul(r, f)) - 3.0
        out[e] = mu_v[e] * d2 + 0.5 * lam_v[e] * tr * tr


@njit(cache=True)
def _stress_differential(dh, e, mu_v, lam_v, gamma, shat, s, mode):
    """R̂ᵀ δP V for δF̂ = RᵀδF (see tet_stiffness_products), scaled by s."""
    c1 = 2.0 * mu_v[e] * gamma[e] * s
    c2 = mu_v[e] * (1.0 - gamma[e]) * s
    c3 = lam_v[e] * s * mat3.trace(dh)
    o01, o02, o12 = c2 * (dh[1] + dh[3]), c2 * (dh[2] + dh[6]), c2 * (dh[5] + dh[7])
    ph = (c1 * dh[0] + 2.0 * c2 * dh[0] + c3, c1 * dh[1] + o01, c1 * dh[2] + o02,
          c1 * dh[3] + o01, c1 * dh[4] + 2.0 * c2 * dh[4] + c3, c1 * dh[5] + o12,
          c1 * dh[6] + o02, c1 * dh[7] + o12, c1 * dh[8] + 2.0 * c2 * dh[8] + c3)
    if mode == EXACT:
        sm = mat3.load(shat, e)
        ts = mat3.trace(sm)
        a = (ts - sm[0], -0.5 * (sm[1] + sm[3]), -0.5 * (sm[2] + sm[6]),
             -0.5 * (sm[1] + sm[3]), ts - sm[4], -0.5 * (sm[5] + sm[7]),
             -0.5 * (sm[2] + sm[6]), -0.5 * (sm[5] + sm[7]), ts - sm[8])
        da = mat3.det(a)
        if abs(da) > 1e-300:
            ca = mat3.cofactor(a)  # a⁻¹ = cof(a)ᵀ / det(a); a is symmetric
            w0, w1, w2 = dh[7] - dh[5], dh[2] - dh[6], dh[3] - dh[1]
            om0 = (ca[0] * w0 + ca[1] * w1 + ca[2] * w2) / da
            om1 = (ca[3] * w0 + ca[4] * w1 + ca[5] * w2) / da
            om2 = (ca[6] * w0 + ca[7] * w1 + ca[8] * w2) / da
            k = (lam_v[e] * (ts - 3.0) - 2.0 * mu_v[e]) * s
            ph = (ph[0], ph[1] - k * om2, ph[2] + k * om1, ph[3] + k * om2, ph[4],
                  ph[5] - k * om0, ph[6] - k * om1, ph[7] + k * om0, ph[8])
    return ph


@njit(parallel=True, cache=True)
def tet_stiffness_products(p, tets, gm, rot, mu_v, lam_v, gamma, shat, scale, mode, buf, e0, e1):
    """Per-tet K p (K = −∂f/∂x, scaled per tet by `scale`) into buf (M, 4, 3), for tets e0 ≤ e < e1.

    δF̂ = RᵀδF, δP = R (2μ(γ δF̂ + (1−γ) sym δF̂) + λ tr(δF̂) I) (hybrid; warped has γ = 0);
    EXACT adds (λ(tr S − 3) − 2μ) R Ω with Ω = [ω]×, ω = (tr S I − S)⁻¹ vec(δF̂ − δF̂ᵀ)."""
    for e in prange(e0, e1):
        i0, i1, i2, i3 = tets[e, 0], tets[e, 1], tets[e, 2], tets[e, 3]
        g = mat3.load(gm, e)
        r = mat3.load(rot, e)
        dh = mat3.tmul(r, mat3.mul(edge_matrix(_node(p, i0), _node(p, i1), _node(p, i2),
                                               _node(p, i3)), g))
        ph = _stress_differential(dh, e, mu_v, lam_v, gamma, shat, scale[e], mode)
        _scatter(buf, e, mat3.mul(r, ph), g)


@njit(parallel=True, cache=True)
def tet_stiffness_matrices(gm, rot, mu_v, lam_v, gamma, shat, scale, mode, out):
    """Element stiffness matrices Kₑ (M, 12, 12) (dof 3a + k), by applying the differential to unit vectors."""
    for e in prange(out.shape[0]):
        g = mat3.load(gm, e)
        r = mat3.load(rot, e)
        col = np.empty((1, 4, 3))
        for a in range(4):
            for k in range(3):
                # δF = e_k ⊗ gₐ, so δF̂ = Rᵀe_k ⊗ gₐ
                if a == 0:
                    ga = (-(g[0] + g[3] + g[6]), -(g[1] + g[4] + g[7]), -(g[2] + g[5] + g[8]))
                else:
                    ga = (g[3 * a - 3], g[3 * a - 2], g[3 * a - 1])
                q = (r[3 * k], r[3 * k + 1], r[3 * k + 2])
                dh = (q[0] * ga[0], q[0] * ga[1], q[0] * ga[2], q[1] * ga[0], q[1] * ga[1], q[1] * ga[2],
                      q[2] * ga[0], q[2] * ga[1], q[2] * ga[2])
                ph = _stress_differential(dh, e, mu_v, lam_v, gamma, shat, scale[e], mode)
                _scatter(col, 0, mat3.mul(r, ph), g)
                for b in range(4):
                    for j in range(3):
                        out[e, 3 * b + j, 3 * a + k] = col[0, b, j]


@njit(parallel=True, cache=True)
def gather(buf, node_ptr, node_ent, out):
    """out[n] = Σ buf[e, a] over the (tet, corner) incidences of node n (entries e*4 + a)."""
    for n in prange(out.shape[0]):
        s0, s1, s2 = 0.0, 0.0, 0.0
        for k in range(node_ptr[n], node_ptr[n + 1]):
            ent = node_ent[k]
            e, a = ent >> 2, ent & 3
            s0 += buf[e, a, 0]
            s1 += buf[e, a, 1]
            s2 += buf[e, a, 2]
        out[n, 0] = s0
        out[n, 1] = s1
        out[n, 2] = s2


@njit(parallel=True, cache=True)
def block_jacobi_inverse(gm, rot, mu_v, lam_v, gamma, scale, node_ptr, node_ent, mass_coef, out):
    """Inverse of each node's 3×3 diagonal block of mass_coef M + Σ scaleₑ Kₑ (hybrid K), into out (N,3,3).

    Block of corner a: (2μγ + μ(1−γ))V|gₐ|² I + (μ(1−γ) + λ)V (R gₐ)(R gₐ)ᵀ."""
    for n in prange(out.shape[0]):
        b00, b11, b22, b01, b02, b12 = mass_coef[n], mass_coef[n], mass_coef[n], 0.0, 0.0, 0.0
        for k in range(node_ptr[n], node_ptr[n + 1]):
            ent = node_ent[k]
            e, a = ent >> 2, ent & 3
            if a == 0:
                g0 = -(gm[e, 0, 0] + gm[e, 1, 0] + gm[e, 2, 0])
                g1 = -(gm[e, 0, 1] + gm[e, 1, 1] + gm[e, 2, 1])
                g2 = -(gm[e, 0, 2] + gm[e, 1, 2] + gm[e, 2, 2])
            else:
                g0, g1, g2 = gm[e, a - 1, 0], gm[e, a - 1, 1], gm[e, a - 1, 2]
            rg0 = rot[e, 0, 0] * g0 + rot[e, 0, 1] * g1 + rot[e, 0, 2] * g2
            rg1 = rot[e, 1, 0] * g0 + rot[e, 1, 1] * g1 + rot[e, 1, 2] * g2
            rg2 = rot[e, 2, 0] * g0 + rot[e, 2, 1] * g1 + rot[e, 2, 2] * g2
            s = scale[e]
            d = (2.0 * gamma[e] + (1.0 - gamma[e])) * mu_v[e] * s * (g0 * g0 + g1 * g1 + g2 * g2)
            o = ((1.0 - gamma[e]) * mu_v[e] + lam_v[e]) * s
            b00 += d + o * rg0 * rg0
            b11 += d + o * rg1 * rg1
            b22 += d + o * rg2 * rg2
            b01 += o * rg0 * rg1
            b02 += o * rg0 * rg2
            b12 += o * rg1 * rg2
        c00, c11, c22 = b11 * b22 - b12 * b12, b00 * b22 - b02 * b02, b00 * b11 - b01 * b01
        c01, c02, c12 = b02 * b12 - b01 * b22, b01 * b12 - b02 * b11, b01 * b02 - b00 * b12
        det = b00 * c00 + b01 * c01 + b02 * c02
        inv = 1.0 / det if det > 0.0 else 0.0
        out[n, 0, 0], out[n, 1, 1], out[n, 2, 2] = c00 * inv, c11 * inv, c22 * inv
        out[n, 0, 1] = out[n, 1, 0] = c01 * inv
        out[n, 0, 2] = out[n, 2, 0] = c02 * inv
        out[n, 1, 2] = out[n, 2, 1] = c12 * inv
