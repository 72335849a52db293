"""Operator softfem.add_soft_body: tetrahedralize the selected meshes and make them soft bodies."""
import bpy

from ..addon import readiness, soft_body
from ..addon.report import one_line
from . import polls


class SOFTFEM_OT_add_soft_body(bpy.types.Operator):
    """Tetrahedralize the selected mesh objects and simulate them as SoftFEM soft bodies"""
    bl_idname = "softfem.add_soft_body"
    bl_label = "Add SoftFEM"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return polls.can_add(cls, context)

    def execute(self, context):
        objects = list(context.selected_objects) or ([context.object] if context.object else [])
        if not objects:
            self.report({'ERROR'}, "Select a mesh object to make it a SoftFEM body")
            return {'CANCELLED'}
        added, deferred, refused = [], [], []
        for obj in objects:
            if obj.softfem.enabled:
                self.report({'INFO'}, f"'{obj.name}' is already a SoftFEM body")
                continue
            try:
                tm = soft_body.add(obj)
            except Exception as exc:  # a one-line report, never a traceback
                refused.append(f"{obj.name}: {one_line(exc)}")
                continue
            if tm is None:
                deferred.append(obj.name)
            else:
                added.append(f"{obj.name} ({tm.num_nodes} nodes, {tm.num_tets} tets)")
        # an error only when nothing became a soft body: a script then sees the failure, and the objects that were
        # added (a mesh selected with a curve) are not reported as one
        for reason in refused:
            self.report({'WARNING'} if added or deferred else {'ERROR'}, reason)
        if not added and not deferred:
            return {'CANCELLED'}
        # Frame handlers write meshes during renders: the render must not read them concurrently.
        context.scene.render.use_lock_interface = True
        # The simulation keeps its own frame range from here on, as Blender's point caches do: changing the scene's
        # range (to render a few frames, or a farm's -s/-e) neither moves its start nor drops what was simulated.
        if not context.scene.softfem.use_frame_range:
            context.scene.softfem.use_frame_range = True   # (taking the scene's range: properties._frame_range_toggled)
        if added:
            self.report({'INFO'}, "Soft body added: " + ", ".join(added))
        if deferred:
            self.report({'INFO'}, f"Soft body added: {', '.join(deferred)}. {readiness.message()}: "
                                  "it is tetrahedralized and simulated once the solver is ready")
        return {'FINISHED'}
