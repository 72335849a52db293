"""Operator softfem.bake: simulate the scene's frame range (modal with progress in the UI, blocking otherwise)."""
import time

import bpy

from ..addon import baking, readiness
from ..addon.report import one_line


class SOFTFEM_OT_bake(bpy.types.Operator):
    """Simulate every soft body over the scene's frame range and protect the cache (Esc cancels)"""
    bl_idname = "softfem.bake"
    bl_label = "Bake"
    bl_options = {'REGISTER'}

    _timer = None

    def execute(self, context):
        scene = context.scene
        waiting = readiness.require()
        if waiting:
            self.report({'WARNING'}, waiting)
            return {'CANCELLED'}
        try:
            baking.check_bakeable(scene)
            for frame in range(scene.frame_start, scene.frame_end + 1):
                baking.bake_step(scene, frame)
        except Exception as exc:  # a one-line report, never a traceback
            self.report({'ERROR'}, f"Bake stopped: {one_line(exc)}")
            return {'CANCELLED'}
        baking.finish_bake(scene)
        self.report({'INFO'}, f"Baked frames {scene.frame_start}-{scene.frame_end}")
        return {'FINISHED'}

    def invoke(self, context, _event):
        if bpy.app.background or context.window is None:
            return self.execute(context)
        waiting = readiness.require()
        if waiting:
            self.report({'WARNING'}, waiting)
            return {'CANCELLED'}
        try:
            baking.check_bakeable(context.scene)
        except Exception as exc:  # a one-line report, never a traceback
            self.report({'ERROR'}, f"Bake: {one_line(exc)}")
            return {'CANCELLED'}
        scene = context.scene
        self._frame = scene.frame_start
        self._started = time.perf_counter()
        wm = context.window_manager
        wm.progress_begin(scene.frame_start, scene.frame_end)
        self._timer = wm.event_timer_add(0.001, window=context.window)
        wm.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def modal(self, context, event):
        scene = context.scene
        if event.type == 'ESC':
            self._end(context)
            self.report({'WARNING'}, f"Bake cancelled at frame {self._frame}: simulated frames stay cached")
            return {'CANCELLED'}
        if event.type != 'TIMER':
            return {'PASS_THROUGH'}
        try:
            baking.bake_step(scene, self._frame)
        except Exception as exc:  # a one-line report, never a traceback
            self._end(context)
            self.report({'ERROR'}, f"Bake stopped: {one_line(exc)}")
            return {'CANCELLED'}
        done = self._frame - scene.frame_start + 1
        total = scene.frame_end - scene.frame_start + 1
        rate = done / max(time.perf_counter() - self._started, 1e-9)
        context.window_manager.progress_update(self._frame)
        context.workspace.status_text_set(
            f"SoftFEM bake: frame {self._frame}/{scene.frame_end}, {rate:.1f} frames/s, "
            f"{(total - done) / rate:.0f} s left (Esc cancels)")
        if self._frame >= scene.frame_end:
            self._end(context)
            baking.finish_bake(scene)
            self.report({'INFO'}, f"Baked frames {scene.frame_start}-{scene.frame_end}")
            return {'FINISHED'}
        self._frame += 1
        return {'RUNNING_MODAL'}

    def _end(self, context):
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        context.workspace.status_text_set(None)
