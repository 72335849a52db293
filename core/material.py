"""Material: physical parameters of a soft body (SI units) and their Lamé parameters."""
import math
import warnings

from .errors import InvalidInputError
from .fem.materials import COROTATED, MODELS, MOONEY_RIVLIN

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
    """Material of a soft body: Young's modulus (Pa), Poisson ratio, density (kg/m³),
    Rayleigh damping (`damping_mass` α in 1/s, `damping_stiffness` β in s), Coulomb friction and the
    constitutive `model`: "corotated" (linear corotated, DAPD; the default), "stvk" (St Venant–Kirchhoff),
    "neo_hookean" or "mooney_rivlin". E and ν give the Lamé parameters of the first three; Mooney–Rivlin takes
    `mooney_rivlin_c10`, `mooney_rivlin_c01` (Pa; both omitted: μ/4 each, so its small-strain shear modulus
    2(c₁₀ + c₀₁) is E's; one omitted: 0) and its bulk term v₁(J − 1)² from E and ν (v₁ = κ/2, κ = E/(3(1 − 2ν))).

    Raises InvalidInputError for ν ≥ 0.5 or ν ≤ −1, E ≤ 0, density ≤ 0, negative damping or
    friction, an unknown model, a negative Mooney–Rivlin coefficient or c₁₀ + c₀₁ = 0; warns when ν > 0.45
    (linear tets lock)."""

    def __init__(self, youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0,
                 damping_mass=0.0, damping_stiffness=0.0, friction=0.5, model="corotated",
                 mooney_rivlin_c01=None, mooney_rivlin_c10=None):
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
        if model not in MODELS:
            raise InvalidInputError(f"model must be one of {MODELS}, got {model!r}")
        self.model = model
        self.mooney_rivlin_c01, self.mooney_rivlin_c10 = _mooney_rivlin(mooney_rivlin_c01, mooney_rivlin_c10,
                                                                         self.lame[1])
        if self.poisson_ratio > LOCKING_POISSON_RATIO:
            warnings.warn(f"poisson_ratio {self.poisson_ratio} > {LOCKING_POISSON_RATIO}: "
                          "linear tetrahedra lock (the body behaves stiffer than E says)",
                          stacklevel=2)

    @property
    def lame(self):
        """(λ, μ) = (Eν/((1+ν)(1−2ν)), E/(2(1+ν)))."""
        E, nu = self.youngs_modulus, self.poisson_ratio
        return E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))

    @property
    def shear_modulus(self):
        """The small-strain shear modulus (Pa): μ of E and ν, or 2(c₁₀ + c₀₁) for Mooney–Rivlin."""
        if self.model_code == MOONEY_RIVLIN:
            return 2.0 * (self.mooney_rivlin_c10 + self.mooney_rivlin_c01)
        return self.lame[1]

    @property
    def model_code(self):
        """Index of `model` in core.fem.materials.MODELS (0: corotated)."""
        return MODELS.index(self.model)

    @property
    def energy_coefficients(self):
        """The hyperelastic energy's three coefficients per unit volume (Pa): (μ, λ, 0) for StVK and neo-Hookean,
        (c₀₁, c₁₀, v₁) for Mooney–Rivlin, zeros for the corotated model (its kernels use the Lamé parameters)."""
        lam, mu = self.lame
        if self.model_code == COROTATED:
            return (0.0, 0.0, 0.0)
        if self.model_code == MOONEY_RIVLIN:
            return (self.mooney_rivlin_c01, self.mooney_rivlin_c10, 0.5 * (lam + 2.0 * mu / 3.0))
        return (mu, lam, 0.0)

    def __repr__(self):
        extra = ""
        if self.model_code == MOONEY_RIVLIN:
            extra = f", mooney_rivlin_c01={self.mooney_rivlin_c01}, mooney_rivlin_c10={self.mooney_rivlin_c10}"
        return (f"Material(youngs_modulus={self.youngs_modulus}, poisson_ratio={self.poisson_ratio}, "
                f"density={self.density}, damping_mass={self.damping_mass}, "
                f"damping_stiffness={self.damping_stiffness}, friction={self.friction}, "
                f"model={self.model!r}{extra})")


def _mooney_rivlin(c01, c10, mu):
    """The Mooney–Rivlin coefficients (Pa): both None -> μ/4 each, one None -> 0; refused if negative or both 0
    (then the energy is not convex at rest: no or negative shear stiffness)."""
    if c01 is None and c10 is None:
        return 0.25 * mu, 0.25 * mu
    c01 = 0.0 if c01 is None else _finite("mooney_rivlin_c01", c01)
    c10 = 0.0 if c10 is None else _finite("mooney_rivlin_c10", c10)
    for name, value in (("mooney_rivlin_c01", c01), ("mooney_rivlin_c10", c10)):
        if value < 0:
            raise InvalidInputError(f"{name} must be >= 0 Pa (a negative coefficient makes the energy non-convex), "
                                    f"got {value}")
    if c01 + c10 <= 0:
        raise InvalidInputError("mooney_rivlin_c01 + mooney_rivlin_c10 must be > 0 Pa (no shear stiffness at rest)")
    return c01, c10
