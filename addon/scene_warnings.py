"""The warnings a scene's simulation may give about its setup: units, bodies too soft for their size, a Mirror after
SoftFEM, shapes that cannot be read, bodies that start inside each other, meshes too coarse to draw their bend.
Each returns its one-line message (or a list of them), or None when there is nothing to say."""
import numpy as np


def unit_scale(scene):
    """A scene whose Unit Scale is not 1: SoftFEM simulates one Blender unit as one metre."""
    length = scene.unit_settings.scale_length
    if length == 1.0:
        return None
    return (f"the scene's Unit Scale is {length:g}: SoftFEM simulates one Blender unit as one metre (its materials "
            "are in Pa and kg/m³): model at real size, or set Unit Scale to 1")


# The load ρ g h / G (G the shear modulus) at which a box h tall and w wide, clamped at its base, loses its stable
# equilibrium under its own weight in the neo-Hookean finite-strain reference (scikit-fem, P2 tets, ν = 0.45;
# tests/core/test_too_soft_rule.py): measured 1.93 for a cube (2.06 on a coarser mesh), 0.61 for h = 2w, 0.133 for
# h = 4w, 3.19 for h = w/2; that is (h/w)² × 1.93, 2.44 and 2.13 where h ≥ w, and 1.93 (w/h)^0.73 at h = w/2. The
# bound, collapse_load: COLLAPSE (w/h)² for slender bodies and COLLAPSE (w/h)^0.6 for squat ones.
COLLAPSE = 1.9


def collapse_load(height, width):
    """The bound on ρ g h / G over which a body `height` tall and `width` wide (its narrowest width across gravity)
    buckles or sways over under its own weight (COLLAPSE, measured against the finite-strain reference)."""
    ratio = width / height
    return COLLAPSE * min(ratio * ratio, ratio ** 0.6)


def too_soft(obj, material, x, g, pinned=()):
    """A body too soft for its size and shape: its own weight, ρ g h over its shear modulus G (h its height along
    gravity g, x its nodes), is past collapse_load for its narrowest width across gravity, where a neo-Hookean solid
    clamped at its base has no stable equilibrium left: it buckles or sways over and slumps (a 50 m default cube kept
    1.5 % of its volume; a 40 cm cube of Jelly, ρgh/G = 2.3 against 1.9, ended 0.76 of it with 239 tets inside out).
    A body hanging from its `pinned` nodes (all in its upper half) is in tension and cannot buckle: it takes the
    bound of a body as wide as it is tall (not measured in tension)."""
    g_norm = float(np.linalg.norm(g))
    if g_norm == 0.0:
        return None
    down = np.asarray(g, float) / g_norm
    height = float(np.ptp(x @ down))
    across = np.linalg.svd(down[None, :])[2][1:]                        # two unit vectors across gravity
    turns = np.radians(np.arange(0.0, 180.0, 5.0))
    width = float(np.ptp(x @ (np.cos(turns)[:, None] * across[0] + np.sin(turns)[:, None] * across[1]).T,
                         axis=0).min())
    if height <= 0.0 or width <= 0.0:
        return None
    depth = x @ down
    if len(pinned) and depth[np.asarray(pinned)].max() < depth.min() + 0.5 * height:   # it hangs from its pins
        width = height
    load = material.density * g_norm * height / material.shear_modulus
    if load <= collapse_load(height, width):
        return None
    return (f"'{obj.name}' is too soft for its size: its weight presses its base with {load:.2g} times its shear "
            f"modulus, over the {collapse_load(height, width):.2g} a solid of its proportions ({height:.3g} m tall, "
            f"{width:.3g} m wide) can carry, so it buckles or slumps and may fold into itself; raise Young's modulus "
            "or check its size (one Blender unit is one metre)")


