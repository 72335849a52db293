"""Mesh bridge: Blender mesh data <-> numpy through foreach_get/foreach_set, and the output modifier."""
import zlib

import numpy as np

def _positions32(mesh):
    # The "position" attribute has a bulk fast path; vertices["co"] goes element by element (~500x slower).
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.attributes["position"].data.foreach_get("vector", co)
    return co


def read_vertices(mesh):
    """The mesh's own (basis) vertex positions in local space, (n,3) float64."""
    return _positions32(mesh).reshape(-1, 3).astype(np.float64)


def read_triangles(mesh):
    """Triangulation of the mesh's faces, (m,3) int64."""
    mesh.calc_loop_triangles()
    tris = np.empty(len(mesh.loop_triangles) * 3, np.int32)
    mesh.loop_triangles.foreach_get("vertices", tris)
    return tris.reshape(-1, 3).astype(np.int64)


def read_world_mesh(obj, depsgraph, triangles=True, matrix=None):
    """An object's evaluated mesh (modifiers, animation) in world space: vertices (n,3) float64 and, if
    asked, triangles (m,3) (else None). matrix (4,4): where to place it, if not at the evaluated object's own."""
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        verts = read_vertices(mesh)
        tris = read_triangles(mesh) if triangles else None
    finally:
        evaluated.to_mesh_clear()
    return to_world(np.array(evaluated.matrix_world) if matrix is None else matrix, verts), tris


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
    # The adjugate's rows are the cross products of the columns, in Python floats: numpy's LAPACK inverse wakes
    # BLAS threads (milliseconds per call here) and three np.cross calls cost ~60 us a frame, this ~5 us.
    (a, b, c, _), (d, e, f, _), (g, h, i, _) = m[:3].tolist()   # columns c0 = (a, d, g), c1 = (b, e, h), c2
    rows = np.array([[e * i - h * f, h * c - b * i, b * f - e * c],     # c1 x c2
                     [f * g - i * d, i * a - c * g, c * d - f * a],     # c2 x c0
                     [d * h - g * e, g * b - a * h, a * e - d * b]])    # c0 x c1
    det = a * rows[0, 0] + d * rows[0, 1] + g * rows[0, 2]
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


# The simulated positions reach the mesh through a Geometry Nodes modifier placed after the deforming
# modifiers (Armature, Hook, Lattice...) and before generators (Subdivision, Solidify...): it stores the
# shape it receives (the object's own animated shape: pin targets) and replaces the positions with the
# simulated ones written into a point attribute. The mesh's own positions are never written.
OUTPUT_MODIFIER = "SoftFEM"
OUTPUT_GROUP = "SoftFEM Output"
POSITION_ATTRIBUTE = "softfem_position"
DRIVEN_ATTRIBUTE = "softfem_driven"
INDEX_ATTRIBUTE = "softfem_index"    # each vertex's index where the output modifier runs
# Output Strain's point attributes (core.StrainGauge's measures), in its order: equivalent strain, det F - 1, von Mises
STRAIN_ATTRIBUTES = ("softfem_strain", "softfem_volume_change", "softfem_stress")
_DEFORM_ONLY = {'ARMATURE', 'CAST', 'CURVE', 'DISPLACE', 'HOOK', 'LAPLACIANDEFORM', 'LATTICE', 'MESH_DEFORM',
                'SHRINKWRAP', 'SIMPLE_DEFORM', 'SMOOTH', 'CORRECTIVE_SMOOTH', 'LAPLACIANSMOOTH',
                'SURFACE_DEFORM', 'WARP', 'WAVE', 'VERTEX_WEIGHT_EDIT', 'VERTEX_WEIGHT_MIX',
                'VERTEX_WEIGHT_PROXIMITY', 'UV_PROJECT', 'UV_WARP', 'NORMAL_EDIT', 'WEIGHTED_NORMAL'}


