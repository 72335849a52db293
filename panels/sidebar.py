"""The 3D View sidebar tab "SoftFEM": Object, Cage, Field Weights, Solver, Cache and Overlay sections."""
import bpy

from ..addon import colliders, readiness, status
from ..addon.dependencies import ftetwild_found


def _dependency_alert(layout):
    """A missing dependency or a failed preparation (alert), or the solver's preparation progress."""
    problem = readiness.error()
    if problem:
        col = layout.column()
        col.alert = True
        col.label(text=problem, icon='ERROR')
    elif not readiness.ready():
        layout.label(text=readiness.message(), icon='TIME')
    return problem


def _soft_body(context):
    obj = context.object
    return obj if obj is not None and obj.type == 'MESH' and obj.softfem.enabled else None


def draw_object(layout, context):
    """Enable/remove, preset, material, pin and stiffness groups (or collider friction)."""
    _dependency_alert(layout)
    obj = context.object
    if obj is None:
        layout.label(text="Select a mesh object")
        return
    if obj.type == 'MESH' and colliders.is_collider(obj):
        draw_collider(layout, context, obj)
        return
    if obj.type != 'MESH':
        layout.label(text=f"'{obj.name}' is not a mesh")
        return
    s = obj.softfem
    if not s.enabled:
        layout.operator("softfem.add_soft_body", icon='ADD')
        return
    layout.operator("softfem.remove_soft_body", icon='X')
    layout.prop(s, "preset")
    layout.prop(s, "material_model")
    if s.material_model == "MOONEY_RIVLIN":
        col = layout.column(align=True)
        col.alert = s.mooney_rivlin_c10 + s.mooney_rivlin_c01 <= 0.0
        col.prop(s, "mooney_rivlin_c10")
        col.prop(s, "mooney_rivlin_c01")
        if col.alert:
            col.label(text="C10 + C01 must be above 0", icon='ERROR')
    col = layout.column(align=True)
    for name in ("youngs_modulus", "poisson_ratio", "density", "damping", "friction"):
        col.prop(s, name)
    layout.prop_search(s, "pin_group", obj, "vertex_groups")
    if s.pin_group and obj.vertex_groups.get(s.pin_group) is None:
        row = layout.row()
        row.alert = True
        row.label(text=f"Pin group '{s.pin_group}' not found", icon='ERROR')
    if s.pin_group:
        layout.prop(s, "pin_spring")
    layout.prop_search(s, "stiffness_group", obj, "vertex_groups")
    layout.prop(s, "animated")
    layout.prop(s, "self_collision")
    if not s.self_collision:
        layout.label(text="Off by default: costs every step, even unfolded", icon='INFO')
    col = layout.column()
    col.prop(s, "initial_velocity")
    col.prop(s, "initial_angular_velocity")
    layout.prop(s, "output_strain")


def draw_collider(layout, context, obj):
    """A Collision object: whether it collides, its friction and outer thickness (with the gap it leaves)."""
    layout.label(text=f"Collider: {obj.name}", icon='MOD_PHYSICS')
    if not colliders.collides(obj):
        layout.label(text="Not colliding: its Collision checkbox or modifier toggles are off", icon='INFO')
    group = context.scene.softfem.collision_collection
    if group is not None and obj.name not in group.all_objects:
        layout.label(text=f"Not in the Collision Collection '{group.name}'", icon='INFO')
    layout.prop(obj.softfem, "friction")
    layout.prop(obj.collision, "thickness_outer", text="Thickness (m)")
    gap = obj.collision.thickness_outer
    if gap >= 0.001:
        layout.label(text=f"Bodies rest {gap * 1000:.0f} mm off this surface: lower Thickness to close the gap",
                     icon='INFO')


def draw_cage(layout, context):
    """Mode, resolution, Tetrahedralize and the cage's counts."""
    obj = _soft_body(context)
    if obj is None:
        layout.label(text="Select a SoftFEM body")
        return
    s = obj.softfem
    layout.prop(s, "mode")
    layout.prop(s, "resolution", text="Resolution (0: Auto)")
    if s.mode == "CAGE":
        layout.prop(s, "refine_thin")
    if s.mode == "CONFORMING":
        layout.prop(s, "envelope")
        if not ftetwild_found():
            layout.label(text="Conforming needs fTetWild (pytetwild), which is missing; Cage does not", icon='ERROR')
    layout.operator("softfem.tetrahedralize", icon='MESH_ICOSPHERE')
    if s.cage_summary:
        layout.label(text=s.cage_summary)
    if s.cage_thin:
        layout.label(text=s.cage_thin, icon='INFO')
    col = layout.column(align=True)
    col.label(text=f"Nodes: {s.cage_nodes}")
    col.label(text=f"Tets: {s.cage_tets}")
    col.label(text=f"Embedded vertices: {s.cage_embedded}")
    col.label(text=f"Min quality: {s.cage_quality:.3f}")


def draw_fields(layout, context):
    """The body's Effector Weights: which force fields act on it, and its gravity factor."""
    obj = _soft_body(context)
    if obj is None:
        layout.label(text="Select a SoftFEM body")
        return
    w = obj.softfem.effector_weights
    layout.prop(w, "collection")
    col = layout.column(align=True)
    for name in ("gravity", "all", "wind", "force", "vortex", "turbulence"):
        col.prop(w, name)


