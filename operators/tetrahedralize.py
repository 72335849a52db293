"""Operator softfem.tetrahedralize: rebuild the cage of the selected soft bodies with their current settings."""
import bpy

from ..addon import readiness, soft_body
from ..addon.report import one_line
from . import polls


class SOFTFEM_OT_tetrahedralize(bpy.types.Operator):
    """Rebuild the tetrahedral cage of the selected soft bodies (mode and resolution)"""
    bl_idname = "softfem.tetrahedralize"
    bl_label = "Tetrahedralize"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return polls.has_body(cls, context)

    def execute(self, context):
        objects = [o for o in (list(context.selected_objects) or [context.object])
                   if o is not None and o.type == 'MESH' and o.softfem.enabled]
        if not objects:
            self.report({'ERROR'}, "No selected SoftFEM body to tetrahedralize")
            return {'CANCELLED'}
        waiting = readiness.require()
        if waiting:
            self.report({'WARNING'}, waiting)
            return {'CANCELLED'}
        done = []
        for obj in objects:
            try:
                tm = soft_body.retetrahedralize(obj)
            except Exception as exc:  # a one-line report, never a traceback
                self.report({'ERROR'}, f"{obj.name}: {one_line(exc)}")
                continue
            done.append(f"{obj.name} ({tm.num_nodes} nodes, {tm.num_tets} tets)")
        if not done:
            return {'CANCELLED'}
        self.report({'INFO'}, "Tetrahedralized: " + ", ".join(done))
        return {'FINISHED'}
