"""Hyperelastic tets (StVK, neo-Hookean, Mooney–Rivlin): forces, energies and PSD-projected stiffness from the
principal stretches of the signed SVD, one kernel per operation dispatching on the tet's material code.

Per tet e: F = Ds Gₑ = U diag(σ) Vᵀ (svd3.signed_svd: an inverted tet has σ₂ < 0). The energy Ψ(σ) of the
material (core.fem.materials; coefficients per tet already times the volume) is evaluated at σ̂ = max(σ, σ_min)
(Irving, Teran, Fedkiw 2004) and continued below the floor by
    Ψ̃(σ) = Ψ(σ̂) + Σ_{clamped i} (min(∂ᵢΨ(σ̂), 0) dᵢ + ½k dᵢ²),   dᵢ = σᵢ − σ_min < 0,   k = max(μ, λ)V,
so the energy rises with the depth of a collapse or inversion and the force pushes the tet back out. (With slope
∂ᵢΨ itself, a tet whose other stretches are large gains energy by inverting further, ∂ᵢΨ > 0 there: Mooney–Rivlin
blew up so.) The force is the exact −∂Ψ̃/∂x (the energy is C¹ except where ∂ᵢΨ(σ̂) > 0 at the floor); k is a
constant per tet (continuation_modulus), so no third derivative of Ψ enters it.
k and σ_min = 0.5 (issue 15) were chosen on a 50 cm ball of the Jelly preset (λ = 9μ) dropped 50 cm
(benchmarks/jelly_drop.py: render-surface volume kept at 3 s, neo-Hookean / Mooney–Rivlin) and on 200 scrambled
cubes (tests/core/test_hyperelastic_inversion.py) at ν = 0.3 and 0.45 (seeds left tangled, neo-Hookean /
Mooney–Rivlin / StVK):
- k = μV, σ_min = 0.45 (before): ball 2.5 % / 70 %; cubes 3/3/0 but 126/132/49 at ν = 0.45. Below the floor only
  the shear modulus resisted, and once a tet's other stretches had grown to J(σ̂) ≥ 1 its slope min(∂ᵢΨ, 0)
  vanished too: the ball flattened into a sheet of 1,670 inverted tets content at σ ≈ (1.8, 1.5, −0.6),
  J(σ̂) ≈ 1.2 (medians).
- k = ∂ᵢᵢΨ at the floor (uniaxial, 86μV for the Jelly, 19μV at ν = 0.3; σ_min = 0.45): ball 96 %, but 47 of 48
  neo-Hookean cubes at ν = 0.3 and all at 0.45 end twisted or folded with every tet upright. Those are local
  minima of the neo-Hookean energy itself (gradient descent of the unclamped energy from one stays there, 0.77 m
  from the rest shape), which a continuation as stiff as the energy reaches; the stiffer k, the more of them
  (at ν = 0.45, σ_min = 0.45: k = (λ + 2μ)V 30/58/117, 2λV 78 % and 81 % of the first two).
- k = max(μ, λ)V, the volume term's modulus that the clamp had dropped: ball 95 % / 97 %, cubes 7/1/0 and
  16/28/67 at σ_min = 0.45; 93 % / 97 %, cubes 0/2/1 and 5/18/33 at 0.5 (the choice); 91 %, 4/8/18 at 0.55.
σ_min thus trades the energy's fidelity in compression for recovery from tangles. The cost: compression below the
floor is softer than the energy's, so the ball's landing squashes it to 35 % of its volume for ~0.2 s (54 %
Mooney–Rivlin) where the energy's own curvature keeps 78 %.
The stiffness is the Hessian of Ψ at U diag(σ̂) Vᵀ (∂ᵢᵢΨ replaced by k for a clamped i) in its eigenmodes
(Teran, Sifakis, Irving, Fedkiw 2005): the 3×3 principal-stretch block ∂²Ψ/∂σᵢ∂σⱼ (modes U diag(q) Vᵀ) and for each
pair i < j a stretch-shear mode (uᵢvⱼᵀ + uⱼvᵢᵀ)/√2 with (∂ᵢΨ − ∂ⱼΨ)/(σᵢ − σⱼ) and a twist mode (uᵢvⱼᵀ − uⱼvᵢᵀ)/√2
with (∂ᵢΨ + ∂ⱼΨ)/(σᵢ + σⱼ); negative eigenvalues are clamped at 0 (not for the "exact" differential of the static
solve), so every Kₑ (12×12, stored per tet) is PSD.
"""
import numpy as np

