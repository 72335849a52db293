"""Operator softfem.bake: simulate the scene's frame range (modal with progress in the UI, blocking otherwise)."""
import time

import bpy

from ..addon import baking, readiness, scene_settings
from ..addon.report import one_line
from . import polls


class SOFTFEM_OT_bake(bpy.types.Operator):
    """Simulate every soft body over the scene's frame range and protect the cache (Esc cancels)"""
    bl_idname = "softfem.bake"
    bl_label = "Bake"
    bl_options = {'REGISTER'}

    @classmethod
    def poll(cls, context):
        return polls.scene_ready(cls, context)

    _timer = None
    # A bake step per tick: the frames come as fast as they simulate, and the UI still redraws between them.
    TIMER_SECONDS = 0.02
    # What the user may still do while the bake runs: look around the viewport. Everything else (Ctrl-Z,
    # scrubbing, edits) would change the scene under the bake, so the modal handler swallows it.
    NAVIGATION = {'MOUSEMOVE', 'INBETWEEN_MOUSEMOVE', 'MIDDLEMOUSE', 'WHEELUPMOUSE', 'WHEELDOWNMOUSE',
                  'WHEELINMOUSE', 'WHEELOUTMOUSE', 'WHEELLEFTMOUSE', 'WHEELRIGHTMOUSE', 'TRACKPADPAN',
                  'TRACKPADZOOM', 'MOUSEROTATE', 'MOUSESMARTZOOM', 'NDOF_MOTION', 'WINDOW_DEACTIVATE',
                  'TIMER0', 'TIMER1', 'TIMER2', 'TIMER_JOBS', 'TIMER_AUTOSAVE', 'TIMER_REPORT', 'TIMERREGION'}

    def execute(self, context):
        scene = context.scene
        waiting = readiness.require()
        if waiting:
            self.report({'WARNING'}, waiting)
            return {'CANCELLED'}
        try:
            baking.check_bakeable(scene)
            start, end = scene_settings.frame_range(scene)
            for frame in range(start, end + 1):
                baking.bake_step(scene, frame)
        except Exception as exc:  # a one-line report, never a traceback
            self.report({'ERROR'}, f"Bake stopped: {one_line(exc)}")
            return {'CANCELLED'}
        baking.finish_bake(scene)
        self.report({'INFO'}, f"Baked frames {start}-{end}")
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
        self._start, self._end_frame = scene_settings.frame_range(scene)
        self._frame = self._start
        self._started = time.perf_counter()
        wm = context.window_manager
        wm.progress_begin(self._start, self._end_frame)
        self._timer = wm.event_timer_add(self.TIMER_SECONDS, window=context.window)
        wm.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def modal(self, context, event):
        scene = context.scene
        if event.type == 'ESC':
            self._end(context)
            self.report({'WARNING'}, f"Bake cancelled at frame {self._frame}: simulated frames stay cached")
            return {'CANCELLED'}
        if event.type != 'TIMER':
            return {'PASS_THROUGH'} if event.type in self.NAVIGATION else {'RUNNING_MODAL'}
        try:
            baking.bake_step(scene, self._frame)
        except Exception as exc:  # a one-line report, never a traceback
            self._end(context)
            self.report({'ERROR'}, f"Bake stopped: {one_line(exc)}")
            return {'CANCELLED'}
        done = self._frame - self._start + 1
        total = self._end_frame - self._start + 1
        rate = done / max(time.perf_counter() - self._started, 1e-9)
        context.window_manager.progress_update(self._frame)
        context.workspace.status_text_set(
            f"SoftFEM bake: frame {self._frame}/{self._end_frame}, {rate:.1f} frames/s, "
            f"{(total - done) / rate:.0f} s left (Esc cancels)")
        if self._frame >= self._end_frame:
            self._end(context)
            baking.finish_bake(scene)
            self.report({'INFO'}, f"Baked frames {self._start}-{self._end_frame}")
            return {'FINISHED'}
        self._frame += 1
        return {'RUNNING_MODAL'}

    def cancel(self, context):
        """Blender ends the operator (file closed or new, window closed): remove the timer and progress."""
        self._end(context)

    def _end(self, context):
        wm = context.window_manager
        if self._timer is not None:
            wm.event_timer_remove(self._timer)
            self._timer = None
        wm.progress_end()
        if context.workspace is not None:
            context.workspace.status_text_set(None)
