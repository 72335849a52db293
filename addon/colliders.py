"""Colliders: mesh objects with an enabled Collision modifier, read in world space each frame for the World.

Which objects collide (Blender's conventions): a mesh with a Collision modifier whose Collision checkbox
(`collision.use`) is on and whose modifier is enabled both in the viewport and in renders (switching either off
removes it from the simulation, so playback and renders show the same cache). Hiding it (H, the eye) keeps it
colliding, as Blender's physics do; disabling it in viewports (the monitor icon) or excluding its collection from
the view layer removes it (keyframed, the monitor icon switches it off and on: a floor that appears at frame 12
collides from frame 12). When the scene's SoftFEM Collision Collection is set, only its objects collide.
A collider in a collection instanced by an object of the scene (an Empty instancing a collection, as a linked set
is) collides where each instance places it, its collection excluded from the view layer or not (Blender's own
physics take such objects where they stand in their collection, not where the instance is). Keyframed, the
checkbox and the modifier's toggles are read at every simulated frame, as Blender's own physics read them (they
outdated the cache in mid-play, and the body was drawn back at its start)."""
from typing import NamedTuple

import bpy
import numpy as np

from . import animation, bridge, mesh_hashes

INSTANCE_DEPTH = 8   # collection instances inside instanced collections are followed this deep


def collision_modifier(obj):
    """The object's Collision modifier, or None."""
    return next((m for m in obj.modifiers if m.type == 'COLLISION'), None)


def is_collider(obj):
    """A mesh object (not a soft body) carrying a Collision modifier (enabled or not)."""
    return obj.type == 'MESH' and not obj.softfem.enabled and collision_modifier(obj) is not None


def collides(obj):
    """A collider enabled in viewports whose Collision checkbox and modifier toggles (viewport and render) are on."""
    mod = collision_modifier(obj)
    return (is_collider(obj) and obj.collision is not None and obj.collision.use
            and mod.show_viewport and mod.show_render and not obj.hide_viewport)


def _switch_paths(obj):
    mod = collision_modifier(obj)
    return ("collision.use", f'modifiers["{mod.name}"].show_viewport', f'modifiers["{mod.name}"].show_render',
            "hide_viewport")


def switch_key(obj):
    """What the signature hashes of the collider's switches (its Collision checkbox, its modifier's viewport and
    render toggles, and its Disable in Viewports when keyframed): their animation where keyframed (then they are read
    per frame), else their values. (Disable in Viewports not keyframed decides whether the collider is in the set at
    all; left out then, caches made before it was read keep their signature.)"""
    mod = collision_modifier(obj)
    values = (obj.collision.use, mod.show_viewport, mod.show_render, obj.hide_viewport)
    paths = _switch_paths(obj)
    if not animation.is_animated(obj, "hide_viewport"):
        paths, values = paths[:3], values[:3]
    return tuple(animation.setting_key(obj, path, value) for path, value in zip(paths, values))


class Placement(NamedTuple):
    """A collider object where the scene puts it: `instancers` are the objects instancing the collections that hold
    it (outermost first), () for an object of the scene itself."""
    obj: object
    instancers: tuple

    @property
    def path(self):
        return tuple(o.name for o in self.instancers) + (self.obj.name,)

    @property
    def name(self):
        return "/".join(self.path)


def _may_collide(obj):
    return is_collider(obj) and (collides(obj) or any(animation.is_animated(obj, p) for p in _switch_paths(obj)))


def _instanced(obj, memo, depth=0):
    """[(collider, instancers inside obj's collection)] that obj's collection instance places (none when obj
    instances no collection); memo: collection name -> that list."""
    group = obj.instance_collection if obj.instance_type == 'COLLECTION' else None
    if group is None or depth >= INSTANCE_DEPTH:
        return []
    if group.name not in memo:
        found = []
        for member in group.all_objects:
            if not enabled_in_viewports(member):
                continue
            if _may_collide(member):
                found.append((member, ()))
            found.extend((m, (member,) + chain) for m, chain in _instanced(member, memo, depth + 1))
        memo[group.name] = found
    return memo[group.name]


def placements(scene):
    """The scene's colliding objects where they are placed (see the module's rule; one whose switches are
    keyframed collides where they are on: read_switches), sorted by path."""
    group = scene.softfem.collision_collection
    candidates = group.all_objects if group is not None else scene.objects
    found, memo = [], {}
    for o in candidates:
        if o.name not in scene.objects or not takes_part(scene, o):
            continue
        if _may_collide(o):
            found.append(Placement(o, ()))
        found.extend(Placement(m, (o,) + chain) for m, chain in _instanced(o, memo))
    return sorted(found, key=lambda p: p.path)


def resolve(scene, path):
    """The Placement of a collider path (Placement.path) in the scene as it is now, or None where it is gone."""
    obj, instancers = scene.objects.get(path[0]), []
    for name in path[1:]:
        if obj is None or obj.instance_type != 'COLLECTION' or obj.instance_collection is None:
            return None
        instancers.append(obj)
        obj = obj.instance_collection.all_objects.get(name)
    return None if obj is None else Placement(obj, tuple(instancers))


def enabled_in_viewports(obj):
    """Not disabled in viewports (the monitor icon), or that switch is keyframed (Blender then keeps evaluating the
    object): a soft body is simulated while disabled, so it shows where its motion has taken it (Blender's own Soft
    Body, whose frames then have a gap, stops simulating), and a collider or force field is switched off and on."""
    return not obj.hide_viewport or animation.is_animated(obj, "hide_viewport")


