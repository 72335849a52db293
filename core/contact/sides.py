"""Which side of a two-sided (open) surface each bookkeeping point is held on: side hints and initial sides."""
import numpy as np

from ..carry import take
from ..errors import InvalidInputError
from ..jit import njit
from .mlcp import GIVE

# m: how far below an open (two-sided) surface a point held on its side is still found, and how near it a point of an
# initial overlap counts as come out on its side: twice the most a row gives under its force (a held point ends
# within GIVE of its surface)
OPEN_DEPTH = 2.0 * GIVE


def body_source(body):
    """The surface id of bodies (collider c's is c): −2 − body, so −1 is none and ids stay put as colliders are
    added."""
    return -2 - np.asarray(body, np.int64)


def row_sources(collider, other):
    """Per contact row: the surface id of what it touches (a collider, else the other body)."""
    return np.where(collider >= 0, collider, body_source(other))


class SideHints:
    """Per bookkeeping point (render points, then render edges): hint (n,3), the normal of the side of a two-sided
    surface it is held on (zeros: none; the detection keeps it there), source (n,), that surface's id (collider
    c: c, body b: body_source(b); a hint tells only of its own surface: a cube's corner resting on a floor plane and
    touching another cube took that cube's normal, level with the floor, as its side of the floor, and was pushed
    through it), and the points whose hint is set (hinted).
    Per render point: initial (P,3), the side it takes of an open surface that cuts through its body at the start
    (zeros: none, or found near the surface on it), that surface (initial_source), and whether any is still
    waiting (pending)."""

    def __init__(self, num_points, num_render_points):
        self.hint = np.zeros((num_points, 3))
        self.source = np.full(num_points, -1, np.int64)
        self.hinted = np.zeros(0, np.int64)
        self.initial = np.zeros((num_render_points, 3))
        self.initial_source = np.full(num_render_points, -1, np.int64)
        self.initial_depth = 0.0
        self.pending = False

    def carried(self, prefix):
        """Its arrays, named prefix + field (see World.carried); hints and initial sides only where they are set
        (points, initial_points): most points have none."""
        points = np.flatnonzero((self.source != -1) | np.any(self.hint.view(np.int64) != 0, axis=1))
        initial = np.flatnonzero((self.initial_source != -1) | np.any(self.initial.view(np.int64) != 0, axis=1))
        return {prefix + "points": points, prefix + "hint": self.hint[points], prefix + "source": self.source[points],
                prefix + "hinted": self.hinted.copy(), prefix + "initial_points": initial,
                prefix + "initial": self.initial[initial], prefix + "initial_source": self.initial_source[initial],
                prefix + "initial_depth": np.array(self.initial_depth), prefix + "pending": np.array(self.pending)}

    def restorer(self, carried, prefix):
        """A function that takes back what carried(prefix) gave (checked now: InvalidInputError if it does not fit)."""
        n, p = len(self.hint), len(self.initial)
        points = _indices(carried, prefix + "points", n)
        hint, source = np.zeros((n, 3)), np.full(n, -1, np.int64)
        hint[points] = take(carried, prefix + "hint", (len(points), 3), np.float64)
        source[points] = take(carried, prefix + "source", (len(points),), np.int64)
        hinted = _indices(carried, prefix + "hinted", n)
        at = _indices(carried, prefix + "initial_points", p)
        initial, initial_source = np.zeros((p, 3)), np.full(p, -1, np.int64)
        initial[at] = take(carried, prefix + "initial", (len(at), 3), np.float64)
        initial_source[at] = take(carried, prefix + "initial_source", (len(at),), np.int64)
        depth = float(take(carried, prefix + "initial_depth", (), np.float64))
        pending = bool(take(carried, prefix + "pending", (), np.bool_))

        def restore():
            self.hint, self.source, self.hinted = hint, source, hinted
            self.initial, self.initial_source, self.initial_depth, self.pending = initial, initial_source, depth, pending
        return restore

    def below_open(self, settings):
        """How deep below an open surface points are found (and their side hints hold): OPEN_DEPTH; while points of
        an initial overlap wait for their side (see ContactStage._choose_sides_of_initial_overlap), as deep as the
        deepest of them started, and at least search_depth."""
        return max(settings.search_depth, self.initial_depth) if self.pending else OPEN_DEPTH

    def take_initial(self, point, side, source, depth):
        """The render points `point` take the side `side` (their bulk's) of the open surfaces `source` they start
        in, the deepest `depth` (m) beyond them."""
        self.initial_depth = float(depth)
        self.initial[point] = side
        self.initial_source[point] = source
        self.hint[point] = side
        self.source[point] = source
        self.hinted = np.union1d(self.hinted, point)
        self.pending = bool(len(point))

    def after_solve(self, ids, point, normal, source, gap, two_sided):
        """After the step's solve (its rows: point, normal, source, gap; ids: their points): the hints are the rows'
        normals (see set_side_hints; two_sided (colliders' flags, bodies' flags)); a render point of an initial overlap
        found near the surface (gap ≥ −OPEN_DEPTH) on its chosen side goes on by its contacts, one not yet found keeps
        its side."""
        set_side_hints(self.hint, self.source, self.hinted, point, normal, source, *two_sided)
        self.hinted = ids
        if self.pending:   # (render points; edges take no initial side)
            npts = len(self.initial)
            self.initial[point[(gap >= -OPEN_DEPTH) & (point < npts)]] = 0.0
            waiting = np.any(self.initial != 0.0, axis=1) & ~np.any(self.hint[:npts] != 0.0, axis=1)
            self.hint[:npts][waiting] = self.initial[waiting]
            self.source[:npts][waiting] = self.initial_source[waiting]
            self.hinted = np.union1d(self.hinted, np.flatnonzero(waiting))
            self.pending = bool(self.initial.any())


def _indices(carried, name, n):
    """carried[name]: point indices below n (InvalidInputError otherwise)."""
    index = take(carried, name, (None,), np.int64)
    if np.any((index < 0) | (index >= n)):
        raise InvalidInputError(f"the carried '{name}' names points this world does not have")
    return index


@njit(cache=True)
def set_side_hints(side_hint, hint_source, hinted, point, normal, source, collider_two_sided, body_two_sided):
    """Clear the side hints of the points `hinted`, then set those of the rows' points to the rows' normals and
    surfaces: a point's last row wins, but a one-sided surface's (which no render point's detection reads) never
    replaces a two-sided one's."""
    for p in hinted:
        side_hint[p] = 0.0
        hint_source[p] = -1
    for c in range(point.shape[0]):
        _set_hint(side_hint, hint_source, point[c], normal[c], source[c], collider_two_sided, body_two_sided)


@njit(cache=True)
def _two_sided(source, collider_two_sided, body_two_sided):
    return collider_two_sided[source] if source >= 0 else body_two_sided[-2 - source]


@njit(cache=True)
def _set_hint(side_hint, hint_source, p, normal, source, collider_two_sided, body_two_sided):
    held = hint_source[p]
    if (held != -1 and _two_sided(held, collider_two_sided, body_two_sided)
            and not _two_sided(source, collider_two_sided, body_two_sided)):
        return
    side_hint[p] = normal
    hint_source[p] = source
