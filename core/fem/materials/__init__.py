"""Isotropic hyperelastic energies in principal stretches, one module each; MODELS names them by code."""

# A material's code is its index here; 0 (corotated) is simulated by core.fem.corotational with DAPD.
MODELS = ("corotated", "stvk", "neo_hookean", "mooney_rivlin")
COROTATED, STVK, NEO_HOOKEAN, MOONEY_RIVLIN = range(4)
