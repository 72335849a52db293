"""Warm-up: compile (or load from numba's disk cache) every kernel a scene uses, by simulating tiny scenes once."""
import os
import sys

import numpy as np

import numba
from numba.core.registry import CPUDispatcher

from .contact.surface import _midpoint_gap
from .fem.strain import StrainGauge
from .geometry.embedding import Embedding
from .geometry.primitives import box_surface, icosphere
from .tetmesh import TetMesh

_PACKAGE = __name__.rpartition(".")[0]
# The add-on's child processes on a cold cache: one runs the whole warm-up, the other the simulation's part beside
# it (its kernels are then in the cache by the time the first child gets past tetrahedralizing).
PARTS = ("all", "simulation")


def kernels():
    """Every numba kernel of core that is compiled on its own (inline="always" ones are compiled into callers)."""
    found = {}
    for name, module in list(sys.modules.items()):
        if module is None or not (name == _PACKAGE or name.startswith(_PACKAGE + ".")):
            continue
        for value in list(vars(module).values()):
            if (isinstance(value, CPUDispatcher) and value.py_func.__module__ == name
                    and value.targetoptions.get("inline", "never") == "never"):
                found[id(value)] = value
    return list(found.values())


def progress():
    """(kernels compiled or loaded in this process, kernels in core)."""
    all_kernels = kernels()
    return sum(1 for k in all_kernels if k.overloads), len(all_kernels)


def compiled_here():
    """How many kernels this process compiled itself instead of loading them from numba's disk cache."""
    return sum(1 for k in kernels() if sum(k.stats.cache_misses.values()))


COMPLETE = "warm-up-complete"   # written into numba's cache folder once every kernel of the warm-up is in it


def cold():
    """True until numba's cache folder for this version of core holds every kernel the warm-up uses (a session
    stopped mid-compile leaves some: the next one compiles the rest in the background, not in Blender's thread)."""
    folder = numba.config.CACHE_DIR
    return not folder or not os.path.isfile(os.path.join(folder, COMPLETE))


def mark_complete():
    """Record that the cache holds every kernel (after a whole warm-up ran here without error)."""
    if numba.config.CACHE_DIR:
        os.makedirs(numba.config.CACHE_DIR, exist_ok=True)
        with open(os.path.join(numba.config.CACHE_DIR, COMPLETE), "w", encoding="utf-8"):
            pass


def _tetrahedralize():
    """Cage tetrahedralization of a small sphere (what Add Soft Body runs), points embedded; and a second body as a
    conforming mesh is (no stiffness weights), from a coarser cage: conforming mode runs fTetWild in a child
    process, with no numba kernels to warm."""
    from .geometry import embed_points, tetrahedralize
    v, f = icosphere(1, 0.25, (0.0, 0.0, 0.0))
    cage = tetrahedralize(v, f, resolution=5, mode="cage")
    embed_points(cage.nodes, cage.tets, 0.5 * v)
    coarse = tetrahedralize(v, f, resolution=3, mode="cage")
    return cage, TetMesh(coarse.nodes, coarse.tets, embedding=coarse.embedding, mass_weights=coarse.mass_weights)


def _boxed(vertices, triangles):
    """A stand-in for a cage made without the geometry kernels: the surface embedded (by numpy) in the five tets
    of its bounding box."""
    corners, _ = box_surface(vertices.min(axis=0) - 0.01, vertices.max(axis=0) + 0.01)   # corner = 4x + 2y + z
    box = TetMesh(corners, [[0, 4, 2, 1], [6, 2, 4, 7], [5, 1, 7, 4], [3, 7, 1, 2], [1, 2, 4, 7]])
    origin = box.nodes[box.tets[:, 0]]
    edges = (box.nodes[box.tets[:, 1:]] - origin[:, None, :]).transpose(0, 2, 1)
    local = np.linalg.solve(edges[None], (vertices[:, None, :] - origin[None])[..., None])[..., 0]
    weights = np.concatenate([1.0 - local.sum(axis=-1, keepdims=True), local], axis=-1)   # (points, tets, 4)
    tet = np.argmax(weights.min(axis=-1), axis=1)
    return TetMesh(box.nodes, box.tets,
                   embedding=Embedding(box.tets, tet, weights[np.arange(len(vertices)), tet], triangles))


