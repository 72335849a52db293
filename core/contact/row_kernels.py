"""The contact rows' numba kernels: their frames, J dx (project), Jᵀ f (spread), diag(J A_d⁻¹ Jᵀ), A_d⁻¹ v, the rows
with curvature (curved_rows) and their curvatures in world coordinates (world_curvatures), Jᵀ W J's blocks
(curvature_blocks) and their pattern (stencil_pairs), their sum folded into A's diagonal blocks (fold_diagonal) and
their product with a vector (curvature_product)."""
import math

import numpy as np

from ..fem import mat3
from ..jit import njit, prange


@njit(cache=True)
def frames(normal):
    """(R,3,3): per row its unit normal and two unit tangents orthogonal to it and to each other."""
    out = np.empty((normal.shape[0], 3, 3))
    for r in range(normal.shape[0]):
        nx, ny, nz = normal[r, 0], normal[r, 1], normal[r, 2]
        if abs(nx) < 0.57:
            ax, ay, az = 1.0, 0.0, 0.0
        elif abs(ny) < 0.57:
            ax, ay, az = 0.0, 1.0, 0.0
        else:
            ax, ay, az = 0.0, 0.0, 1.0
        tx, ty, tz = ny * az - nz * ay, nz * ax - nx * az, nx * ay - ny * ax
        tl = math.sqrt(tx * tx + ty * ty + tz * tz)
        tx, ty, tz = tx / tl, ty / tl, tz / tl
        out[r, 0, 0], out[r, 0, 1], out[r, 0, 2] = nx, ny, nz
        out[r, 1, 0], out[r, 1, 1], out[r, 1, 2] = tx, ty, tz
        out[r, 2, 0], out[r, 2, 1], out[r, 2, 2] = ny * tz - nz * ty, nz * tx - nx * tz, nx * ty - ny * tx
    return out


@njit(cache=True, parallel=True)
def project(node, coef, frame, dx, out):
    """out (R,3) = J dx: each row's relative displacement in its frame."""
    for r in prange(node.shape[0]):
        s0 = s1 = s2 = 0.0
        for s in range(node.shape[1]):
            j = node[r, s]
            if j < 0:
                continue
            a = coef[r, s]
            px, py, pz = a * dx[j, 0], a * dx[j, 1], a * dx[j, 2]
            s0 += frame[r, 0, 0] * px + frame[r, 0, 1] * py + frame[r, 0, 2] * pz
            s1 += frame[r, 1, 0] * px + frame[r, 1, 1] * py + frame[r, 1, 2] * pz
            s2 += frame[r, 2, 0] * px + frame[r, 2, 1] * py + frame[r, 2, 2] * pz
        out[r, 0], out[r, 1], out[r, 2] = s0, s1, s2


@njit(cache=True)
def spread(node, coef, frame, f, free, out):
    """out[j] += free_j Jᵀ f: the rows' forces f (R,3, frame components) on their stencils' nodes."""
    for r in range(node.shape[0]):
        f0, f1, f2 = f[r, 0], f[r, 1], f[r, 2]
        if f0 == 0.0 and f1 == 0.0 and f2 == 0.0:
            continue
        gx = frame[r, 0, 0] * f0 + frame[r, 1, 0] * f1 + frame[r, 2, 0] * f2
        gy = frame[r, 0, 1] * f0 + frame[r, 1, 1] * f1 + frame[r, 2, 1] * f2
        gz = frame[r, 0, 2] * f0 + frame[r, 1, 2] * f1 + frame[r, 2, 2] * f2
        for s in range(node.shape[1]):
            j = node[r, s]
            if j < 0:
                continue
            a = coef[r, s] * free[j]
            out[j, 0] += a * gx
            out[j, 1] += a * gy
            out[j, 2] += a * gz


