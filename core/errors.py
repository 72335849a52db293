"""Exceptions the simulator raises: one base class so callers (the add-on) can catch them all."""


class SoftFEMError(Exception):
    """Base class of every error SoftFEM raises on purpose."""


class InvalidInputError(SoftFEMError, ValueError):
    """Input data (mesh, material, settings) that cannot be simulated; the message names the problem."""


class SimulationDiverged(SoftFEMError):
    """A step produced NaN/inf; the bodies keep the State they had before the step."""
