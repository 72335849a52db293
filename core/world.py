"""Placeholder until the simulator-core work lands (replaced by its owner)."""


class SolverSettings:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("core.SolverSettings is not implemented yet")


class World:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("core.World is not implemented yet")
