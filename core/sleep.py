"""Coming to rest: settling and sleeping. A body resting on something that moves slower than SETTLE_SPEED settles:
its motion other than sliding or rolling on its support (its bob along the support's normal, its sway and wobble)
is damped at SETTLE_DAMPING (the defaults of PhysX's FEM soft bodies' settlingThreshold and sleepDamping, which damp
every direction). An island of touching bodies that has come to rest sleeps: it is frozen (no drift, and no cost
when the whole world sleeps) until something moves near it. Islands sleep and wake as one, as in rigid-body engines:
a body resting on another never sleeps alone, so neither sees the other turn into an immovable obstacle."""
import numpy as np

from .carry import take
from .components import components
from .errors import InvalidInputError
from .rigid_motion import rigid_frame

SLEEP_SPEED = 0.005   # m/s: an island whose fastest render point stays below this ...
SLEEP_TIME = 0.5      # s: ... for this long falls asleep
# A body touching something (another body, or colliders none of which moves), whose render points all move slower
# than SETTLE_SPEED, has its nodes' velocity less its sliding motion (sliding_motion) damped at SETTLE_DAMPING (1/s,
# implicitly: by 1 / (1 + SETTLE_DAMPING dt) after each step). The tail of a bob on its contact patch or of a sway,
# which stiffness damping (β) barely damps at low frequencies, then dies out in tenths of a second instead of
# seconds. Not its sliding: damped in every direction, a cube starting to slide down a 30° slope at μ = 0.5
# (0.66 m/s²) crept at a steady speed. Not only the normal either: damped along the normal alone, the Add menu's 2 m
# cylinder resting on its flat face kept swaying at its top for seconds. Faster motion, and bodies in flight or
# pinned in the air, keep their own damping.
SETTLE_SPEED = 0.1    # m/s
SETTLE_DAMPING = 10.0  # 1/s


