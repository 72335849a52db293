"""Adding, removing and re-tetrahedralizing soft bodies on Blender objects (what the operators call)."""
import bpy

from . import bridge, cage, readiness
from .dependencies import load_core


def check_target(obj):
    """Raise ValueError with a one-line reason if the object cannot become a soft body."""
    if obj.type != 'MESH':
        raise ValueError(f"'{obj.name}' is not a mesh (its type is {obj.type.lower()})")
    others = obj.data.users - 1 - int(obj.data.use_fake_user)   # (a fake user is no other object)
    if others > 0:
        raise ValueError(f"'{obj.name}' shares its mesh with {others} other user(s): make it single-user first")
    physics = next((m for m in obj.modifiers if m.type in ('SOFT_BODY', 'CLOTH')), None)
    if physics is not None:
        raise ValueError(f"'{obj.name}' already has Blender's {physics.name} physics: remove it first (one "
                         "simulation per object)")
    if linked_mesh_error(obj):
        raise ValueError(linked_mesh_error(obj))
    group = obj.softfem.pin_group
    if group and obj.vertex_groups.get(group) is None:
        raise ValueError(f"pin group '{group}' not found on '{obj.name}'")
    cage.require_faces(obj)
    bridge.world_to_local(obj)   # (a zero scale: its world-space mesh is flat)


def linked_mesh_error(obj):
    """A one-line reason when the object's mesh comes from a library (linked, or a library override's linked
    mesh), else None: SoftFEM shows the simulation by writing into the mesh, which Blender does not let a linked
    mesh keep (played, such a body simulated and showed nothing)."""
    mesh = obj.data
    library = mesh.library or (mesh.override_library.reference.library if mesh.override_library else None)
    if library is None:
        return None
    return (f"'{obj.name}' uses a mesh linked from '{bpy.path.basename(library.filepath)}': make it local to simulate "
            "it (Object > Relations > Make Local > Selected Objects and Data)")


def _free_cache_id(obj, taken):
    """The object's name as its Cache Id, or with the first free '#k' after it: the same scene built twice gets the
    same ids, so its bodies come in the same order and simulate the same, bit for bit."""
    cache_id, k = obj.name, 0
    while cache_id in taken:
        k += 1
        cache_id = f"{obj.name}#{k}"
    return cache_id


def give_unique_cache_ids(scene):
    """A copy of a soft body (Shift+D, or a second append of one) has its Cache Id: the copy (the later name) gets a
    new one, so the cache never takes one body's frames for another's."""
    bodies = [o for o in scene.objects if o.type == 'MESH' and o.softfem.enabled]
    if len({o.softfem.cache_id or o.name for o in bodies}) == len(bodies):
        return
    seen = set()
    for obj in sorted(bodies, key=lambda o: o.name):
        if obj.softfem.cache_id and obj.softfem.cache_id in seen and obj.is_editable:
            obj.softfem.cache_id = _free_cache_id(obj, seen)
        seen.add(obj.softfem.cache_id or obj.name)


def check_meshes_writable(bodies):
    """Raise RuntimeError naming a soft body whose mesh is linked from a library (linked_mesh_error), or two soft
    bodies that share one mesh (a linked duplicate, Alt+D, of a soft body): each writes its simulated shape into that
    mesh, so both would show the one written last."""
    seen = {}
    for obj in bodies:
        if linked_mesh_error(obj):
            raise RuntimeError(linked_mesh_error(obj))
        other = seen.setdefault(obj.data.as_pointer(), obj)
        if other is not obj:
            raise RuntimeError(f"'{other.name}' and '{obj.name}' share one mesh: make them single-user (Object > "
                               "Relations > Make Single User > Object & Data) to simulate both")


def add(obj):
    """Make the object a soft body and tetrahedralize it; the mesh is untouched if anything fails.

    Returns the cage, or None while the solver is being prepared (readiness): the cage is then built on the
    first frame shown once the solver is ready."""
    if readiness.error():
        raise RuntimeError(readiness.error())
    check_target(obj)
    tm = cage.build_cage(obj) if readiness.require() is None else None
    bridge.add_output(obj)
    obj.softfem.enabled = True
    obj.softfem.cache_id = _free_cache_id(obj, {o.softfem.cache_id or o.name for o in bpy.data.objects
                                                if o is not obj and o.type == 'MESH' and o.softfem.enabled})
    if tm is not None:
        cage.record(obj, tm)
    return tm


def remove(obj):
    """Stop simulating the object and give back its mesh exactly as it was before Add Soft Body."""
    s = obj.softfem
    bridge.remove_output(obj)
    s.enabled = False
    s.cage_key = ""
    s.cage_nodes = s.cage_tets = s.cage_embedded = 0
    s.cage_quality = 0.0


def retetrahedralize(obj, progress=None, time_limit=None):
    """Rebuild the object's cage with its current mode and resolution (see cage.build_cage for the arguments)."""
    load_core()
    tm = cage.build_cage(obj, progress=progress, time_limit=time_limit)
    cage.record(obj, tm)
    return tm
