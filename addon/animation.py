"""Animated settings: what a keyframed or driven property contributes to the cache signature.

A setting that may vary in time (Young's modulus, damping, friction, gravity) is read at every simulated
frame. Hashing its current value would outdate the cache on every frame change, so the signature hashes
its animation instead (keyframes, handles, interpolation, modifiers, a driver's expression and targets):
the cache stays valid while the animation is unchanged. A driver's inputs are not followed (as Blender's
own caches: edit the driver or free the cache)."""
import numpy as np

try:   # Blender 4.4+: layered actions (slots and channelbags); 5.0 removed Action.fcurves
    from bpy_extras.anim_utils import animdata_get_channelbag_for_assigned_slot
except ImportError:   # Blender 4.2-4.3
    animdata_get_channelbag_for_assigned_slot = None


def _action_fcurves(anim):
    if anim.action is None:
        return []
    if animdata_get_channelbag_for_assigned_slot is None:
        return list(anim.action.fcurves)
    bag = animdata_get_channelbag_for_assigned_slot(anim)
    return list(bag.fcurves) if bag is not None else []


def _curve_key(fc):
    points = fc.keyframe_points
    arrays = []
    for attr in ("co", "handle_left", "handle_right"):
        values = np.empty(2 * len(points))
        points.foreach_get(attr, values)
        arrays.append(values.tobytes())
    modes = tuple((p.interpolation, p.easing) for p in points)
    modifiers = tuple((m.type, m.mute) for m in fc.modifiers)
    driver = None
    if fc.driver is not None:
        d = fc.driver
        driver = (d.type, d.expression, tuple((v.name, v.type, tuple((t.id.name if t.id else "", t.data_path)
                                                                      for t in v.targets)) for v in d.variables))
    return (fc.data_path, fc.array_index, fc.mute, fc.extrapolation, modes, modifiers, driver, *arrays)


def _curves(id_data, data_path):
    anim = id_data.animation_data
    if anim is None:
        return []
    curves = [fc for fc in _action_fcurves(anim) if fc.data_path == data_path]
    curves += [fc for fc in anim.drivers if fc.data_path == data_path]
    return curves


def is_animated(id_data, data_path):
    """Whether an F-curve or driver of the ID animates `data_path` (then its value is read per frame)."""
    return bool(_curves(id_data, data_path))


def setting_key(id_data, data_path, value):
    """What the signature hashes for a setting that may vary in time: its F-curves and drivers if it has any,
    else its value. (Animation through NLA strips only is not recognised: it outdates the cache per frame.)"""
    curves = _curves(id_data, data_path)
    if curves:
        return ("animated", tuple(_curve_key(fc) for fc in sorted(curves, key=lambda c: c.array_index)))
    return value