from ..jit import njit, prange
from . import mat3
from .block_sparse import clear_row
from .corotational import _node, _scatter
from .dapd import edge_matrix
from .materials import MOONEY_RIVLIN, NEO_HOOKEAN, mooney_rivlin, neo_hookean, stvk
from .svd3 import signed_svd, sym_eigen

# Principal stretches below this are clamped for the stress (the energy continues quadratically).
STRETCH_FLOOR = 0.5


def continuation_modulus(mu_v, lam_v):
    """k = max(μ, λ)V per tet (M,): the curvature of the energy continued below the stretch floor."""
    return np.maximum(mu_v, lam_v)


@njit(inline="always", cache=True)
def _derivatives(code, s0, s1, s2, params, e):
    a, b, c = params[e, 0], params[e, 1], params[e, 2]
    if code == NEO_HOOKEAN:
        return neo_hookean.derivatives(s0, s1, s2, a, b, c)
    if code == MOONEY_RIVLIN:
        return mooney_rivlin.derivatives(s0, s1, s2, a, b, c)
    return stvk.derivatives(s0, s1, s2, a, b, c)


@njit(inline="always", cache=True)
def _deformation(x, tets, gm, e):
    return mat3.mul(edge_matrix(_node(x, tets[e, 0]), _node(x, tets[e, 1]), _node(x, tets[e, 2]),
                                _node(x, tets[e, 3])), mat3.load(gm, e))


@njit(inline="always", cache=True)
def _usv(u, s0, s1, s2, v):
    """U diag(s) Vᵀ."""
    return (u[0] * s0 * v[0] + u[1] * s1 * v[1] + u[2] * s2 * v[2],
            u[0] * s0 * v[3] + u[1] * s1 * v[4] + u[2] * s2 * v[5],
            u[0] * s0 * v[6] + u[1] * s1 * v[7] + u[2] * s2 * v[8],
            u[3] * s0 * v[0] + u[4] * s1 * v[1] + u[5] * s2 * v[2],
            u[3] * s0 * v[3] + u[4] * s1 * v[4] + u[5] * s2 * v[5],
            u[3] * s0 * v[6] + u[4] * s1 * v[7] + u[5] * s2 * v[8],
            u[6] * s0 * v[0] + u[7] * s1 * v[1] + u[8] * s2 * v[2],
            u[6] * s0 * v[3] + u[7] * s1 * v[4] + u[8] * s2 * v[5],
            u[6] * s0 * v[6] + u[7] * s1 * v[7] + u[8] * s2 * v[8])


@njit(cache=True)     # compiled once (not inlined): both per-tet functions call it, and it holds every material
def _principal(code, s, params, modulus, e):
    """Ψ̃ and its gradient in σ (the clamped continuation), with σ̂ and Ψ's gradient and Hessian at σ̂."""
    c0, c1, c2 = max(s[0], STRETCH_FLOOR), max(s[1], STRETCH_FLOOR), max(s[2], STRETCH_FLOOR)
    psi, g0, g1, g2, h00, h11, h22, h01, h02, h12 = _derivatives(code[e], c0, c1, c2, params, e)
    d0, d1, d2 = s[0] - c0, s[1] - c1, s[2] - c2          # nonzero (negative) where clamped
    # a clamped direction continues with slope min(∂ᵢΨ, 0): its ∂ᵢΨ (and ∂ⱼᵢΨ) count only where negative
    e0 = min(g0, 0.0) if d0 < 0.0 else 0.0
    e1 = min(g1, 0.0) if d1 < 0.0 else 0.0
    e2 = min(g2, 0.0) if d2 < 0.0 else 0.0
    k = modulus[e]
    energy = psi + (e0 + 0.5 * k * d0) * d0 + (e1 + 0.5 * k * d1) * d1 + (e2 + 0.5 * k * d2) * d2
    w0, w1, w2 = (d0 if e0 < 0.0 else 0.0), (d1 if e1 < 0.0 else 0.0), (d2 if e2 < 0.0 else 0.0)
    p0 = (g0 + h01 * w1 + h02 * w2) if d0 == 0.0 else e0 + k * d0
    p1 = (g1 + h01 * w0 + h12 * w2) if d1 == 0.0 else e1 + k * d1
    p2 = (g2 + h02 * w0 + h12 * w1) if d2 == 0.0 else e2 + k * d2
    return energy, (p0, p1, p2), (c0, c1, c2), (g0, g1, g2), (h00, h11, h22, h01, h02, h12)


@njit(cache=True)
def _evaluate_tet(x, tets, gm, code, params, modulus, buf, energy, e, forces):
    u, s, v = signed_svd(_deformation(x, tets, gm, e))
    energy[e], p, _c, _g, _h = _principal(code, s, params, modulus, e)
    if forces:
        _scatter(buf, e, _usv(u, -p[0], -p[1], -p[2], v), mat3.load(gm, e))


