"""Cages: a soft body's rest mesh tetrahedralized (local space), kept in memory by identity (mesh + settings)."""
import numpy as np

from . import bridge
from .dependencies import load_core

_CAGES = {}


def stretch(obj):
    """How the object's transform stretches its local axes relative to each other (3,), 1 along the most stretched:
    the cage is cut in that stretched space, so its cells are cubes in the world whatever the object's scale."""
    lengths = np.linalg.norm(np.array(obj.matrix_world)[:3, :3], axis=0)
    return np.round(lengths / lengths.max(), 9) if lengths.max() > 0.0 else np.ones(3)


def cage_key(obj):
    """Identity of the cage an object needs now: its rest mesh's fingerprint, resolution, mode and stretch."""
    s = obj.softfem
    key = f"{bridge.fingerprint(obj.data)}|{s.resolution}|{s.mode}"
    if s.mode == "CONFORMING":
        key += f"|{s.envelope:.6g}"
    elif s.refine_thin:
        key += "|graded"
    axes = stretch(obj)
    return key if np.all(axes == 1.0) else key + "|" + ",".join(f"{a:.9g}" for a in axes)


def require_faces(obj):
    """Raise ValueError if the object's mesh has no faces (nothing to tetrahedralize)."""
    if len(obj.data.polygons) == 0:
        raise ValueError(f"'{obj.name}' has no faces: SoftFEM simulates solids")


def build_cage(obj, progress=None, time_limit=None):
    """Tetrahedralize the object's rest (basis) mesh, as its transform stretches it, and keep the cage in local space;
    raises InvalidInputError on bad meshes; `progress(seconds)` is called while fTetWild runs (conforming mode), which
    is stopped after `time_limit` seconds (None: core's default). (Cut in local space, a 2 m plank modelled as a scaled cube got as many
    cells through its 4 cm as along it: 10,981 tets against 448 with the scale applied, 6.5x the time a frame.)"""
    core = load_core()
    require_faces(obj)
    mesh = obj.data
    axes = stretch(obj)
    verts = bridge.read_vertices(mesh) * axes
    tris = bridge.read_triangles(mesh)
    s = obj.softfem
    extra = {} if time_limit is None else {"time_limit": time_limit}
    if s.mode == "CONFORMING":
        extra.update(envelope=s.envelope, progress=progress)
    else:
        extra.update(graded=s.refine_thin)
    tm = core.tetrahedralize(verts, tris, resolution=s.resolution or "auto", mode=s.mode.lower(), **extra)
    if "thin_part" in tm.report:   # where it is, in the object's own coordinates
        tm.report["thin_part"]["centre"] = (np.asarray(tm.report["thin_part"]["centre"]) / axes).tolist()
    if not np.all(axes == 1.0):
        tm = tm.moved(tm.nodes / axes)
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
    s.cage_summary = summary(tm.report)
    s.cage_thin = thin_line(tm.report)


def summary(report):
    """One line on what Tetrahedralize did: mode, nodes, tets (and the resolution Auto chose), min quality, and for an
    open mesh the filled volume (and how many of its holes were capped to fill it)."""
    line = (f"{report['mode'].capitalize()}: {report['nodes']:,} nodes, {report['tets']:,} tets"
            f"{' (Auto: resolution %d)' % report['resolution'] if report.get('auto') else ''}"
            f"{', thin parts refined' if report.get('graded') else ''}, "
            f"quality {report['quality_min']:.2f}")
    if not report["closed"]:
        line += f", open mesh filled: {report['mesh_volume']:.4g} m³"
        capped = report.get("holes_capped", 0)
        if capped:
            line += f" ({capped} hole{'s' if capped > 1 else ''} capped)"
    return line


def thin_line(report):
    """The panel's line on the part thinner than a cell (core.geometry.thin_parts): where it is, how thick, and the
    Resolution that puts two cells through it; empty when there is none."""
    part = report.get("thin_part")
    if part is None:
        return ""
    x, y, z = part["centre"]
    need = part["resolution"]
    if report.get("graded"):     # `need` is then the resolution whose graded cage holds it
        fix = f"Resolution {need} holds it" if need is not None else "use Conforming"
    else:
        fix = (f"Refine Thin Parts or Resolution {need} holds it" if need is not None
               else "use Refine Thin Parts or Conforming")
    return (f"Thinner than a cell ({report['cell_size']:.3g} m): the part near ({x:.3g}, {y:.3g}, {z:.3g}), "
            f"{part['thickness']:.2g} m thick, bends too stiffly; {fix}")


def clear():
    """Forget every cage (a new file was loaded)."""
    _CAGES.clear()
