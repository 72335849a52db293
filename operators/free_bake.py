"""Operator softfem.free_bake: unprotect the scene's cache and delete the files SoftFEM wrote."""
import bpy

from ..addon import baking
from ..addon.report import one_line
from . import polls


class SOFTFEM_OT_free_bake(bpy.types.Operator):
    """Free the baked cache of the scene (deletes only SoftFEM's own cache files)"""
    bl_idname = "softfem.free_bake"
    bl_label = "Free Bake"
    bl_options = {'REGISTER'}

    @classmethod
    def poll(cls, context):
        return polls.scene_ready(cls, context)

    def execute(self, context):
        try:
            removed = baking.free_bake(context.scene)
        except Exception as exc:  # a one-line report, never a traceback
            self.report({'ERROR'}, f"Could not delete the cache files: {one_line(exc)}")
            return {'CANCELLED'}
        context.scene.frame_set(context.scene.frame_current)  # show the frame without the freed cache
        self.report({'INFO'}, f"Cache freed ({removed} files deleted)")
        return {'FINISHED'}