@njit(parallel=True, cache=True)
def evaluate(x, tets, gm, code, params, modulus, buf, energy, forces):
    """Energy of every hyperelastic tet (code > 0) into energy (M,) and, if `forces`, its nodal forces into buf
    (M, 4, 3); corotated tets are left alone. modulus (M,): k, the continuation's curvature."""
    for e in prange(tets.shape[0]):
        if code[e] != 0:
            _evaluate_tet(x, tets, gm, code, params, modulus, buf, energy, e, forces)


@njit(inline="always", cache=True)
def _shear(gi, gj, si, sj, hii, hij):
    """(∂ᵢΨ − ∂ⱼΨ)/(σᵢ − σⱼ), its limit ∂ᵢᵢΨ − ∂ᵢⱼΨ at σᵢ = σⱼ."""
    if abs(si - sj) > 1e-6 * (si + sj):
        return (gi - gj) / (si - sj)
    return hii - hij


@njit(inline="always", cache=True)
def _projected(h00, h11, h22, h01, h02, h12, project):
    """The 3×3 principal-stretch Hessian with its negative eigenvalues set to 0 (if `project`)."""
    if not project or (h00 > 0.0 and h00 * h11 > h01 * h01
                       and mat3.det((h00, h01, h02, h01, h11, h12, h02, h12, h22)) > 0.0):   # already PD
        return h00, h11, h22, h01, h02, h12
    ev, q = sym_eigen(h00, h11, h22, h01, h02, h12)
    l0, l1, l2 = max(ev[0], 0.0), max(ev[1], 0.0), max(ev[2], 0.0)
    return (l0 * q[0] * q[0] + l1 * q[1] * q[1] + l2 * q[2] * q[2],
            l0 * q[3] * q[3] + l1 * q[4] * q[4] + l2 * q[5] * q[5],
            l0 * q[6] * q[6] + l1 * q[7] * q[7] + l2 * q[8] * q[8],
            l0 * q[0] * q[3] + l1 * q[1] * q[4] + l2 * q[2] * q[5],
            l0 * q[0] * q[6] + l1 * q[1] * q[7] + l2 * q[2] * q[8],
            l0 * q[3] * q[6] + l1 * q[4] * q[7] + l2 * q[5] * q[8])


@njit(inline="always", cache=True)
def _pair_modes(gi, gj, si, sj, hii, hij, project):
    """(λ_shear + λ_twist)/2 and (λ_shear − λ_twist)/2 of the pair i < j (each λ clamped at 0 if `project`)."""
    shear = _shear(gi, gj, si, sj, hii, hij)
    twist = (gi + gj) / (si + sj)
    if project:
        shear, twist = max(shear, 0.0), max(twist, 0.0)
    return 0.5 * (shear + twist), 0.5 * (shear - twist)


@njit(inline="always", cache=True)
def _column(y, a):
    """Vᵀgₐ from the 12-tuple y: Vᵀg₀, then Vᵀ(g₁ g₂ g₃) row-major."""
    if a == 0:
        return y[0], y[1], y[2]
    return y[2 + a], y[5 + a], y[8 + a]