class Sleep:
    """Per body: asleep or not, settling or not, how long it has been quiet, its island when it fell asleep, and
    where it was frozen (to notice writes)."""

    def __init__(self):
        self.asleep = np.zeros(0, np.bool_)
        self.settling = np.zeros(0, np.bool_)
        self.quiet = np.zeros(0)
        self.island = np.zeros(0, np.int64)   # the lowest body index of the island it fell asleep with
        self.frozen = {}          # body index -> its node positions when it fell asleep

    def add_body(self):
        self.asleep = np.append(self.asleep, False)
        self.settling = np.append(self.settling, False)
        self.quiet = np.append(self.quiet, 0.0)
        self.island = np.append(self.island, len(self.island))

    def carried(self):
        """What the next step reads (names "sleep.*"): per body asleep, quiet time and island, and the sleeping
        bodies' frozen node positions, one body after another. (`settling` is found anew after each step.)"""
        frozen = [self.frozen[int(i)] for i in np.flatnonzero(self.asleep)]
        return {"sleep.asleep": self.asleep.copy(), "sleep.quiet": self.quiet.copy(), "sleep.island": self.island.copy(),
                "sleep.frozen": np.concatenate(frozen + [np.zeros((0, 3))])}

    def restorer(self, carried, node_ranges):
        """A function that takes back what carried() gave (checked now: InvalidInputError if it does not fit)."""
        n = len(self.asleep)
        asleep = take(carried, "sleep.asleep", (n,), np.bool_)
        quiet = take(carried, "sleep.quiet", (n,), np.float64)
        island = take(carried, "sleep.island", (n,), np.int64)
        sizes = [b - a for a, b in node_ranges]
        ends = np.cumsum([0] + [sizes[i] for i in np.flatnonzero(asleep)])
        frozen = take(carried, "sleep.frozen", (ends[-1], 3), np.float64)
        if np.any((island < 0) | (island >= n)):
            raise InvalidInputError("the carried 'sleep.island' names bodies this world does not have")

        def restore():
            self.asleep, self.quiet, self.island = asleep, quiet, island
            self.settling = np.zeros(n, np.bool_)
            self.frozen = {int(i): frozen[a:b] for i, a, b in zip(np.flatnonzero(asleep), ends[:-1], ends[1:])}
        return restore

    def wake(self, bodies=None):
        """Wake the given body indices (all when None) with the islands they sleep in."""
        idx = np.arange(len(self.asleep)) if bodies is None else np.asarray(bodies, np.int64).reshape(-1)
        mates = np.isin(self.island, self.island[idx]) & self.asleep
        mates[idx] = True
        for i in np.flatnonzero(mates):
            self.asleep[i] = False
            self.settling[i] = False
            self.quiet[i] = 0.0
            self.frozen.pop(int(i), None)

    def wake_disturbed(self, x, v, node_ranges, moved_nodes, moving_boxes):
        """Wake the sleeping islands with a body whose nodes were written since it fell asleep (x or v changed),
        that has a node in `moved_nodes` (pin targets that move), or whose box meets one of `moving_boxes`
        ((k,2,3) lo/hi: moving bodies' and colliders' swept boxes, grown by their contact distance)."""
        disturbed = []
        for i in np.flatnonzero(self.asleep):
            a, b = node_ranges[i]
            xs = x[a:b]
            lo, hi = xs.min(axis=0), xs.max(axis=0)
            near = len(moving_boxes) and np.any(np.all((moving_boxes[:, 0] <= hi) & (moving_boxes[:, 1] >= lo),
                                                       axis=1))
            if near or np.any(moved_nodes[a:b]) or np.any(v[a:b] != 0.0) \
                    or not np.array_equal(xs, self.frozen[int(i)]):
                disturbed.append(i)
        if disturbed:
            self.wake(disturbed)

    def after_step(self, x, v, mass, node_ranges, dt, touching, moving, normals):
        """Count quiet time from `moving` (per body: what is seen of it moved at SLEEP_SPEED or faster this step); an
        island (bodies linked by the (k,2) body-index pairs `touching`) whose bodies have all been quiet long enough
        falls asleep (v = 0); an island with awake and sleeping bodies wakes them all. The awake bodies with a
        settling normal (per body (B,3), unit or zero for none) settle on it (mass: the node masses (N,))."""
        for i in np.flatnonzero(~self.asleep):
            self.quiet[i] = 0.0 if moving[i] else self.quiet[i] + dt
        island = components(len(self.asleep), touching)
        for label in np.unique(island[~self.asleep]):
            members = np.flatnonzero(island == label)
            if self.asleep[members].any():
                # an awake body touching a sleeping one wakes it: held, the sleeper would be an immovable
                # obstacle to the body (its contacts, predicted for a free fall, miss a body held above it)
                self.wake(members[self.asleep[members]])
            elif np.all(self.quiet[members] >= SLEEP_TIME):
                for i in members:
                    a, b = node_ranges[i]
                    v[a:b] = 0.0
                    self.frozen[int(i)] = x[a:b].copy()
                self.asleep[members] = True
                self.island[members] = label
        self.settling = np.any(normals != 0.0, axis=1) & ~self.asleep
        keep = 1.0 / (1.0 + SETTLE_DAMPING * dt)
        for i in np.flatnonzero(self.settling):
            a, b = node_ranges[i]
            v[a:b] -= (1.0 - keep) * (v[a:b] - sliding_motion(x[a:b], v[a:b], mass[a:b], normals[i]))

    def held_nodes(self, node_ranges, num_nodes):
        """Bool mask of the sleeping bodies' nodes."""
        held = np.zeros(num_nodes, np.bool_)
        for i in np.flatnonzero(self.asleep):
            a, b = node_ranges[i]
            held[a:b] = True
        return held


def sliding_motion(x, v, mass, normal):
    """The part of a body's node velocities v (n,3) that settling leaves alone: its rigid motion (the velocity of
    its centre of mass and its spin, from its momentum and angular momentum with the masses (n,)) less the centre's
    velocity along `normal`, so a body sliding or rolling on its support keeps going, while its bob along the
    normal and its deformation (sway, wobble) are damped."""
    frame = rigid_frame(x, v, 1.0 / mass, 0, len(x))
    vc = frame.velocity
    return vc - (vc @ normal) * normal + np.cross(frame.spin, x - frame.centre)


