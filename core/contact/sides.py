"""Which side of a two-sided (open) surface each bookkeeping point is held on: side hints and initial sides."""
import numpy as np

from ..jit import njit


class SideHints:
    """Per bookkeeping point (render points, then render edges): hint (n,3), the normal of the side of a two-sided
    surface it is held on (zeros: none; the detection keeps it there), and the points whose hint is set (hinted).
    Per render point: initial (P,3), the side it takes of an open surface that cuts through its body at the start
    (zeros: none, or found near the surface on it), and whether any is still waiting (pending)."""

    def __init__(self, num_points, num_render_points):
        self.hint = np.zeros((num_points, 3))
        self.hinted = np.zeros(0, np.int64)
        self.initial = np.zeros((num_render_points, 3))
        self.pending = False

    def below_open(self, settings):
        """How deep below an open surface points are found: twice the slop (as deep as the correction leaves
        points the penalty rows hold); search_depth while points of an initial overlap wait for their side (see
        ContactStage._choose_sides_of_initial_overlap)."""
        return settings.search_depth if self.pending else 2.0 * settings.slop

    def take_initial(self, point, side):
        """The render points `point` take the side `side` (their bulk's) of the open surfaces they start in."""
        self.initial[point] = side
        self.hint[point] = side
        self.hinted = np.union1d(self.hinted, point)
        self.pending = bool(len(point))

    def keep_pressed(self, point, normal):
        """The points `point` of normal rows with `normal` keep that side for the step, unless they have one."""
        fresh = ~np.any(self.hint[point] != 0.0, axis=1)
        self.hint[point[fresh]] = normal[fresh]
        self.hinted = np.union1d(self.hinted, point[fresh])

    def after_correction(self, ids, pen_point, pen_normal, pen_tangent, point, normal, gap, slop):
        """After the correction (its rows: point, normal, gap; ids: their points and the held penalty rows'): the
        hints are the rows' normals (see set_side_hints); a render point of an initial overlap found near the
        surface (gap ≥ −2 slop) on its chosen side goes on by its contacts, one not yet found keeps its side."""
        set_side_hints(self.hint, self.hinted, pen_point, pen_normal, pen_tangent, point, normal)
        self.hinted = ids
        if self.pending:   # (render points; edges take no initial side)
            npts = len(self.initial)
            self.initial[point[(gap >= -2.0 * slop) & (point < npts)]] = 0.0
            waiting = np.any(self.initial != 0.0, axis=1) & ~np.any(self.hint[:npts] != 0.0, axis=1)
            self.hint[:npts][waiting] = self.initial[waiting]
            self.hinted = np.union1d(self.hinted, np.flatnonzero(waiting))
            self.pending = bool(self.initial.any())


@njit(cache=True)
def set_side_hints(side_hint, hinted, pen_point, pen_normal, pen_tangent, point, normal):
    """Clear the side hints of the points `hinted`; set those of the normal penalty rows' points to the rows'
    normals (a point held by its penalty rows alone keeps its side of a two-sided surface), then those of the
    correction rows' points to theirs (a point's last row wins)."""
    for p in hinted:
        side_hint[p] = 0.0
    for r in range(pen_point.shape[0]):
        if not pen_tangent[r]:
            side_hint[pen_point[r]] = pen_normal[r]
    for c in range(point.shape[0]):
        side_hint[point[c]] = normal[c]
