"""SoftFEM panels: the 3D View sidebar tab; registration of its classes."""
import bpy

from .sidebar import CLASSES


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
