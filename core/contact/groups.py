"""The contact solve by groups: bodies that no contact row connects solved as separate problems, each to its own
tolerance, so that a resting group stops costing Newton steps while another one moves (core.contact.mlcp)."""
import numpy as np

from ..components import components
from ..fem.block_sparse import product, row_product, upper_product
from ..jit import get_num_threads, njit, prange
from .mlcp import Solve, solve_contact


def body_groups(rows, free, node_ranges):
    """[(bodies (ascending), row indices (ascending))] of the groups of bodies with free nodes that the rows' free
    stencil nodes join (a held node moves no body: a sleeping body joins no one); a row with no free node goes with
    the first group. [] when there is no body with a free node."""
    count = len(node_ranges)
    starts = np.array([n0 for n0, _ in node_ranges], np.int64)
    node = rows.node
    body = np.searchsorted(starts, node, side="right") - 1
    moving = (node >= 0) & (free[np.maximum(node, 0)] > 0.0)
    body = np.where(moving, body, -1)
    first = body.max(axis=1, initial=-1)
    pairs = np.stack(np.broadcast_arrays(first[:, None], body), axis=2)[moving & (body != first[:, None])]
    label = components(count, pairs)
    awake = np.array([n1 > n0 and free[n0:n1].any() for n0, n1 in node_ranges], bool)
    groups = []
    for lab in np.unique(label[awake]):
        bodies = np.flatnonzero((label == lab) & awake)
        groups.append((bodies, np.flatnonzero(np.isin(first, bodies))))
    if groups and np.any(first < 0):
        bodies, at = groups[0]
        groups[0] = bodies, np.union1d(at, np.flatnonzero(first < 0))
    return groups


def solve_by_groups(system, b, dx, free, rows, pinv, tolerance, load, gap_tolerance, max_iterations, base=None,
                    multigrid=None):
    """solve_contact (its arguments; multigrid(blocks, hinv, bodies) -> vcycle) on each group of body_groups on its own:
    its bodies' nodes free, the others held, its rows alone, its products over its bodies alone. One group: the one
    solve as before. Returns a Solve: iterations and Newton steps summed, converged if every group's was."""
    groups = body_groups(rows, free, system.node_ranges) if len(system.node_ranges) > 1 else []
    if len(groups) <= 1:
        bodies = groups[0][0] if groups else np.arange(len(system.node_ranges))
        return solve_contact(system, b, dx, free, rows, pinv, tolerance, load, gap_tolerance, max_iterations, base,
                             None if multigrid is None else _on(multigrid, bodies))
    outs = []
    compact = multigrid is None and hasattr(system, "pattern")
    starts = np.array([n0 for n0, _ in system.node_ranges], np.int64)
    for bodies, at in groups:
        mask = np.zeros(len(free))
        for body in bodies:
            n0, n1 = system.node_ranges[body]
            mask[n0:n1] = 1.0
        part = rows.taken(at)
        if compact:
            # the group's bodies and those its rows reach (held) on their own arrays: each iteration's vector work
            # and products then cost the group's size, not the world's
            stencil = part.node[part.node >= 0]
            reached = np.union1d(bodies, np.searchsorted(starts, stencil, side="right") - 1)
            sub = _Compact(system, reached)
            nodes = sub.nodes
            local = np.full(len(free), -1, np.int64)
            local[nodes] = np.arange(len(nodes))
            part.node = np.where(part.node >= 0, local[np.maximum(part.node, 0)], -1)
            d = dx[nodes]
            outs.append(solve_contact(sub, b[nodes], d, (free * mask)[nodes], part, pinv[nodes], tolerance,
                                      load[nodes], gap_tolerance, max_iterations,
                                      None if base is None else base[nodes]))
            dx[nodes] = d
        else:
            outs.append(solve_contact(_Bodies(system, bodies), b, dx, free * mask, part, pinv, tolerance, load,
                                      gap_tolerance, max_iterations, base, None if multigrid is None
                                      else _on(multigrid, bodies)))
        rows.put(at, part)
    return Solve(sum(o.iterations for o in outs), sum(o.restarts for o in outs), all(o.converged for o in outs),
                 max(o.residual for o in outs), max(o.constraint_error for o in outs))