def output_group():
    """The node group of the output modifier (built once per file; rebuilt in place if a file's older group lacks
    the vertex index)."""
    import bpy
    group = bpy.data.node_groups.get(OUTPUT_GROUP)
    if group is None or group.bl_idname != 'GeometryNodeTree':
        group = bpy.data.node_groups.new(OUTPUT_GROUP, 'GeometryNodeTree')
    elif any(n.bl_idname == 'GeometryNodeStoreNamedAttribute' and n.inputs["Name"].default_value == INDEX_ATTRIBUTE
             for n in group.nodes):
        return group
    group.nodes.clear()
    group.interface.clear()
    group.interface.new_socket("Geometry", in_out='INPUT', socket_type='NodeSocketGeometry')
    group.interface.new_socket("Geometry", in_out='OUTPUT', socket_type='NodeSocketGeometry')
    nodes, links = group.nodes, group.links
    group_in, group_out = nodes.new('NodeGroupInput'), nodes.new('NodeGroupOutput')
    store = nodes.new('GeometryNodeStoreNamedAttribute')
    store.data_type, store.domain = 'FLOAT_VECTOR', 'POINT'
    store.inputs["Name"].default_value = DRIVEN_ATTRIBUTE
    index = nodes.new('GeometryNodeStoreNamedAttribute')
    index.data_type, index.domain = 'INT', 'POINT'
    index.inputs["Name"].default_value = INDEX_ATTRIBUTE
    simulated = nodes.new('GeometryNodeInputNamedAttribute')
    simulated.data_type = 'FLOAT_VECTOR'
    simulated.inputs["Name"].default_value = POSITION_ATTRIBUTE
    set_position = nodes.new('GeometryNodeSetPosition')
    links.new(group_in.outputs[0], store.inputs["Geometry"])
    links.new(nodes.new('GeometryNodeInputPosition').outputs["Position"], store.inputs["Value"])
    links.new(store.outputs["Geometry"], index.inputs["Geometry"])
    links.new(nodes.new('GeometryNodeInputIndex').outputs["Index"], index.inputs["Value"])
    links.new(index.outputs["Geometry"], set_position.inputs["Geometry"])
    links.new(simulated.outputs["Attribute"], set_position.inputs["Position"])
    links.new(simulated.outputs["Exists"], set_position.inputs["Selection"])  # no attribute: unchanged
    links.new(set_position.outputs["Geometry"], group_out.inputs[0])
    return group


def output_modifier(obj):
    """The object's output modifier, or None."""
    mod = obj.modifiers.get(OUTPUT_MODIFIER)
    return mod if mod is not None and mod.type == 'NODES' else None


def add_output(obj):
    """Add the output modifier after the object's leading deforming modifiers."""
    if output_modifier(obj) is not None:
        return
    index = 0
    while index < len(obj.modifiers) and obj.modifiers[index].type in _DEFORM_ONLY:
        index += 1
    mod = obj.modifiers.new(OUTPUT_MODIFIER, 'NODES')
    mod.node_group = output_group()
    try:
        obj.modifiers.move(len(obj.modifiers) - 1, index)
    except RuntimeError as exc:   # (a modifier after its place needs the original mesh): leave nothing behind
        group = mod.node_group
        obj.modifiers.remove(mod)
        if group is not None and group.users == 0:
            import bpy
            bpy.data.node_groups.remove(group)
        first = [m.name for m in obj.modifiers[index:] if m.type == 'MULTIRES']
        if first:
            raise ValueError(f"'{obj.name}': its {first[0]} modifier (Multiresolution) must stay first in the stack: "
                             "apply it before Add Soft Body") from None
        raise ValueError(f"'{obj.name}': SoftFEM's modifier cannot go after its deforming modifiers ("
                         f"{str(exc).strip().splitlines()[-1]})") from None


