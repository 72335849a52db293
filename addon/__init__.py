"""SoftFEM add-on glue: numba's cache folder first, then property groups, handlers and the solver's preparation."""
from . import dependencies

dependencies.configure_numba_cache()

from . import handlers, overlay, properties, readiness  # noqa: E402  (after the numba cache folder is set)


def register():
    properties.register()
    handlers.register()
    overlay.sync()   # enabled in an open file whose scene shows the cage overlay
    readiness.start()


def unregister():
    readiness.stop_showing()
    handlers.unregister()
    properties.unregister()