def mirror_after(obj, output):
    """A Mirror modifier after SoftFEM's output modifier `output`: it mirrors the simulated half about a place the
    simulation does not move (the object's origin or its mirror object), so the halves part as the body falls, and
    the mirrored half does not collide."""
    names = [m.name for m in obj.modifiers]
    if output is None or output.name not in names:
        return None
    after = obj.modifiers[names.index(output.name) + 1:]
    if not any(m.type == 'MIRROR' and m.show_viewport for m in after):
        return None
    return (f"'{obj.name}' has a Mirror modifier after SoftFEM: only the half before it is simulated, and its mirror "
            "image stays about a place that does not move; apply the Mirror before Add Soft Body")


def overlapping(bodies, locate):
    """Pairs of bodies that start inside each other: 90 % of one's render vertices or more lie in the other's cage (a
    copy made with Shift+D and left in place: the two were simulated as one lump, 3 mm apart). (A cage reaches up to a
    cell beyond its surface: half of an 8-vertex cube resting on another body can lie in its cage.) `bodies`:
    [(name, cage nodes, tets, render vertices)] at the start; locate(nodes, tets, points) gives each point's tet (−1:
    none). Returns one message per pair."""
    boxes = [(x.min(axis=0), x.max(axis=0)) for _, x, _, _ in bodies]
    messages = []
    for i, (name_a, x_a, tets_a, p_a) in enumerate(bodies):
        for j in range(i + 1, len(bodies)):
            name_b, x_b, tets_b, p_b = bodies[j]
            if np.any(boxes[i][1] < boxes[j][0]) or np.any(boxes[j][1] < boxes[i][0]):
                continue
            inside = max(np.mean(locate(x_b, tets_b, p_a) >= 0), np.mean(locate(x_a, tets_a, p_b) >= 0))
            if inside >= 0.9:
                messages.append(f"'{name_a}' and '{name_b}' start inside each other ({inside:.0%} of one's vertices "
                                "in the other; a copy left in place?): soft bodies that start overlapping cannot come "
                                "apart, move one")
    return messages


def thick_shell(name, points, colliders):
    """A body smaller than a collider's Outer Thickness, which it rests that far from: a 1 cm cube on Blender's
    default 2 cm shell floated twice its size above the floor. `colliders`: [(name, thickness)]."""
    size = float(np.ptp(points, axis=0).min())
    thick = [(t, c) for c, t in colliders if t > 0.5 * size]
    if not thick:
        return None
    t, c = max(thick)
    return (f"'{name}' ({size * 100:.3g} cm across) is small beside the {t * 100:.3g} cm Outer Thickness of '{c}', "
            "which it rests that far from: lower the collider's Outer Thickness (Physics > Collision)")


UNDRAWN_BEND = 0.2   # of the body's size (its cage's diagonal): a bend its faces cannot draw, worth a warning


def undrawn_bend(name, bend, x):
    """A body bent between its render vertices (bend: core Body.undrawn_bend) by more than UNDRAWN_BEND of its size
    (x: its nodes), which its flat faces cannot draw (one message per body, the same each frame): a 2 m slab of 8
    vertices draped over a 1 m ball (bent 0.9 m, 0.31 of its size) is drawn passing through the ball (a 2 m cube
    wobbling on landing: 0.12 of its size; a 0.2 m one 0.04; the slab subdivided 10 times: 0.01)."""
    size = float(np.linalg.norm(np.ptp(x, axis=0)))
    if not bend > UNDRAWN_BEND * size:
        return None
    return (f"'{name}' bends by more than {UNDRAWN_BEND:.0%} of its size between its vertices, which its flat faces "
            "cannot draw (it may look as if it passes through what it rests on): subdivide its mesh to see its shape")


def undriven(obj, what):
    """A body whose animated shape cannot be read (bridge.read_driven gave None)."""
    return (f"cannot read the animated shape of '{obj.name}' (a modifier after SoftFEM, such as Bevel or Decimate, "
            f"changes its vertices?): {what} its object transform only")
