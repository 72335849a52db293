"""Blender force fields acting on SoftFEM bodies: the scene's Wind, Force, Vortex and Turbulence fields, read per
frame into core.forces.ForceFields and scaled by each body's Effector Weights (and its Gravity factor).

A field acts when its object is in the scene (hidden or not) and not disabled in viewports (keyframed, that switch
is read per frame), or in the body's Effector Collection when that is set. Its shape is Point or Plane (others act as
Point) and its falloff Blender's Sphere falloff (Tube and Cone act as Sphere); strength is read as an acceleration in
m/s² (N/kg), so a field acts alike at every cage resolution."""
import numpy as np

from . import animation, colliders

SUPPORTED = ("WIND", "FORCE", "VORTEX", "TURBULENCE")
_WEIGHT = {"WIND": "wind", "FORCE": "force", "VORTEX": "vortex", "TURBULENCE": "turbulence"}


def field_objects(scene, weights=None):
    """The objects whose force field SoftFEM may apply (to a body with these Effector Weights), sorted by name: those
    whose Disable in Viewports is keyframed included (body_fields applies them where it is off)."""
    group = weights.collection if weights is not None else None
    candidates = group.all_objects if group is not None else scene.objects
    return sorted((o for o in candidates if o.field is not None and o.field.type in SUPPORTED
                   and colliders.enabled_in_viewports(o) and o.name in scene.objects), key=lambda o: o.name)


def identity(obj):
    """What a simulation depends on in a field object besides its animation (for the cache signature)."""
    f = obj.field
    key = animation.setting_key
    place = colliders.static_place(obj)
    keys = (obj.name, f.type, f.shape, key(obj, "field.strength", f.strength), key(obj, "field.flow", f.flow),
            f.falloff_power, f.use_min_distance, f.distance_min, f.use_max_distance, f.distance_max,
            f.size, f.seed, place)
    if animation.is_animated(obj, "hide_viewport"):   # (not keyframed, it decides whether the field is in the set)
        keys += (key(obj, "hide_viewport", obj.hide_viewport),)
    return keys


def weights_identity(weights):
    """The body's Effector Weights (for the cache signature)."""
    return (weights.collection.name if weights.collection is not None else None, weights.gravity, weights.all,
            weights.wind, weights.force, weights.vortex, weights.turbulence)


def body_fields(core, scene, weights):
    """A core.ForceFields of the fields acting on a body with these Effector Weights at this frame."""
    fields = core.ForceFields()
    if weights.all == 0.0:
        return fields
    for obj in field_objects(scene, weights):
        if obj.hide_viewport:
            continue
        f = obj.field
        weight = weights.all * getattr(weights, _WEIGHT[f.type])
        if weight == 0.0 or f.strength == 0.0 and f.flow == 0.0:
            continue
        m = np.array(obj.matrix_world, np.float64)
        axis = m[:3, 2] if np.linalg.norm(m[:3, 2]) > 0 else np.array([0.0, 0.0, 1.0])
        fields.add(f.type, m[:3, 3], axis, f.strength, flow=max(f.flow, 0.0),
                   shape="PLANE" if f.shape == 'PLANE' else "POINT", power=f.falloff_power,
                   d_min=f.distance_min if f.use_min_distance else 0.0,
                   d_max=f.distance_max if f.use_max_distance else np.inf,
                   size=max(f.size, 1e-6), seed=f.seed, weight=weight)
    return fields
