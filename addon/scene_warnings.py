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


def too_soft(obj, material, x, g):
    """A body too soft for its size: its own weight presses its base with more than half its Young's modulus
    (ρ g h > E / 2, h its height along gravity g, x its nodes): its base is squashed past the stretch where the
    hyperelastic energies soften (core.fem.hyperelastic.STRETCH_FLOOR), so it slumps and may fold into itself (a 50 m
    default cube kept 1.5 % of its volume; a 40 cm cube of Jelly, pressing 0.9 E, ended 0.76 of it with 239 tets
    inside out, unwarned while the bound was E)."""
    g_norm = float(np.linalg.norm(g))
    if g_norm == 0.0:
        return None
    height = float(np.ptp(x @ (np.asarray(g) / g_norm)))
    pressure = material.density * g_norm * height
    if pressure <= 0.5 * material.youngs_modulus:
        return None
    return (f"'{obj.name}' is too soft for its size: its weight presses its base with {pressure:.3g} Pa, over half "
            f"its Young's modulus ({material.youngs_modulus:.3g} Pa), so it slumps and may fold into itself; raise "
            "Young's modulus or check its size (one Blender unit is one metre)")


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
