"""Material presets: real values (SI units) for the materials an artist asks for, each with its source."""

# Each preset: youngs_modulus (Pa), poisson_ratio, density (kg/m^3), damping (s, Rayleigh stiffness
# factor), friction (Coulomb mu) and material_model (MATERIAL_MODELS). Poisson ratios of nearly incompressible
# materials (~0.49-0.5) are capped at 0.45: linear tets lock above it. Damping values are chosen for a pleasant
# look, not measured.
#
# The models: rubbers, silicone, gels and soft tissue are the textbook neo-Hookean solids (Treloar, "The Physics of
# Rubber Elasticity", 3rd ed., 1975: the neo-Hookean energy is the Gaussian-network theory of rubber; soft tissue:
# Smith, de Goes & Kim, "Stable Neo-Hookean Flesh Simulation", ACM TOG 37(2), 2018), so those presets use it with
# the preset's E and nu (mu and lambda from them): it stays right under the large stretch and squash they go
# through, where the corotated model under-predicts the force. Jelly and Flesh are neo-Hookean, not Mooney-Rivlin:
# their sources give a small-strain modulus only, and Mooney-Rivlin's second coefficient would be a guess (with
# c01 = 0 its shear term is the neo-Hookean one anyway). Foam stays corotated: an open-cell foam under load buckles
# its cells at a nearly constant stress (the plateau, Gibson & Ashby ch. 5) and its volume drops a lot, while the
# neo-Hookean volume term (-mu log J + lambda/2 (log J)^2) grows without bound as the volume shrinks; neither model
# has the plateau, the linear corotated one is the softer (closer) approximation of the compression.
PRESETS = {
    # Gelatin gels of 2-8 % w/w: E ~ 1-10 kPa by indentation (Czerner, Fasce, Martucci et al.,
    # "Deformation and fracture behavior of physical gelatin gel systems", Food Hydrocolloids 60, 2016).
    # Density of a water gel ~ 1030 kg/m^3 (water plus a few % protein).
    "JELLY": dict(label="Jelly", youngs_modulus=5.0e3, poisson_ratio=0.45, density=1030.0,
                  damping=0.002, friction=0.3, material_model="NEO_HOOKEAN"),
    # Shore 30A rubber: E = 1.14 MPa from Gent's relation between Shore A hardness and Young's modulus
    # (A. N. Gent, Trans. Inst. Rubber Ind. 34, 1958: E = 0.0981(56 + 7.62336 S) / (0.137505 (254 - 2.54 S)) MPa).
    # Natural rubber density 920-1100 kg/m^3; rubber on dry concrete mu 0.6-0.85 (Engineering ToolBox,
    # "Friction and Friction Coefficients").
    "SOFT_RUBBER": dict(label="Soft Rubber", youngs_modulus=1.14e6, poisson_ratio=0.45, density=1100.0,
                        damping=0.0005, friction=0.8, material_model="NEO_HOOKEAN"),
    # Shore 60A rubber: E = 3.6 MPa by the same Gent relation; same density and friction sources.
    "RUBBER": dict(label="Rubber", youngs_modulus=3.6e6, poisson_ratio=0.45, density=1100.0,
                   damping=0.0002, friction=0.8, material_model="NEO_HOOKEAN"),
    # Passive soft tissue (muscle/fat): E ~ 10-100 kPa (McKee, Last, Russell, Murphy, "Indentation versus
    # tensile measurements of Young's modulus for soft biological tissues", Tissue Eng. B 17, 2011).
    # Soft-tissue density 1060 kg/m^3 (ICRP Publication 89, 2002).
    "FLESH": dict(label="Flesh", youngs_modulus=3.0e4, poisson_ratio=0.45, density=1060.0,
                  damping=0.003, friction=0.5, material_model="NEO_HOOKEAN"),
    # Flexible polyurethane foam, density ~30 kg/m^3: E ~ 10-100 kPa and Poisson ratio ~ 1/3 for open-cell
    # foams (Gibson & Ashby, "Cellular Solids", 2nd ed., 1997, ch. 5).
    "FOAM": dict(label="Foam", youngs_modulus=5.0e4, poisson_ratio=0.3, density=30.0,
                 damping=0.01, friction=0.6, material_model="COROTATED"),
    # Platinum-cure silicone Ecoflex 00-30: 100 % modulus 69 kPa, specific gravity 1.07 (Smooth-On
    # technical bulletin); small-strain E ~ 0.1 MPa is the value soft-robotics papers use.
    "SILICONE": dict(label="Silicone", youngs_modulus=1.0e5, poisson_ratio=0.45, density=1070.0,
                     damping=0.001, friction=0.7, material_model="NEO_HOOKEAN"),
}

# EnumProperty items of obj.softfem.material_model; the core's name of each is its key in lower case.
MATERIAL_MODELS = [
    ("COROTATED", "Corotated (linear)",
     "Linear elasticity that follows the body's rotation: fast and robust, right for small and moderate stretch"),
    ("STVK", "St. Venant-Kirchhoff",
     "Linear stress in the Green strain: right for large rotations with small stretch; softens when squashed hard"),
    ("NEO_HOOKEAN", "Neo-Hookean",
     "Rubber-like: stiffens under large stretch and resists losing volume (rubber, silicone, gels, flesh)"),
    ("MOONEY_RIVLIN", "Mooney-Rivlin",
     "Rubber with two shear coefficients (C10, C01) fitted to measurements; E and the Poisson ratio set only "
     "its resistance to volume change"),
]

MATERIAL_FIELDS = ("youngs_modulus", "poisson_ratio", "density", "damping", "friction", "material_model")


def preset_items():
    """EnumProperty items: 'CUSTOM' first, then every preset."""
    items = [("CUSTOM", "Custom", "Material values set by hand")]
    for key, p in PRESETS.items():
        items.append((key, p["label"], f"E = {p['youngs_modulus']:g} Pa, nu = {p['poisson_ratio']}, "
                                        f"density = {p['density']:g} kg/m^3, {_model_label(p['material_model'])}"))
    return items


def _model_label(key):
    return next(label for k, label, _d in MATERIAL_MODELS if k == key)
