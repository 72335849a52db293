"""Material: physical parameters of a soft body (SI units) and their Lamé parameters."""
import math
import warnings

from .errors import InvalidInputError

# Above this Poisson ratio linear tetrahedra lock (artificially stiff in bending / nearly incompressible).
LOCKING_POISSON_RATIO = 0.45


def _finite(name, value):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(value):
        raise InvalidInputError(f"{name} must be finite, got {value}")
    return value


class Material:
    """Corotated linear material: Young's modulus (Pa), Poisson ratio, density (kg/m³),
    Rayleigh damping (`damping_mass` α in 1/s, `damping_stiffness` β in s) and Coulomb friction.

    Raises InvalidInputError for ν ≥ 0.5 or ν ≤ −1, E ≤ 0, density ≤ 0, negative damping or
    friction; warns when ν > 0.45 (linear tets lock)."""

    def __init__(self, youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0,
                 damping_mass=0.0, damping_stiffness=0.0, friction=0.5):
        self.youngs_modulus = _finite("youngs_modulus", youngs_modulus)
        self.poisson_ratio = _finite("poisson_ratio", poisson_ratio)
        self.density = _finite("density", density)
        self.damping_mass = _finite("damping_mass", damping_mass)
        self.damping_stiffness = _finite("damping_stiffness", damping_stiffness)
        self.friction = _finite("friction", friction)
        if self.youngs_modulus <= 0:
            raise InvalidInputError(f"youngs_modulus must be > 0 Pa, got {self.youngs_modulus}")
        if not -1.0 < self.poisson_ratio < 0.5:
            raise InvalidInputError(f"poisson_ratio must be in (-1, 0.5), got {self.poisson_ratio}")
        if self.density <= 0:
            raise InvalidInputError(f"density must be > 0 kg/m³, got {self.density}")
        for name in ("damping_mass", "damping_stiffness", "friction"):
            if getattr(self, name) < 0:
                raise InvalidInputError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.poisson_ratio > LOCKING_POISSON_RATIO:
            warnings.warn(f"poisson_ratio {self.poisson_ratio} > {LOCKING_POISSON_RATIO}: "
                          "linear tetrahedra lock (the body behaves stiffer than E says)",
                          stacklevel=2)

    @property
    def lame(self):
        """(λ, μ) = (Eν/((1+ν)(1−2ν)), E/(2(1+ν)))."""
        E, nu = self.youngs_modulus, self.poisson_ratio
        return E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))

    def __repr__(self):
        return (f"Material(youngs_modulus={self.youngs_modulus}, poisson_ratio={self.poisson_ratio}, "
                f"density={self.density}, damping_mass={self.damping_mass}, "
                f"damping_stiffness={self.damping_stiffness}, friction={self.friction})")
