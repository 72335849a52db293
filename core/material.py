"""Placeholder until the simulator-core work lands (replaced by its owner)."""


class Material:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("core.Material is not implemented yet")
