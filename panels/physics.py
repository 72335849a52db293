"""Properties editor > Physics: a "SoftFEM" button beside Blender's physics types, and the SoftFEM panels."""
import bpy

from . import sidebar


def draw_physics_button(self, context):
    """Appended to Blender's PHYSICS_PT_add: toggles SoftFEM as Blender's own physics buttons do."""
    obj = context.object
    if obj is None or obj.type != 'MESH':
        return
    row = self.layout.row(align=True)
    if obj.softfem.enabled:
        row.operator("softfem.remove_soft_body", text="SoftFEM", icon='X')
    else:
        row.operator("softfem.add_soft_body", text="SoftFEM", icon='MOD_SOFT')


def _split(layout):
    """Labels left, fields right: the layout of Blender's own physics panels."""
    layout.use_property_split = True
    return layout


class _PhysicsPanel:
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "physics"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'MESH' and obj.softfem.enabled



class PHYSICS_PT_softfem(_PhysicsPanel, bpy.types.Panel):
    """SoftFEM volumetric body: material, pins and stiffness (or a collider's friction)"""
    bl_label = "SoftFEM"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'MESH'

    def draw(self, context):
        sidebar.draw_object(_split(self.layout), context)


class PHYSICS_PT_softfem_cage(_PhysicsPanel, bpy.types.Panel):
    """The SoftFEM body's tetrahedral cage"""
    bl_label = "Cage"
    bl_parent_id = "PHYSICS_PT_softfem"

    def draw(self, context):
        sidebar.draw_cage(_split(self.layout), context)


class PHYSICS_PT_softfem_fields(_PhysicsPanel, bpy.types.Panel):
    """Force fields acting on the SoftFEM body"""
    bl_label = "Field Weights"
    bl_parent_id = "PHYSICS_PT_softfem"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        sidebar.draw_fields(_split(self.layout), context)


class PHYSICS_PT_softfem_solver(_PhysicsPanel, bpy.types.Panel):
    """Solver settings of the scene"""
    bl_label = "Solver"
    bl_parent_id = "PHYSICS_PT_softfem"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        sidebar.draw_solver(_split(self.layout), context)


class PHYSICS_PT_softfem_cache(_PhysicsPanel, bpy.types.Panel):
    """The scene's simulation cache"""
    bl_label = "Cache"
    bl_parent_id = "PHYSICS_PT_softfem"

    def draw(self, context):
        sidebar.draw_cache(_split(self.layout), context)


CLASSES = (PHYSICS_PT_softfem, PHYSICS_PT_softfem_cage, PHYSICS_PT_softfem_fields, PHYSICS_PT_softfem_solver,
           PHYSICS_PT_softfem_cache)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.PHYSICS_PT_add.append(draw_physics_button)


def unregister():
    bpy.types.PHYSICS_PT_add.remove(draw_physics_button)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