def seen_motion(bodies, asleep):
    """Per awake body, whether what is seen of it moves at SLEEP_SPEED or faster, and whether at SETTLE_SPEED or
    faster: its embedded render points, or its nodes. (A cage's nodes outside the surface are not seen: on a 1 m ball
    resting at the defaults, a light one below the floor kept flipping at ±5.1 mm/s with the contact set at the
    patch's rim, its render points at 3.8 mm/s at most, and the ball never fell asleep.)"""
    moving = np.zeros(len(bodies), np.bool_)
    fast = np.zeros(len(bodies), np.bool_)
    for i, body in enumerate(bodies):
        if asleep[i]:
            continue
        v = body.v
        if body.mesh.embedding is not None:
            fast[i] = body.mesh.embedding.reaches(v, SETTLE_SPEED)
            moving[i] = fast[i] or body.mesh.embedding.reaches(v, SLEEP_SPEED)
        else:
            top = np.max(np.einsum("nd,nd->n", v, v)) if len(v) else 0.0
            moving[i], fast[i] = top >= SLEEP_SPEED ** 2, top >= SETTLE_SPEED ** 2
    return moving, fast


def support_normals(contacts, slow, colliders):
    """Per body (B,3): for the bodies `slow` (bool (B,)), the normal of what it rests on, the principal axis of its
    contacts' normals weighted by their normal forces (every contact alike when none presses); zero for the others,
    a body touching nothing, or one touching a collider that moved this step (damped, a body carried by a moving
    collider would lag it)."""
    normals = np.zeros((len(slow), 3))
    if not len(contacts) or not slow.any():
        return normals
    moved = np.array([c.moving for c in colliders], np.bool_)
    other = contacts.other_body >= 0
    support = contacts.other_body != contacts.body   # a body's contacts with itself hold it on nothing
    body = np.concatenate([contacts.body, contacts.other_body[other]])
    n = np.concatenate([contacts.normals, contacts.normals[other]])
    press = np.maximum(np.einsum("nd,nd->n", contacts.forces, contacts.normals), 0.0)
    weight = np.concatenate([press, press[other]])
    skip = ~slow
    by_collider = contacts.collider >= 0
    if len(moved):
        skip[contacts.body[by_collider][moved[contacts.collider[by_collider]]]] = True
    support = np.concatenate([support, support[other]])
    for i in np.unique(body[support]):
        if skip[i]:
            continue
        mine = (body == i) & support
        w = weight[mine] if weight[mine].sum() > 0.0 else np.ones(int(mine.sum()))
        tensor = np.einsum("k,ki,kj->ij", w, n[mine], n[mine])
        normals[i] = np.linalg.eigh(tensor)[1][:, -1]
    return normals


def swept_boxes(x, v, node_ranges, asleep, dt, gravity, colliders, settings):
    """The boxes ((k,2,3) lo/hi) the awake bodies still moving (at SLEEP_SPEED or faster) sweep over a step of dt
    under gravity, and the moving colliders' over their move, each grown by the distance at which it makes contact
    (`settings`: core.contact.ContactSettings; its margin, plus body_thickness or the collider's thickness); and
    whether any collider moves."""
    boxes = []
    for i in np.flatnonzero(~asleep):
        a, b = node_ranges[i]
        if b > a and np.max(np.abs(v[a:b])) >= SLEEP_SPEED:
            ends = np.concatenate([x[a:b], x[a:b] + dt * (v[a:b] + dt * gravity)])
            reach = settings.margin + settings.body_thickness
            boxes.append((ends.min(axis=0) - reach, ends.max(axis=0) + reach))
    moving_collider = False
    for c in colliders:
        if c.moving:
            ends = np.concatenate([c.start, c.end])
            reach = settings.margin + c.thickness
            boxes.append((ends.min(axis=0) - reach, ends.max(axis=0) + reach))
            moving_collider = True
    return np.array(boxes).reshape(-1, 2, 3), moving_collider
