"""Placeholder until the tetrahedralization work lands (replaced by its owner)."""


def tetrahedralize(*args, **kwargs):
    raise NotImplementedError("core.tetrahedralize is not implemented yet")