def draw_solver(layout, context):
    """The scene's solver settings."""
    s = context.scene.softfem
    col = layout.column(align=True)
    row = col.row(align=True)
    row.prop(s, "substeps", text="Substeps (max)" if s.adaptive_substeps else "Substeps")
    row.prop(s, "adaptive_substeps", toggle=True)
    col.prop(s, "integrator")
    col.prop(s, "newton_iterations", text="Newton Iterations (0: Auto)")
    col.prop(s, "cg_iterations")
    fps = context.scene.render.fps / context.scene.render.fps_base
    layout.prop(s, "time_scale")
    step = 1000.0 * s.time_scale / (fps * s.substeps)
    if s.adaptive_substeps:
        layout.label(text=f"Time step: {step:.2f} to {step * s.substeps:.2f} ms")
    else:
        layout.label(text=f"Time step: {step:.2f} ms")
    layout.prop(s, "collision_collection")


def draw_cache(layout, context):
    """Cache status (frames, outdated, baked, problems) and Bake / Free Bake / Bake to Mesh Cache."""
    scene = context.scene
    layout.prop(scene.softfem, "cache_directory")
    layout.prop(scene.softfem, "use_frame_range")
    if scene.softfem.use_frame_range:
        col = layout.column(align=True)
        col.prop(scene.softfem, "frame_start")
        col.prop(scene.softfem, "frame_end")
        if scene.softfem.frame_start < scene.frame_start:
            layout.label(text=f"Pre-roll from frame {scene.softfem.frame_start}: Bake to simulate it", icon='INFO')
    st = status.cache_status(scene)
    if st["baked"]:
        layout.label(text=f"Baked: frames {st['first']}-{st['last']}", icon='LOCKED')
    elif st["frames"]:
        layout.label(text=f"{st['frames']} frames cached ({st['first']}-{st['last']})", icon='FILE_CACHE')
    else:
        layout.label(text="Nothing cached yet", icon='FILE_CACHE')
    if st["outdated"]:
        row = layout.row()
        row.alert = True
        row.label(text="Cache outdated: " + ("Free Bake to re-simulate" if st["baked"]
                                             else "play from the start frame to re-simulate"), icon='ERROR')
    if st["error"]:
        row = layout.row()
        row.alert = True
        row.label(text=st["error"], icon='ERROR')
    for warning in st["warnings"][-3:]:
        layout.label(text=warning, icon='INFO')
    if st["hint"]:
        layout.label(text=st["hint"], icon='INFO')
    row = layout.row(align=True)
    if st["baked"]:
        row.operator("softfem.free_bake", icon='TRASH')
    else:
        row.operator("softfem.bake", icon='RENDER_ANIMATION')
        row.operator("softfem.free_bake", text="Free Cache", icon='TRASH')
    layout.operator("softfem.bake_to_mesh_cache", icon='EXPORT')


def draw_overlay(layout, context):
    """The viewport overlay: the cages, pinned nodes and contacts, optionally coloured by tet quality."""
    s = context.scene.softfem
    layout.prop(s, "show_overlay")
    row = layout.row()
    row.enabled = s.show_overlay
    row.prop(s, "overlay_quality")


class _SoftFEMPanel:
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "SoftFEM"


class VIEW3D_PT_softfem(_SoftFEMPanel, bpy.types.Panel):
    """SoftFEM soft bodies"""
    bl_label = "SoftFEM"

    def draw(self, context):
        draw_object(self.layout, context)


class VIEW3D_PT_softfem_cage(_SoftFEMPanel, bpy.types.Panel):
    """The soft body's tetrahedral cage"""
    bl_label = "Cage"
    bl_parent_id = "VIEW3D_PT_softfem"

    def draw(self, context):
        draw_cage(self.layout, context)


class VIEW3D_PT_softfem_fields(_SoftFEMPanel, bpy.types.Panel):
    """Force fields acting on the SoftFEM body"""
    bl_label = "Field Weights"
    bl_parent_id = "VIEW3D_PT_softfem"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        draw_fields(self.layout, context)


class VIEW3D_PT_softfem_solver(_SoftFEMPanel, bpy.types.Panel):
    """Solver settings of the scene"""
    bl_label = "Solver"
    bl_parent_id = "VIEW3D_PT_softfem"

    def draw(self, context):
        draw_solver(self.layout, context)


class VIEW3D_PT_softfem_cache(_SoftFEMPanel, bpy.types.Panel):
    """The scene's simulation cache"""
    bl_label = "Cache"
    bl_parent_id = "VIEW3D_PT_softfem"

    def draw(self, context):
        draw_cache(self.layout, context)


class VIEW3D_PT_softfem_overlay(_SoftFEMPanel, bpy.types.Panel):
    """The soft bodies' cages and contacts drawn in the viewport"""
    bl_label = "Overlay"
    bl_parent_id = "VIEW3D_PT_softfem"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        draw_overlay(self.layout, context)


CLASSES = (VIEW3D_PT_softfem, VIEW3D_PT_softfem_cage, VIEW3D_PT_softfem_fields, VIEW3D_PT_softfem_solver,
           VIEW3D_PT_softfem_cache, VIEW3D_PT_softfem_overlay)
