"""Mesh bridge: Blender mesh data <-> numpy through foreach_get/foreach_set, and the output shape key."""
import zlib

import numpy as np

OUTPUT_KEY = "SoftFEM"


def _positions32(mesh):
    # The "position" attribute has a bulk fast path; vertices["co"] goes element by element (~500x slower).
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.attributes["position"].data.foreach_get("vector", co)
    return co


def _points(block):
    # ShapeKey.points (Blender 4.1+) is the bulk-access twin of ShapeKey.data.
    return block.points if hasattr(block, "points") else block.data


def read_vertices(mesh):
    """The mesh's own (basis) vertex positions in local space, (n,3) float64."""
    return _positions32(mesh).reshape(-1, 3).astype(np.float64)


def read_triangles(mesh):
    """Triangulation of the mesh's faces, (m,3) int64."""
    mesh.calc_loop_triangles()
    tris = np.empty(len(mesh.loop_triangles) * 3, np.int32)
    mesh.loop_triangles.foreach_get("vertices", tris)
    return tris.reshape(-1, 3).astype(np.int64)


def read_world_mesh(obj, depsgraph, triangles=True):
    """An object's evaluated mesh (modifiers, animation) in world space: vertices (n,3) float64 and, if
    asked, triangles (m,3) (else None)."""
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        verts = read_vertices(mesh)
        tris = read_triangles(mesh) if triangles else None
    finally:
        evaluated.to_mesh_clear()
    return to_world(np.array(evaluated.matrix_world), verts), tris


def fingerprint(mesh):
    """A cheap identity of the rest mesh: element counts and a CRC of the basis positions."""
    co = _positions32(mesh)
    counts = (len(mesh.vertices), len(mesh.edges), len(mesh.loops), len(mesh.polygons))
    return "%d-%d-%d-%d-%08x" % (counts + (zlib.crc32(co.tobytes()),))


def to_world(matrix, local):
    """Apply a 4x4 matrix to (n,3) points."""
    m = np.asarray(matrix, np.float64)
    return local @ m[:3, :3].T + m[:3, 3]


def world_to_local(obj):
    """The inverse of the object's world matrix (4x4 float64); ValueError when its scale is zero."""
    m = np.array(obj.matrix_world, np.float64)
    c0, c1, c2 = m[:3, 0], m[:3, 1], m[:3, 2]
    # Adjugate by cross products: numpy's LAPACK inverse wakes BLAS threads (milliseconds per call here).
    rows = np.array([np.cross(c1, c2), np.cross(c2, c0), np.cross(c0, c1)])
    det = float(c0 @ rows[0])
    if abs(det) < 1e-30:
        raise ValueError(f"'{obj.name}' has a zero scale")
    inv = np.eye(4)
    inv[:3, :3] = rows / det
    inv[:3, 3] = -inv[:3, :3] @ m[:3, 3]
    return inv


def group_weights(obj, name):
    """Per-vertex weights (n,) of the vertex group `name` (0 outside it); KeyError if it does not exist.

    Blender has no bulk accessor for deform weights, so this walks the vertices once; it is only
    called when a simulation is built, never per frame.
    """
    group = obj.vertex_groups.get(name)
    if group is None:
        raise KeyError(name)
    gi = group.index
    weights = np.zeros(len(obj.data.vertices), np.float64)
    for v in obj.data.vertices:
        for g in v.groups:
            if g.group == gi:
                weights[v.index] = g.weight
    return weights


def shape_key_offsets(mesh):
    """Sum of the other relative shape keys' current offsets (n,3) float64, or None if there are none."""
    keys = mesh.shape_keys
    if keys is None or not keys.use_relative:
        return None
    total = None
    n = len(mesh.vertices)
    for block in keys.key_blocks[1:]:
        if block.name == OUTPUT_KEY or block.mute or block.value == 0.0:
            continue
        co = np.empty(n * 3, np.float32)
        ref = np.empty(n * 3, np.float32)
        _points(block).foreach_get("co", co)
        _points(block.relative_key).foreach_get("co", ref)
        delta = (co.astype(np.float64) - ref) * block.value
        total = delta if total is None else total + delta
    return None if total is None else total.reshape(-1, 3)


def add_output_key(obj):
    """Add the output shape key (value 1, positions = basis); return True if a Basis key had to be created."""
    mesh = obj.data
    created_basis = mesh.shape_keys is None
    if created_basis:
        obj.shape_key_add(name="Basis", from_mix=False)
    elif not mesh.shape_keys.use_relative:
        raise ValueError(f"'{obj.name}' uses absolute shape keys; SoftFEM needs relative shape keys")
    key = mesh.shape_keys.key_blocks.get(OUTPUT_KEY)
    if key is None:
        key = obj.shape_key_add(name=OUTPUT_KEY, from_mix=False)
    key.value = 1.0
    key.relative_key = mesh.shape_keys.key_blocks[0]
    return created_basis


def remove_output_key(obj, created_basis):
    """Remove the output shape key (and the Basis key if Add Soft Body created it): the mesh is as before."""
    keys = obj.data.shape_keys
    if keys is None:
        return
    key = keys.key_blocks.get(OUTPUT_KEY)
    if key is not None:
        obj.shape_key_remove(key)
    keys = obj.data.shape_keys
    if created_basis and keys is not None and len(keys.key_blocks) == 1:
        obj.shape_key_remove(keys.key_blocks[0])


def write_local_positions(obj, local, offsets=None):
    """Show local positions (n,3) on the mesh through the output key (other keys' offsets subtracted)."""
    keys = obj.data.shape_keys
    key = keys.key_blocks.get(OUTPUT_KEY) if keys is not None else None
    if key is None:
        return False
    values = local if offsets is None else local - offsets
    _points(key).foreach_set("co", np.ascontiguousarray(values, np.float32).ravel())
    obj.data.update()
    return True


def reset_output_key(obj):
    """Show the unsimulated mesh: the output key takes the basis positions (a zero offset)."""
    keys = obj.data.shape_keys
    key = keys.key_blocks.get(OUTPUT_KEY) if keys is not None else None
    if key is None:
        return
    co = np.empty(len(key.data) * 3, np.float32)
    _points(keys.key_blocks[0]).foreach_get("co", co)
    _points(key).foreach_set("co", co)
    obj.data.update()


def read_output_key(obj):
    """Positions currently stored in the output key (n,3) float32 (for tests and Mesh Cache export)."""
    key = obj.data.shape_keys.key_blocks[OUTPUT_KEY]
    co = np.empty(len(key.data) * 3, np.float32)
    _points(key).foreach_get("co", co)
    return co.reshape(-1, 3)