@njit(cache=True)
def _stiffness_tet(x, tets, gm, code, params, modulus, ke, fbuf, energy, e, project):
    """Kₑ (12×12) into ke[e], the energy and nodal forces into energy[e] and fbuf[e]; returns whether a stretch was
    clamped. With yₐ = Vᵀgₐ, the block K_ab = U M_ab Uᵀ, M_ab = A ∘ (yₐ y_bᵀ) (A the projected principal-stretch
    block) plus, per pair i < j, (λ_s + λ_t)/2 (yₐⱼy_bⱼ eᵢeᵢᵀ + yₐᵢy_bᵢ eⱼeⱼᵀ) + (λ_s − λ_t)/2 (yₐⱼy_bᵢ eᵢeⱼᵀ +
    yₐᵢy_bⱼ eⱼeᵢᵀ) (λ_s, λ_t the pair's stretch-shear and twist eigenvalues)."""
    u, s, v = signed_svd(_deformation(x, tets, gm, e))
    energy[e], p, c, gr, h = _principal(code, s, params, modulus, e)
    g = mat3.load(gm, e)
    _scatter(fbuf, e, _usv(u, -p[0], -p[1], -p[2], v), g)
    k = modulus[e]
    h00 = k if s[0] < STRETCH_FLOOR else h[0]
    h11 = k if s[1] < STRETCH_FLOOR else h[1]
    h22 = k if s[2] < STRETCH_FLOOR else h[2]
    a00, a11, a22, a01, a02, a12 = _projected(h00, h11, h22, h[3], h[4], h[5], project)
    p01, m01 = _pair_modes(gr[0], gr[1], c[0], c[1], h00, h[3], project)
    p02, m02 = _pair_modes(gr[0], gr[2], c[0], c[2], h00, h[4], project)
    p12, m12 = _pair_modes(gr[1], gr[2], c[1], c[2], h11, h[5], project)
    y = mat3.tmul(v, (g[0], g[3], g[6], g[1], g[4], g[7], g[2], g[5], g[8]))   # column a − 1: Vᵀgₐ
    y = (-(y[0] + y[1] + y[2]), -(y[3] + y[4] + y[5]), -(y[6] + y[7] + y[8])) + y
    for a in range(4):
        ya0, ya1, ya2 = _column(y, a)
        for b in range(a, 4):
            yb0, yb1, yb2 = _column(y, b)
            m = (a00 * ya0 * yb0 + p01 * ya1 * yb1 + p02 * ya2 * yb2, a01 * ya0 * yb1 + m01 * ya1 * yb0,
                 a02 * ya0 * yb2 + m02 * ya2 * yb0,
                 a01 * ya1 * yb0 + m01 * ya0 * yb1, a11 * ya1 * yb1 + p01 * ya0 * yb0 + p12 * ya2 * yb2,
                 a12 * ya1 * yb2 + m12 * ya2 * yb1,
                 a02 * ya2 * yb0 + m02 * ya0 * yb2, a12 * ya2 * yb1 + m12 * ya1 * yb2,
                 a22 * ya2 * yb2 + p02 * ya0 * yb0 + p12 * ya1 * yb1)
            kab = mat3.mul(mat3.mul(u, m), (u[0], u[3], u[6], u[1], u[4], u[7], u[2], u[5], u[8]))
            for i in range(3):
                for j in range(3):
                    ke[e, 3 * a + i, 3 * b + j] = kab[3 * i + j]
                    ke[e, 3 * b + j, 3 * a + i] = kab[3 * i + j]
    return s[2] < STRETCH_FLOOR


@njit(parallel=True, cache=True)
def update_stiffness(x, tets, gm, code, params, modulus, ke, fbuf, energy, clamped, project):
    """ke[e] = Kₑ (PSD-projected if `project`), the energy and nodal forces at x into energy[e] and fbuf[e] (M, 4, 3),
    and clamped[e] = whether σ₂ was clamped, for every hyperelastic tet."""
    for e in prange(tets.shape[0]):
        if code[e] != 0:
            clamped[e] = _stiffness_tet(x, tets, gm, code, params, modulus, ke, fbuf, energy, e, project)


@njit(cache=True)
def _product_tet(p, tets, ke, s, buf, e):
    for a in range(4):
        for i in range(3):
            acc = 0.0
            for b in range(4):
                n = tets[e, b]
                for k in range(3):
                    acc += ke[e, 3 * a + i, 3 * b + k] * p[n, k]
            buf[e, a, i] = s * acc


@njit(parallel=True, cache=True)
def tet_products(p, tets, code, ke, scale, buf, e0, e1):
    """buf[e] = scaleₑ Kₑ pₑ for the hyperelastic tets e0 ≤ e < e1."""
    for e in prange(e0, e1):
        if code[e] != 0:
            _product_tet(p, tets, ke, scale[e], buf, e)


@njit(cache=True)
def _add_row(n, node_ptr, node_ent, blocks, row_ptr, diag, code, ke, scale, mass_term, data, clear):
    if clear:
        clear_row(n, row_ptr, diag, mass_term, data)
    for k in range(node_ptr[n], node_ptr[n + 1]):
        ent = node_ent[k]
        e, a = ent >> 2, ent & 3
        if code[e] == 0:
            continue
        s = scale[e]
        for b in range(4):
            blk = blocks[e, a, b]
            for i in range(3):
                for j in range(3):
                    data[blk, i, j] += s * ke[e, 3 * a + i, 3 * b + j]


@njit(parallel=True, cache=True)
def add_blocks(node_ptr, node_ent, blocks, row_ptr, diag, code, ke, scale, mass_term, data, clear):
    """Add Σ scaleₑ Kₑ of the hyperelastic tets into the block rows `data` (nnzb, 3, 3), one node row per thread;
    with `clear` the rows are first set to diag(mass_term) ⊗ I."""
    for n in prange(node_ptr.shape[0] - 1):
        _add_row(n, node_ptr, node_ent, blocks, row_ptr, diag, code, ke, scale, mass_term, data, clear)
