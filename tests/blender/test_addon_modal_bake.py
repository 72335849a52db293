"""The modal bake (UI path) driven with stand-in timer/Esc events: progress, status line, cancel, finish."""
from types import SimpleNamespace

from addon_testing import add_ico


class WindowManager:
    """Records progress calls (the real one needs a window)."""

    def __init__(self):
        self.progress = []
        self.ended = False
        self.timers = set()

    def progress_begin(self, lo, hi):
        self.progress.append(("begin", lo, hi))

    def progress_update(self, value):
        self.progress.append(("update", value))

    def progress_end(self):
        self.ended = True

    def event_timer_add(self, seconds, window=None):
        timer = SimpleNamespace(seconds=seconds)
        self.timers.add(id(timer))
        return timer

    def event_timer_remove(self, timer):
        self.timers.remove(id(timer))


class Workspace:
    """Records the status line."""

    def __init__(self):
        self.status = []

    def status_text_set(self, text):
        self.status.append(text)


def start(softfem, bpy):
    """A stand-in operator instance in the state invoke() leaves, and its context."""
    op_class = softfem.operators.SOFTFEM_OT_bake
    scene = bpy.context.scene
    reports = []
    wm = WindowManager()
    op = SimpleNamespace(_frame=scene.frame_start, _start=scene.frame_start, _end_frame=scene.frame_end, _started=0.0,
                          _timer=wm.event_timer_add(op_class.TIMER_SECONDS),
                         report=lambda kind, text: reports.append((kind, text)), NAVIGATION=op_class.NAVIGATION)
    op._end = lambda context: op_class._end(op, context)
    context = SimpleNamespace(scene=scene, window_manager=wm, workspace=Workspace())
    return op_class, op, context, reports


def sess_frames(softfem, scene):
    return softfem.addon.session.existing(scene).cached_frames()


def test_modal_bake_cancel_leaves_no_timer(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 5
    ball = add_ico(bpy, subdivisions=1)
    ball.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    op_class, op, context, _reports = start(softfem, bpy)
    assert op_class.TIMER_SECONDS >= 0.01
    assert op_class.modal(op, context, SimpleNamespace(type='TIMER')) == {'RUNNING_MODAL'}
    assert len(context.window_manager.timers) == 1
    op_class.cancel(op, context)   # what Blender calls when the file is closed mid-bake
    assert context.window_manager.timers == set() and op._timer is None
    assert context.window_manager.ended and context.workspace.status[-1] is None
    op_class.cancel(op, context)   # twice is harmless


def test_modal_bake_progress_cancel_and_finish(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 5
    ball = add_ico(bpy, subdivisions=1)
    ball.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    op_class, op, context, reports = start(softfem, bpy)
    timer = SimpleNamespace(type='TIMER')
    for _ in range(3):
        assert op_class.modal(op, context, timer) == {'RUNNING_MODAL'}
    assert op_class.modal(op, context, SimpleNamespace(type='MOUSEMOVE')) == {'PASS_THROUGH'}
    assert op_class.modal(op, context, SimpleNamespace(type='WHEELUPMOUSE')) == {'PASS_THROUGH'}
    for edit in ('Z', 'LEFT_ARROW', 'LEFTMOUSE', 'G', 'DEL', 'SPACE'):  # Ctrl-Z, scrubbing, edits, play
        assert op_class.modal(op, context, SimpleNamespace(type=edit)) == {'RUNNING_MODAL'}, edit
    assert sess_frames(softfem, scene) == [1, 2, 3]
    assert op_class.modal(op, context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
    assert context.window_manager.timers == set()
    assert reports[-1][0] == {'WARNING'} and "cancelled at frame 4" in reports[-1][1]
    assert context.window_manager.ended and context.workspace.status[-1] is None
    status = context.workspace.status[-2]
    assert status.startswith("SoftFEM bake: frame 3/5") and "frames/s" in status and "s left" in status
    assert ("update", 3) in context.window_manager.progress
    sess = softfem.addon.session.existing(scene)
    assert sess.cached_frames() == [1, 2, 3] and not scene.softfem.baked  # what was simulated stays cached

    op_class, op, context, reports = start(softfem, bpy)
    results = [op_class.modal(op, context, timer) for _ in range(5)]
    assert results[-1] == {'FINISHED'} and results[:-1] == [{'RUNNING_MODAL'}] * 4
    assert scene.softfem.baked and sess.cached_frames() == [1, 2, 3, 4, 5]
    assert reports[-1] == ({'INFO'}, "Baked frames 1-5")
