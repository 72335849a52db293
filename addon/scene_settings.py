"""What a scene's SoftFEM settings say: its soft bodies, frame range and cache place, the signature of everything a
simulated frame depends on, each body's core.Material and the CG preconditioner of a frame."""
import hashlib
import os
import tempfile

import bpy

from . import animation, colliders, effectors, mesh_hashes
from .report import one_line

UNSAVED = "unsaved"   # the cache files' stem while the .blend has no file name


def body_key(obj):
    """What the cache knows a soft body by: the Cache Id Add Soft Body gives it (kept when it is renamed), or its name
    for a body added before there were ids."""
    return obj.softfem.cache_id or obj.name


def soft_bodies(scene):
    """The scene's mesh objects with SoftFEM enabled that take part in its simulation (colliders.takes_part: the
    rule colliders follow), sorted by body_key (a rename does not reorder them)."""
    return sorted((o for o in scene.objects if o.type == 'MESH' and o.softfem.enabled
                   and colliders.takes_part(scene, o)), key=body_key)


def frame_range(scene):
    """(first, last) simulated frame: the scene's SoftFEM Frame Range when set, else the scene's frame range.
    A start before the scene's is a pre-roll (Bake simulates it; playback starts at the scene's start)."""
    s = scene.softfem
    if s.use_frame_range:
        return s.frame_start, s.frame_end
    return scene.frame_start, scene.frame_end


def cache_location(scene):
    """(folder, file prefix) of the scene's cache: the Cache Folder setting (a temp folder while a '//' path
    has no saved .blend) and "<blend name>_<scene>", so several .blend files can share one folder."""
    raw = scene.softfem.cache_directory
    if raw.startswith("//") and not bpy.data.filepath:
        directory = os.path.join(tempfile.gettempdir(), f"softfem_unsaved_{os.getpid()}")
    else:
        directory = os.path.normpath(bpy.path.abspath(raw))
    stem = bpy.path.display_name_from_filepath(bpy.data.filepath) if bpy.data.filepath else UNSAVED
    return directory, f"{stem}_{scene.name}"


def signature(scene, fresh=False):
    """Hash of everything a simulated frame depends on; a change marks the cache outdated. Settings that may
    vary in time count by their animation when they have one (animation.setting_key). Meshes count by their
    hashes kept since the last depsgraph update (what the panel asks for on every redraw), or hashed again when
    `fresh` (what a frame change does, so a script's edit without an update is seen too)."""
    s = scene.softfem
    r = scene.render
    key = animation.setting_key
    parts = [r.fps, r.fps_base, key(scene, "gravity", tuple(scene.gravity)), scene.use_gravity, frame_range(scene)[0],
             s.substeps, s.adaptive_substeps, s.newton_iterations, s.cg_iterations, s.time_scale, s.integrator]
    for obj in soft_bodies(scene):
        o = obj.softfem
        parts.append((body_key(obj), key(obj, "softfem.youngs_modulus", o.youngs_modulus), o.poisson_ratio, o.density,
                      mooney_rivlin(o) if o.material_model == "MOONEY_RIVLIN" else o.material_model,
                      key(obj, "softfem.damping", o.damping), key(obj, "softfem.friction", o.friction),
                      key(obj, "softfem.animated", o.animated), tuple(o.initial_velocity),
                      tuple(o.initial_angular_velocity), effectors.weights_identity(o.effector_weights),
                      o.pin_group, o.pin_spring, o.stiffness_group, o.resolution, o.mode, o.self_collision,
                      mesh_hashes.fingerprint(obj, fresh),
                      mesh_hashes.group_hash(obj, o.pin_group), mesh_hashes.group_hash(obj, o.stiffness_group),
                      colliders.static_place(obj)))
    parts.append(tuple(colliders.identity(p, fresh) for p in colliders.placements(scene)))
    fields = {o.name: o for obj in soft_bodies(scene)
              for o in effectors.field_objects(scene, obj.softfem.effector_weights)}
    parts.append(tuple(effectors.identity(fields[name]) for name in sorted(fields)))
    return hashlib.md5(repr(parts).encode()).hexdigest()


def gravity(scene):
    """The scene's gravity (m/s²), zero where its gravity is off."""
    return tuple(scene.gravity) if scene.use_gravity else (0.0, 0.0, 0.0)


def mooney_rivlin(o):
    """(c01, c10) in Pa of a Mooney-Rivlin body's settings."""
    return o.mooney_rivlin_c01, o.mooney_rivlin_c10


def material(core, obj):
    """The core.Material of an object's SoftFEM settings (their current values); RuntimeError naming the object
    if the core refuses them."""
    o = obj.softfem
    c01, c10 = mooney_rivlin(o) if o.material_model == "MOONEY_RIVLIN" else (None, None)
    try:
        return core.Material(youngs_modulus=o.youngs_modulus, poisson_ratio=o.poisson_ratio, density=o.density,
                             damping_mass=0.0, damping_stiffness=o.damping, friction=o.friction,
                             model=o.material_model.lower(), mooney_rivlin_c01=c01, mooney_rivlin_c10=c10)
    except core.InvalidInputError as exc:
        raise RuntimeError(f"material of '{obj.name}': {one_line(exc)}") from None


def preconditioner(core, bodies, dt):
    """The CG preconditioner of a frame: "multigrid" if a body is stiff for its cage and time step (core's rule,
    core.solve.auto_preconditioner.stiff_for_jacobi), else block-Jacobi ("jacobi")."""
    rule = core.solve.auto_preconditioner.stiff_for_jacobi
    return "multigrid" if any(rule(body.handle.material, body.edge, dt) for body in bodies) else "jacobi"
