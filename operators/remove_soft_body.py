"""Operator softfem.remove_soft_body: stop simulating the selected objects and restore their meshes exactly."""
import bpy

from . import polls
from ..addon import soft_body


class SOFTFEM_OT_remove_soft_body(bpy.types.Operator):
    """Remove SoftFEM from the selected objects; their meshes come back exactly as before"""
    bl_idname = "softfem.remove_soft_body"
    bl_label = "Remove SoftFEM"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return polls.has_body(cls, context)

    def execute(self, context):
        objects = [o for o in (list(context.selected_objects) or [context.object])
                   if o is not None and o.type == 'MESH' and o.softfem.enabled]
        if not objects:
            self.report({'ERROR'}, "No selected SoftFEM body to remove")
            return {'CANCELLED'}
        for obj in objects:
            soft_body.remove(obj)
        self.report({'INFO'}, "Soft body removed: " + ", ".join(o.name for o in objects))
        return {'FINISHED'}