def _on(multigrid, bodies):
    """The V-cycle builder of these bodies alone."""
    return lambda blocks, hinv: multigrid(blocks, hinv, bodies)


class _Compact:
    """An assembled system's bodies `bodies` (ascending) on arrays of their own: nodes (their nodes in the system,
    ascending), pattern (row_ptr, col, diag) and data, node_ranges, mass_term, and products (BlockSparseSystem's)."""

    def __init__(self, system, bodies):
        pat = system.pattern
        ranges = [system.node_ranges[i] for i in bodies]
        self.nodes = np.concatenate([np.arange(n0, n1) for n0, n1 in ranges])
        ptr, col, diag, data, self.node_ranges = [np.zeros(1, pat.row_ptr.dtype)], [], [], [], []
        at = entries = 0
        for n0, n1 in ranges:
            e0, e1 = pat.row_ptr[n0], pat.row_ptr[n1]
            ptr.append(pat.row_ptr[n0 + 1:n1 + 1] - e0 + entries)
            col.append(pat.col[e0:e1] - n0 + at)
            diag.append(pat.diag[n0:n1] - e0 + entries)
            data.append(system.data[e0:e1])
            self.node_ranges.append((at, at + n1 - n0))
            at, entries = at + n1 - n0, entries + e1 - e0
        self.pattern = _Pattern(np.concatenate(ptr), np.concatenate(col), np.concatenate(diag))
        self.data = np.concatenate(data)
        self.mass_term = None if system.mass_term is None else system.mass_term[self.nodes]

    def apply(self, p, out, free, body=None):
        """out = S A p on the rows of body `body` (None: all); returns p·out over them."""
        n0, n1 = (0, len(self.nodes)) if body is None else self.node_ranges[body]
        pat = self.pattern
        return product(pat.row_ptr, pat.col, pat.diag, self.data, p, free, out, n0, n1, get_num_threads() == 1)


class _Pattern:
    def __init__(self, row_ptr, col, diag):
        self.row_ptr, self.col, self.diag = row_ptr, col, diag


class _Bodies:
    """The step's linear system on some of its bodies: products over their rows alone (the others' rows of `out` left
    as they were; an assembled system's in one kernel call); its other attributes the system's."""

    def __init__(self, system, bodies):
        self._system, self._bodies = system, [int(i) for i in bodies]
        self._ranges = np.array([system.node_ranges[i] for i in self._bodies], np.int64).reshape(-1, 2)
        self._nodes = np.concatenate([np.arange(n0, n1) for n0, n1 in self._ranges] + [np.zeros(0, np.int64)])

    def __getattr__(self, name):
        return getattr(self._system, name)

    def apply(self, p, out, free, body=None):
        system = self._system
        if body is not None:
            return system.apply(p, out, free, body)
        if not hasattr(system, "pattern"):
            return sum(system.apply(p, out, free, i) for i in self._bodies)
        pat = system.pattern
        return _products(pat.row_ptr, pat.col, pat.diag, system.data, p, free, out, self._ranges, self._nodes,
                         get_num_threads() == 1)


@njit(parallel=True, cache=True)
def _products(row_ptr, col, diag, data, p, free, out, ranges, nodes, serial):
    """out = S A p on the bodies' node ranges (B,2), whose rows are `nodes`; returns p·out over them. serial (the
    kernels run on one thread): from the upper blocks (block_sparse.upper_product), else row by row (as product)."""
    acc = 0.0
    if serial:
        for b in range(ranges.shape[0]):
            acc += upper_product(row_ptr, col, diag, data, p, free, out, ranges[b, 0], ranges[b, 1])
        return acc
    for i in prange(len(nodes)):
        acc += row_product(row_ptr, col, data, p, free, out, nodes[i])
    return acc

