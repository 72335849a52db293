"""Cages: a soft body's rest mesh tetrahedralized (local space), kept in memory by identity (mesh + settings)."""
from . import bridge
from .dependencies import load_core

_CAGES = {}


def cage_key(obj):
    """Identity of the cage an object needs now: its rest mesh's fingerprint, resolution and mode."""
    s = obj.softfem
    return f"{bridge.fingerprint(obj.data)}|{s.resolution}|{s.mode}"


def require_faces(obj):
    """Raise ValueError if the object's mesh has no faces (nothing to tetrahedralize)."""
    if len(obj.data.polygons) == 0:
        raise ValueError(f"'{obj.name}' has no faces: SoftFEM simulates solids")


def build_cage(obj):
    """Tetrahedralize the object's rest (basis) mesh in local space; raises InvalidInputError on bad meshes."""
    core = load_core()
    require_faces(obj)
    mesh = obj.data
    verts = bridge.read_vertices(mesh)
    tris = bridge.read_triangles(mesh)
    s = obj.softfem
    tm = core.tetrahedralize(verts, tris, resolution=s.resolution, mode=s.mode.lower())
    _CAGES[cage_key(obj)] = tm
    return tm


def get_cage(obj):
    """The object's cage for its current mesh and settings (built again after a reload, undo or mesh edit)."""
    tm = _CAGES.get(cage_key(obj))
    return tm if tm is not None else build_cage(obj)


def record(obj, tm):
    """Store the cage's identity and counts on the object (shown in the Cage panel, undoable)."""
    s = obj.softfem
    s.cage_key = cage_key(obj)
    s.cage_nodes = tm.num_nodes
    s.cage_tets = tm.num_tets
    s.cage_embedded = len(tm.embedding.tet) if tm.embedding is not None else tm.num_nodes
    s.cage_quality = float(tm.report["quality_min"])


def clear():
    """Forget every cage (a new file was loaded)."""
    _CAGES.clear()
