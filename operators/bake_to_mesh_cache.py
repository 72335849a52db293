"""Operator softfem.bake_to_mesh_cache: write a PC2 per soft body and add a Mesh Cache modifier reading it."""
import bpy

from ..addon import baking, readiness
from ..addon.report import one_line
from . import polls


class SOFTFEM_OT_bake_to_mesh_cache(bpy.types.Operator):
    """Export the simulated frames of the selected soft bodies to PC2 files played by a Mesh Cache modifier
    (renders without SoftFEM installed)"""
    bl_idname = "softfem.bake_to_mesh_cache"
    bl_label = "Bake to Mesh Cache"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return polls.has_body(cls, context)

    def execute(self, context):
        waiting = readiness.require()
        if waiting:
            self.report({'WARNING'}, waiting)
            return {'CANCELLED'}
        objects = list(context.selected_objects) or ([context.object] if context.object else [])
        try:
            paths = baking.export_mesh_cache(context.scene, objects)
        except Exception as exc:  # a one-line report, never a traceback
            self.report({'ERROR'}, f"Bake to Mesh Cache failed: {one_line(exc)}")
            return {'CANCELLED'}
        self.report({'INFO'}, f"Wrote {len(paths)} PC2 file(s): " + ", ".join(paths))
        return {'FINISHED'}