@njit(cache=True)
def schur_diagonal(node, coef, frame, pinv, free, out):
    """out (R,3) = diag(J A_d⁻¹ Jᵀ) per row and frame direction (A_d⁻¹: the blocks pinv, zero on held nodes),
    the stencil's repeated nodes summed first."""
    for r in range(node.shape[0]):
        for k in range(3):
            acc = 0.0
            for s in range(node.shape[1]):
                j = node[r, s]
                if j < 0 or free[j] == 0.0:
                    continue
                w = 0.0
                for s2 in range(node.shape[1]):
                    if node[r, s2] == j:
                        if s2 < s:
                            w = math.nan   # counted at its first appearance
                            break
                        w += coef[r, s2]
                if w != w:
                    continue
                dx, dy, dz = frame[r, k, 0], frame[r, k, 1], frame[r, k, 2]
                q = (dx * (pinv[j, 0, 0] * dx + pinv[j, 0, 1] * dy + pinv[j, 0, 2] * dz)
                     + dy * (pinv[j, 1, 0] * dx + pinv[j, 1, 1] * dy + pinv[j, 1, 2] * dz)
                     + dz * (pinv[j, 2, 0] * dx + pinv[j, 2, 1] * dy + pinv[j, 2, 2] * dz))
                acc += w * w * q
            out[r, k] = acc


@njit(cache=True, parallel=True)
def block_apply(pinv, v, free, out):
    """out = S A_d⁻¹ v (blocks pinv, S zeroing held nodes)."""
    for n in prange(v.shape[0]):
        f = free[n]
        for i in range(3):
            out[n, i] = f * (pinv[n, i, 0] * v[n, 0] + pinv[n, i, 1] * v[n, 1] + pinv[n, i, 2] * v[n, 2])