def _simulate(cage, conforming):
    """Two bodies (one corotated with a stiffness map, one neo-Hookean and pinned) resting on a moving box collider,
    over its edge, and on each other, a third on it apart, a step with each integrator and one preconditioned by
    multigrid, a wind on them, and a body touching nothing; the render positions of the embedded surface read back
    (what each frame shows)."""
    from . import ForceFields, Material, SolverSettings, World
    world = World(gravity=(0.0, 0.0, -9.81), settings=SolverSettings())
    material = Material(youngs_modulus=2e4, poisson_ratio=0.45, density=1000.0, damping_mass=0.0,
                        damping_stiffness=0.01, friction=0.5)
    low = cage.nodes[:, 2].min()
    world.add_body(cage.moved(cage.nodes - [0.0, 0.0, low - 0.005]), material,
                   stiffness_scale=np.linspace(0.5, 1.0, cage.num_tets), self_collision=True)   # self contact's too
    top = cage.nodes[:, 2].max() - low
    nodes = conforming.nodes + [0.1, 0.0, top - conforming.nodes[:, 2].min() + 0.002]
    pinned = np.array([int(np.argmax(nodes[:, 2]))])
    hyperelastic = Material(youngs_modulus=2e4, poisson_ratio=0.45, density=1000.0, damping_mass=0.0,
                            damping_stiffness=0.01, friction=0.5, model="neo_hookean")   # the hyperelastic kernels
    other = world.add_body(conforming.moved(nodes), hyperelastic, pinned=pinned)
    # a body on the box apart from those two: the contact solve's groups (core.contact.groups)
    world.add_body(cage.moved(cage.nodes - [0.6, 0.0, low - 0.005]), material)
    box_v, box_t = box_surface((-1.0, -1.0, -0.5), (0.05, 1.0, 0.0))   # a sharp edge under the ball: edge contacts
    collider = world.add_collider(box_v, box_t, friction=0.5, thickness=0.01)
    for k in range(4):
        world.move_collider(collider, box_v + [0.0, 0.0, 0.002 * (k + 1)])
        other.set_pin_targets(nodes[pinned] + [0.0, 0.0, -0.01 * (k + 1)])
        world.step(1.0 / 24.0)
    world.settings = SolverSettings(integrator="newmark")   # its second Newton iteration: the stiffness products
    world.step(1.0 / 24.0)
    world.settings = SolverSettings(preconditioner="multigrid")   # a stiff body's: the V-cycle, with contact rows
    world.step(1.0 / 24.0)
    for preconditioner in ("jacobi", "multigrid"):   # a body touching nothing: the step's plain CG
        flight = World(gravity=(0.0, 0.0, -9.81), settings=SolverSettings(preconditioner=preconditioner))
        body = flight.add_body(cage, material)
        body.v[:] = np.cross([0.0, 0.0, 1.0], body.x)
        flight.step(1.0 / 24.0)
        flight.step(1.0 / 24.0)
    wind = ForceFields()
    wind.add("WIND", (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 1.0, flow=0.5)
    wind.acceleration(world.bodies[0].x, world.bodies[0].v)
    cage.embedding.positions(world.bodies[0].x)
    StrainGauge(cage, material.shear_modulus).points_at(world.bodies[0].x)   # Output Strain's measures
    world.bodies[0].undrawn_bend()   # the session's check of a coarse render surface bent by its cage
    _midpoint_gap(np.zeros((2, 3)), np.zeros((1, 2), np.int64), 1)   # its kernel (these surfaces have no samples)
    _slowing_down(world.bodies[0])
    return world


def _slowing_down(body):
    """What sleeping asks of a body slowing down, which the falling warm-up bodies never reach: Embedding.reaches
    past both of its bounds, the body turning slowly about the render point last found fastest (compiled in
    Blender's thread instead, those kernels froze playback for ~2 s as a body neared rest)."""
    emb = body.mesh.embedding
    turning = np.cross([0.0, 0.0, 1.0], body.x - emb.positions(body.x)[emb._witness])
    emb.reaches(turning, 0.5 * np.linalg.norm(turning, axis=1).max())


def run(part="all"):
    """Compile or load, in this thread, every kernel the add-on's scenes use (part "all", then marked complete in
    the cache), or the simulation's alone (part "simulation", on boxed meshes: no geometry kernels); returns the
    warm-up World."""
    if part == "simulation":
        v, f = icosphere(1, 0.25, (0.0, 0.0, 0.0))
        return _simulate(_boxed(v, f), _boxed(0.6 * v, f))
    world = _simulate(*_tetrahedralize())
    mark_complete()
    return world
