"""The warnings a scene's simulation may give about its setup: units, bodies too soft for their size, a Mirror after
SoftFEM, shapes that cannot be read. Each returns its one-line message, or None when there is nothing to say."""
import numpy as np


def unit_scale(scene):
    """A scene whose Unit Scale is not 1: SoftFEM simulates one Blender unit as one metre."""
    length = scene.unit_settings.scale_length
    if length == 1.0:
        return None
    return (f"the scene's Unit Scale is {length:g}: SoftFEM simulates one Blender unit as one metre (its materials "
            "are in Pa and kg/m³): model at real size, or set Unit Scale to 1")


def too_soft(obj, material, x, g):
    """A body too soft for its size: its own weight presses its base harder than its Young's modulus (ρ g h > E, h
    its height along gravity g, x its nodes), so it slumps to a fraction of its volume (a 50 m default cube kept
    1.5 %). A 40 cm cube of Jelly (E = 5 kPa) presses 0.8 E."""
    g_norm = float(np.linalg.norm(g))
    if g_norm == 0.0:
        return None
    height = float(np.ptp(x @ (np.asarray(g) / g_norm)))
    pressure = material.density * g_norm * height
    if pressure <= material.youngs_modulus:
        return None
    return (f"'{obj.name}' is too soft for its size: its weight presses its base with {pressure:.3g} Pa, more than "
            f"its Young's modulus ({material.youngs_modulus:.3g} Pa), so it slumps; raise Young's modulus or check "
            "its size (one Blender unit is one metre)")


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


def undriven(obj, what):
    """A body whose animated shape cannot be read (bridge.read_driven gave None)."""
    return (f"cannot read the animated shape of '{obj.name}' (a modifier after SoftFEM, such as Bevel or Decimate, changes its vertices?): {what} "
            "its object transform only")
