"""SoftFEM extension entry point: register() and unregister() only."""
from . import addon, operators, panels

_PARTS = (addon, operators, panels)


def register():
    for part in _PARTS:
        part.register()


def unregister():
    for part in reversed(_PARTS):
        part.unregister()