def remove_output(obj):
    """Remove the output modifier and attribute: the object is exactly as before Add Soft Body."""
    import bpy
    mod = output_modifier(obj)
    if mod is not None:
        obj.modifiers.remove(mod)
    remove_attributes(obj.data, (POSITION_ATTRIBUTE,) + STRAIN_ATTRIBUTES)
    group = bpy.data.node_groups.get(OUTPUT_GROUP)
    if group is not None and group.users == 0:
        bpy.data.node_groups.remove(group)


def write_local_positions(obj, local):
    """Show local positions (n,3) on the object through the output attribute."""
    mesh = obj.data
    attribute = mesh.attributes.get(POSITION_ATTRIBUTE)
    if attribute is None or attribute.data_type != 'FLOAT_VECTOR' or attribute.domain != 'POINT':
        if attribute is not None:
            mesh.attributes.remove(attribute)
        attribute = mesh.attributes.new(POSITION_ATTRIBUTE, 'FLOAT_VECTOR', 'POINT')
    attribute.data.foreach_set("vector", np.ascontiguousarray(local, np.float32).ravel())
    mesh.update()


def write_point_values(obj, names, rows):
    """Write float point attributes `names` of the object's mesh, one row (n,) float32 each (mesh.update() is left to
    the caller: write_local_positions)."""
    mesh = obj.data
    for name, row in zip(names, rows):
        attribute = mesh.attributes.get(name)
        if attribute is None or attribute.data_type != 'FLOAT' or attribute.domain != 'POINT':
            if attribute is not None:
                mesh.attributes.remove(attribute)
            attribute = mesh.attributes.new(name, 'FLOAT', 'POINT')
        attribute.data.foreach_set("value", row)


def remove_attributes(mesh, names):
    """Remove the mesh's attributes `names` that exist; returns whether any did."""
    found = False
    for name in names:
        attribute = mesh.attributes.get(name)   # (looked up one at a time: a removal moves the others)
        if attribute is not None:
            mesh.attributes.remove(attribute)
            found = True
    return found


def reset_output(obj):
    """Show the object unsimulated (its own animated shape): drop the output and strain attributes."""
    if remove_attributes(obj.data, (POSITION_ATTRIBUTE,) + STRAIN_ATTRIBUTES):
        obj.data.update()


def read_output(obj):
    """Positions currently in the output attribute (n,3) float32, or None."""
    attribute = obj.data.attributes.get(POSITION_ATTRIBUTE)
    if attribute is None:
        return None
    co = np.empty(len(attribute.data) * 3, np.float32)
    attribute.data.foreach_get("vector", co)
    return co.reshape(-1, 3)


def read_driven(obj, depsgraph):
    """The object's own animated shape at this frame in local space (n,3) float64 (armature, hooks, shape
    keys...: what reaches the output modifier), or None when it cannot be read (modifier missing, or a later
    modifier removes or reorders the vertices while something before SoftFEM deforms them)."""
    mesh = obj.evaluated_get(depsgraph).data
    n = len(obj.data.vertices)
    driven, index = mesh.attributes.get(DRIVEN_ATTRIBUTE), mesh.attributes.get(INDEX_ATTRIBUTE)
    if driven is not None and index is not None and len(driven.data) >= n and len(index.data) >= n:
        order = np.empty(len(index.data), np.int32)
        index.data.foreach_get("value", order)
        # generators after the output modifier (Subdivision, Solidify, Mirror) keep the original vertices first;
        # Bevel and Wireframe do not (read as if they did, a bevelled cube was fitted to its bevel's corners)
        if np.array_equal(order[:n], np.arange(n)):
            co = np.empty(len(driven.data) * 3, np.float32)
            driven.data.foreach_get("vector", co)
            return co[:3 * n].reshape(-1, 3).astype(np.float64)
    if not obj.data.is_editmode and not obj.data.shape_keys and (output_modifier(obj) is None
                                                                 or obj.modifiers[0] == output_modifier(obj)):
        return read_vertices(obj.data)   # nothing deforms it before SoftFEM: its own vertices
    return None