def takes_part(scene, obj):
    """Whether the object takes part in the scene's simulation: enabled in viewports (enabled_in_viewports) and in
    the view layer (its collection not excluded). Hidden (H), it does, as in Blender's own physics."""
    layer = bpy.context.view_layer if bpy.context.scene == scene else scene.view_layers[0]
    return enabled_in_viewports(obj) and obj.name in layer.objects


def transform_animated(obj):
    """Whether the object's world transform may change from frame to frame (its own or a parent's animation,
    drivers, constraints, or Blender's rigid body simulation: an Active rigid body, whose Dynamic switch may itself be
    keyframed)."""
    while obj is not None:
        ad = obj.animation_data
        if ad is not None and (ad.action is not None or len(ad.drivers) or len(ad.nla_tracks)):
            return True
        if len(obj.constraints):
            return True
        if obj.rigid_body is not None and obj.rigid_body.type == 'ACTIVE':
            return True
        obj = obj.parent
    return False


def _placement_animated(placement):
    return any(transform_animated(o) for o in placement.instancers + (placement.obj,))


def _static(placement):
    """Nothing moves or deforms the collider from frame to frame (no animated transform of it or of what instances
    it, no modifier but Collision, no shape keys): its frames need not be read (an edit outdates the cache instead)."""
    obj = placement.obj
    return (not _placement_animated(placement) and obj.data.shape_keys is None
            and all(m.type == 'COLLISION' for m in obj.modifiers))


def world_matrix(placement, depsgraph=None):
    """The placement's world matrix (4,4): its instancers' matrices, each less its collection's Instance Offset,
    times the object's own; evaluated in `depsgraph` where given."""
    def matrix(o):
        return np.array((o if depsgraph is None else o.evaluated_get(depsgraph)).matrix_world, np.float64)
    m = matrix(placement.obj)
    for o in reversed(placement.instancers):
        offset = np.eye(4)
        offset[:3, 3] = -np.array(o.instance_collection.instance_offset)
        m = matrix(o) @ offset @ m
    return m


def static_place(obj):
    """The object's world matrix as a tuple when nothing animates its transform, else None (its animation places
    it): moving a static object is an edit the cache depends on."""
    return None if transform_animated(obj) else tuple(float(v) for row in obj.matrix_world for v in row)


def identity(placement, fresh=False):
    """What a simulation depends on in a collider besides its animation: name, friction, thickness, its mesh
    and, when nothing animates its transform, where it stands (moving a static collider outdates the cache)."""
    obj = placement.obj
    place = None if _placement_animated(placement) else tuple(float(v) for v in world_matrix(placement).flat)
    friction = animation.setting_key(obj, "softfem.friction", obj.softfem.friction)
    return (placement.name, friction, obj.collision.thickness_outer, mesh_hashes.fingerprint(obj, fresh), place,
            switch_key(obj))


class Collider:
    """One collider in the World: its placement's path and name, core handle and world vertices at the last frame."""

    def __init__(self, placement, handle, vertices):
        self.path = placement.path
        self.name = placement.name
        self.handle = handle
        self.vertices = vertices


def _read(placement, depsgraph, triangles=True):
    matrix = world_matrix(placement, depsgraph) if placement.instancers else None
    verts, tris = bridge.read_world_mesh(placement.obj, depsgraph, triangles, matrix)
    if not np.all(np.isfinite(verts)):
        raise RuntimeError(f"collider '{placement.name}' has NaN or infinite vertex positions")
    return verts, tris


def add_to_world(world, scene, depsgraph, warn):
    """Add every collider of the scene to the World at its current shape; returns the Collider list. warn(message):
    where a collider that cannot collide is reported."""
    added = []
    for placement in placements(scene):
        obj = placement.obj
        verts, tris = _read(placement, depsgraph)
        if len(tris) == 0:
            warn(f"collider '{placement.name}' has no faces (Collision needs faces); ignored")
            continue
        handle = world.add_collider(verts, tris, friction=obj.softfem.friction,
                                    thickness=obj.collision.thickness_outer)
        world.set_collider_active(handle, collides(obj))
        added.append(Collider(placement, handle, verts))
    return added


def read_switches(world, colliders, scene):
    """Switch each collider on or off in the World as its (keyframed) switches are at this frame."""
    for c in colliders:
        placement = resolve(scene, c.path)
        if placement is not None and collides(placement.obj) != c.handle.active:
            world.set_collider_active(c.handle, collides(placement.obj))


def read_friction(world, colliders, scene):
    """Give the World each collider's friction at this frame where it changed (keyframed)."""
    for c in colliders:
        placement = resolve(scene, c.path)
        if placement is not None and placement.obj.softfem.friction != c.handle.friction:
            world.set_collider_friction(c.handle, placement.obj.softfem.friction)


def frame_targets(colliders, scene, depsgraph):
    """[(collider, world vertices at this frame)] for colliders that moved and still have the same vertex count
    (a collider left out stays where it is); static colliders are not read."""
    moves = []
    for c in colliders:
        placement = resolve(scene, c.path)
        if placement is None or _static(placement):
            continue
        verts, _tris = _read(placement, depsgraph, triangles=False)
        if verts.shape == c.vertices.shape and not np.array_equal(verts, c.vertices):
            moves.append((c, verts))
    return moves


def move(world, moves, t):
    """Move colliders to their positions at fraction t of the frame (linear between frames; at t = 1 exactly the
    frame's, where the next frame starts)."""
    for c, verts in moves:
        world.move_collider(c.handle, verts if t == 1.0 else c.vertices + (verts - c.vertices) * t)


def commit(colliders, moves):
    """Remember this frame's collider positions as the start of the next frame."""
    for c, verts in moves:
        c.vertices = verts
