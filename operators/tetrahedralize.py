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

    time_limit: bpy.props.FloatProperty(name="Time Limit", default=0.0, min=0.0, options={'HIDDEN', 'SKIP_SAVE'},
                                        description="Seconds fTetWild may take (0: the default, 120 s)")

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
        wm = context.window_manager
        for obj in objects:
            # conforming mode runs fTetWild (seconds to minutes): the progress cursor counts its seconds
            wm.progress_begin(0, 9999)
            try:
                tm = soft_body.retetrahedralize(obj, progress=lambda seconds: wm.progress_update(int(seconds)),
                                                time_limit=self.time_limit or None)
            except Exception as exc:  # a one-line report, never a traceback; the object keeps its cage
                self.report({'ERROR'}, f"{obj.name}: {one_line(exc)}")
                continue
            finally:
                wm.progress_end()
            done.append(f"{obj.name} ({obj.softfem.cage_summary})")
        if not done:
            return {'CANCELLED'}
        self.report({'INFO'}, "Tetrahedralized: " + ", ".join(done))
        return {'FINISHED'}