@njit(cache=True)
def curved_rows(weight):
    """The rows (ascending) whose curvature W (R,3,3) is not zero: the rows that act in H = A + Jᵀ W J."""
    out = np.empty(weight.shape[0], np.int64)
    n = 0
    for r in range(weight.shape[0]):
        for k in range(9):
            if weight[r, k // 3, k % 3] != 0.0:
                out[n] = r
                n += 1
                break
    return out[:n]


@njit(cache=True)
def world_curvatures(frame, weight, rows, out):
    """out[r] = Fᵀ W F (world coordinates) for the given rows r (F: the row's frame, W: its curvature in it)."""
    for q in range(rows.shape[0]):
        r = rows[q]
        for a in range(3):
            for b in range(3):
                acc = 0.0
                for p in range(3):
                    for c in range(3):
                        acc += frame[r, p, a] * weight[r, p, c] * frame[r, c, b]
                out[r, a, b] = acc


@njit(cache=True)
def stencil_pairs(node, index, n, row_ptr, col):
    """The keys j n + i of the pairs (i, j) of region nodes (index: node -> region node, −1 outside) that a row's
    stencil names and A's block pattern (row_ptr, col: full rows, sorted; empty: none) lacks, repeats included: a
    render point's stencil is its tet's nodes, which A couples already, so a collider's rows add none."""
    count = 0
    for r in range(node.shape[0]):
        inside = 0
        for s in range(node.shape[1]):
            if node[r, s] >= 0 and index[node[r, s]] >= 0:
                inside += 1
        count += inside * inside
    keys = np.empty(count, np.int64)
    k = 0
    for r in range(node.shape[0]):
        for s in range(node.shape[1]):
            a = node[r, s]
            if a < 0 or index[a] < 0:
                continue
            for t in range(node.shape[1]):
                b = node[r, t]
                if b < 0 or index[b] < 0:
                    continue
                if row_ptr.shape[0]:
                    lo, hi = row_ptr[a], row_ptr[a + 1]
                    at = lo + np.searchsorted(col[lo:hi], b)
                    if at < hi and col[at] == b:
                        continue
                keys[k] = index[b] * n + index[a]
                k += 1
    return keys[:k]


@njit(cache=True)
def curvature_blocks(node, coef, frame, weight, rows, index, keys, n, blocks):
    """blocks += Jᵀ W J over the given rows (W (R,3,3): each row's curvature in its frame) on a region's nodes
    (index: node -> region node, −1 outside): the block of region nodes (i, j) is blocks[k], keys[k] = j n + i
    (sorted)."""
    width = node.shape[1]
    blk = np.empty((3, 3))
    for q in range(rows.shape[0]):
        r = rows[q]
        for a in range(3):   # Fᵀ W F
            for b in range(3):
                acc = 0.0
                for p in range(3):
                    for c in range(3):
                        acc += frame[r, p, a] * weight[r, p, c] * frame[r, c, b]
                blk[a, b] = acc
        for s in range(width):
            if node[r, s] < 0 or index[node[r, s]] < 0:
                continue
            i = index[node[r, s]]
            for t in range(width):
                if node[r, t] < 0 or index[node[r, t]] < 0:
                    continue
                k = np.searchsorted(keys, index[node[r, t]] * n + i)
                c = coef[r, s] * coef[r, t]
                for a in range(3):
                    for b in range(3):
                        blocks[k, a, b] += c * blk[a, b]


@njit(cache=True)
def fold_diagonal(node, coef, k, pinv):
    """Add Σ_b coef_bj² K_b to the 3×3 diagonal block of each node j the blocks touch (coef_bj: the sum of block b's
    coefficients on node j), given (and returning in pinv, in place) the inverses of those blocks (zero where
    singular)."""
    slot = np.full(pinv.shape[0], -1, np.int64)
    touched = np.empty(node.size, np.int64)
    blocks = np.empty((node.size, 3, 3))
    m = 0
    for b in range(node.shape[0]):
        for s in range(node.shape[1]):
            j = node[b, s]
            if j < 0:
                continue
            if slot[j] < 0:
                slot[j] = m
                touched[m] = j
                mat3.store(blocks, m, mat3.inverse(mat3.load(pinv, j)))
                m += 1
            a = 0.0   # the node's coefficients summed (a self contact's stencil may name a node twice)
            first = True
            for s2 in range(node.shape[1]):
                if node[b, s2] == j:
                    if s2 < s:
                        first = False
                        break
                    a += coef[b, s2]
            if not first:
                continue
            a = a * a
            for q in range(3):
                for t in range(3):
                    blocks[slot[j], q, t] += a * k[b, q, t]
    for i in range(m):
        mat3.store(pinv, touched[i], mat3.inverse(mat3.load(blocks, i)))


@njit(cache=True)
def curvature_product(node, coef, k, blocks, p, free, out):
    """out += S Σ_b J_bᵀ K_b J_b p over the given blocks (S zeroes constrained nodes); returns p·(the addition)."""
    acc = 0.0
    for i in range(blocks.shape[0]):
        b = blocks[i]
        u0 = u1 = u2 = 0.0     # J p
        f0 = f1 = f2 = 0.0     # J S p
        for s in range(node.shape[1]):
            j = node[b, s]
            if j >= 0:
                a = coef[b, s]
                u0 += a * p[j, 0]
                u1 += a * p[j, 1]
                u2 += a * p[j, 2]
                a *= free[j]
                f0 += a * p[j, 0]
                f1 += a * p[j, 1]
                f2 += a * p[j, 2]
        w0 = k[b, 0, 0] * u0 + k[b, 0, 1] * u1 + k[b, 0, 2] * u2
        w1 = k[b, 1, 0] * u0 + k[b, 1, 1] * u1 + k[b, 1, 2] * u2
        w2 = k[b, 2, 0] * u0 + k[b, 2, 1] * u1 + k[b, 2, 2] * u2
        acc += f0 * w0 + f1 * w1 + f2 * w2
        for s in range(node.shape[1]):
            j = node[b, s]
            if j >= 0:
                a = free[j] * coef[b, s]
                out[j, 0] += a * w0
                out[j, 1] += a * w1
                out[j, 2] += a * w2
    return acc
