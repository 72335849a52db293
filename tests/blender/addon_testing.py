"""Helpers the add-on tests share: enabling the source checkout as the extension, test objects."""
import os
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE = "bl_ext.user_default.softfem"


def link_and_enable():
    """Link the source checkout as the user_default extension 'softfem' and enable it."""
    import addon_utils
    import bpy
    extensions = bpy.utils.user_resource('EXTENSIONS', path="user_default", create=True)
    link = os.path.join(extensions, "softfem")
    if os.path.realpath(link) != os.path.realpath(REPO):
        if os.path.islink(link):
            os.remove(link)
        os.symlink(REPO, link)
    addon_utils.enable(MODULE, default_set=True, handle_error=None)
    return sys.modules[MODULE]


def add_ico(bpy, location=(0.0, 0.0, 2.0), subdivisions=2, radius=0.5, name="Ball"):
    """An icosphere mesh object, selected and active."""
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=subdivisions, radius=radius, location=location)
    obj = bpy.context.active_object
    obj.name = name
    return obj


def coarse_ball(bpy, name="Ball", modifier=None, **ico):
    """A soft body (icosphere of 1 subdivision, resolution 4), with a modifier of type `modifier` added before."""
    obj = add_ico(bpy, subdivisions=1, name=name, **ico)
    if modifier is not None:
        obj.modifiers.new(modifier.title(), modifier)
    obj.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    return obj


def evaluated_local(bpy, obj):
    """Object-space positions of the object's evaluated mesh (what renders)."""
    ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = ev.to_mesh()
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    ev.to_mesh_clear()
    return co.reshape(-1, 3)


def evaluated_world(bpy, obj):
    """World positions of the object's evaluated mesh (what renders)."""
    m = np.array(obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).matrix_world)
    return evaluated_local(bpy, obj) @ m[:3, :3].T + m[:3, 3]


def add_rubber_cube(bpy, floor=True, name="Rubber"):
    """A 0.2 m cube, 5 cm above a Collision plane if `floor`, made a soft body with the Rubber preset and a cage of
    resolution 8 (3,641 tets; stiffness number E Δt² / (ρ h²) = 428 at the default 4 substeps: the add-on solves it
    with multigrid)."""
    if floor:
        bpy.ops.mesh.primitive_plane_add(size=4.0)
        bpy.context.active_object.modifiers.new("Collision", 'COLLISION')
    bpy.ops.mesh.primitive_cube_add(size=0.2, location=(0.0, 0.0, 0.15))
    obj = bpy.context.active_object
    obj.name = name
    obj.softfem.resolution = 8
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    obj.softfem.preset = 'RUBBER'
    return obj
