"""SoftFEM add-on glue: numba's cache folder first, then property groups and handlers."""
from . import dependencies

dependencies.configure_numba_cache()

from . import handlers, properties  # noqa: E402  (after the numba cache folder is set)


def register():
    properties.register()
    handlers.register()


def unregister():
    handlers.unregister()
    properties.unregister()
