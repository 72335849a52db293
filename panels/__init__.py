"""SoftFEM panels: registration of this package's classes."""


def register():
    pass


def unregister():
    pass
