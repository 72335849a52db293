"""SoftFEM's simulator: volumetric corotational FEM soft bodies in numpy/scipy/numba (never bpy)."""
from .errors import InvalidInputError, SimulationDiverged, SoftFEMError
from .tetmesh import TetMesh

# Each line below belongs to one module's owner; add your exports on your own line.
from .material import Material  # noqa: E402  simulator core
from .world import World, SolverSettings  # noqa: E402  simulator core
from .geometry import tetrahedralize  # noqa: E402  tetrahedralization
from .forces import ForceFields  # noqa: E402  force fields
from .fem.strain import StrainGauge  # noqa: E402  strain display
from .substeps import frame_substeps  # noqa: E402  adaptive substeps

__all__ = [
    "InvalidInputError", "SimulationDiverged", "SoftFEMError", "TetMesh",
    "Material", "World", "SolverSettings", "tetrahedralize",
    "ForceFields", "StrainGauge", "frame_substeps",
]
