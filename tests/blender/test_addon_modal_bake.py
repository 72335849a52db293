"""The modal bake (UI path) driven with stand-in timer/Esc events: progress, status line, cancel, finish."""
from types import SimpleNamespace

from addon_testing import add_ico


class WindowManager:
    """Records progress calls (the real one needs a window)."""

    def __init__(self):
        self.progress = []
        self.ended = False

    def progress_begin(self, lo, hi):
        self.progress.append(("begin", lo, hi))

    def progress_update(self, value):
        self.progress.append(("update", value))

    def progress_end(self):
        self.ended = True

    def event_timer_remove(self, _timer):
        pass


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
    op = SimpleNamespace(_frame=scene.frame_start, _started=0.0, _timer=None,
                         report=lambda kind, text: reports.append((kind, text)))
    op._end = lambda context: op_class._end(op, context)
    context = SimpleNamespace(scene=scene, window_manager=WindowManager(), workspace=Workspace())
    return op_class, op, context, reports


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
    assert op_class.modal(op, context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
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
