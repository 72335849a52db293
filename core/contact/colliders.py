"""Collider meshes (validated triangle meshes, static/moving/deforming) and the contact settings."""
import warnings

import numpy as np

from ..errors import InvalidInputError
from ..geometry.meshinput import edges_balanced, welded_triangles


class ContactSettings:
    """Contact knobs.

    max_correction_speed: the most a point that starts inside a collider or another body is pushed out, m/s
        (default 0.5): a body that starts deep inside comes out gradually, never launched.
    search_depth: how deep below a closed surface a point is still found and pushed out, m (0.01).
    body_thickness: contact distance kept between two soft bodies' render surfaces, m (0.001).
    margin: contacts whose predicted gap is below this are kept in the solve, m (1e-4).
    max_contacts_per_point: constraints kept per render vertex (the most violated), default 4.
    edge_contacts: also hold the bodies' render edges against the colliders' and the other bodies' sharp (feature)
        edges (default True); False: render vertices against triangles only, and a sharp edge (a step, a thin bar,
        a tilted cube's) cuts between a coarse body's vertices.
    rolling_resistance: η of core.contact.rolling: a contact patch brakes rolling with a torque of at most η times
        its radius times its normal force (default 0.1; 0: no rolling resistance).
    """

    def __init__(self, max_correction_speed=0.5, search_depth=0.01, body_thickness=0.001, margin=1e-4,
                 max_contacts_per_point=4, edge_contacts=True, rolling_resistance=0.1):
        self.max_correction_speed = float(max_correction_speed)
        self.search_depth = float(search_depth)
        self.body_thickness = float(body_thickness)
        self.margin = float(margin)
        self.max_contacts_per_point = int(max_contacts_per_point)
        self.edge_contacts = bool(edge_contacts)
        self.rolling_resistance = float(rolling_resistance)
        numbers = (self.max_correction_speed, self.search_depth, self.body_thickness, self.margin,
                   self.rolling_resistance)
        if self.max_contacts_per_point < 1 or not all(np.isfinite(x) and x >= 0 for x in numbers):
            raise InvalidInputError(f"invalid contact settings: {vars(self)}")


def closed_and_oriented(vertices, triangles):
    """True when, after welding coincident vertices, every edge is used once in each direction
    (a closed, consistently oriented mesh); degenerate triangles are ignored."""
    return len(triangles) > 0 and edges_balanced(welded_triangles(vertices, triangles))


def enclosed_volume(vertices, triangles):
    """Signed volume enclosed by a closed triangle mesh (positive when its normals point outward)."""
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->", a, np.cross(b, c)) / 6.0)


def check_vertices(vertices, expected, what):
    """Float (n,3) copy of vertices, or InvalidInputError naming `what` on a wrong shape or NaN/inf."""
    v = np.array(vertices, dtype=np.float64, copy=True)
    if v.ndim != 2 or v.shape[1] != 3 or (expected is not None and len(v) != expected):
        want = f"({expected}, 3)" if expected is not None else "(n, 3)"
        raise InvalidInputError(f"{what}: vertices must have shape {want}, got {v.shape}")
    if not np.all(np.isfinite(v)):
        raise InvalidInputError(f"{what}: vertices contain NaN or infinite coordinates")
    return v


class Collider:
    """A triangle mesh bodies collide with. Closed, consistently oriented meshes are one-sided: a point found
    inside is pushed out, but for the bodies that start inside one (`holds`, found before its first step,
    ContactStage._free_insides), whose points found outside are pushed in; open meshes (a plane) are two-sided with
    thickness `thickness`."""

    def __init__(self, index, vertices, triangles, friction=0.5, thickness=0.0, name=None):
        self.index = index
        self.name = name if name is not None else f"collider {index}"
        what = f"collider '{self.name}'"
        self.start = check_vertices(vertices, None, what)
        tris = np.asarray(triangles)
        if tris.size == 0:
            tris = np.zeros((0, 3), np.int64)
        if tris.ndim != 2 or tris.shape[1] != 3 or not np.issubdtype(tris.dtype, np.integer):
            raise InvalidInputError(f"{what}: triangles must be integer indices of shape (m, 3), got {tris.shape}")
        tris = np.array(tris, dtype=np.int64, copy=True)
        if len(tris) and (tris.min() < 0 or tris.max() >= len(self.start)):
            raise InvalidInputError(f"{what}: triangles index vertices out of range [0, {len(self.start) - 1}]")
        self.set_friction(friction)
        if not (np.isfinite(thickness) and thickness >= 0):
            raise InvalidInputError(f"{what}: thickness must be a finite number >= 0, got {thickness!r}")
        if len(tris) == 0:
            warnings.warn(f"{what} has zero triangles and is ignored", stacklevel=3)
        self.closed = closed_and_oriented(self.start, tris)
        if self.closed and enclosed_volume(self.start, tris) < 0:
            tris = tris[:, [0, 2, 1]]  # inward-facing closed mesh: flip so normals point out
        self.triangles = tris
        self.one_sided = self.closed
        self.holds = frozenset()             # the bodies (indices) that started inside it (closed)
        self.sides_known = not self.closed   # whether holds was decided from where the bodies start
        self.thickness = float(thickness)
        self.end = self.start    # the same array until moved: a collider at rest keeps the caches keyed by it
        self.active = True       # switched off, it is left out of contact (set_active)

    def set_friction(self, friction):
        """The Coulomb μ of its contacts; InvalidInputError naming the collider unless a finite number >= 0."""
        if not (np.isfinite(friction) and friction >= 0):
            raise InvalidInputError(f"collider '{self.name}': friction must be a finite number >= 0, got {friction!r}")
        self.friction = float(friction)

    def move(self, vertices):
        """Positions at the end of the next step (the motion within the step is linear)."""
        self.end = check_vertices(vertices, len(self.start), f"collider '{self.name}'")

    @property
    def moving(self):
        """Whether it moves over the step (its end positions differ from its start)."""
        return self.end is not self.start and not np.array_equal(self.start, self.end)

    def __repr__(self):
        kind = "closed" if self.closed else "open"
        return f"Collider({self.name!r}, {len(self.start)} vertices, {len(self.triangles)} triangles, {kind})"
