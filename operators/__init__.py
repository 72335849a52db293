"""SoftFEM operators: one module per user action; registration of their classes."""
import bpy

from .add_soft_body import SOFTFEM_OT_add_soft_body
from .bake import SOFTFEM_OT_bake
from .bake_to_mesh_cache import SOFTFEM_OT_bake_to_mesh_cache
from .free_bake import SOFTFEM_OT_free_bake
from .remove_soft_body import SOFTFEM_OT_remove_soft_body
from .tetrahedralize import SOFTFEM_OT_tetrahedralize

CLASSES = (SOFTFEM_OT_add_soft_body, SOFTFEM_OT_remove_soft_body, SOFTFEM_OT_tetrahedralize,
           SOFTFEM_OT_bake, SOFTFEM_OT_free_bake, SOFTFEM_OT_bake_to_mesh_cache)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
