"""SoftFEM panels: Properties > Physics and the 3D View sidebar tab; registration of their classes."""
import bpy

from . import physics
from .sidebar import CLASSES


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    physics.register()


def unregister():
    physics.unregister()
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
