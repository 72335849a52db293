"""Warm-up: compile (or load from numba's disk cache) every kernel a scene uses, by simulating tiny scenes once."""
import os
import sys

import numpy as np

import numba
from numba.core.registry import CPUDispatcher

_PACKAGE = __name__.rpartition(".")[0]


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


def cold():
    """True when numba's cache folder for this version of core holds no compiled kernel yet (first run)."""
    folder = numba.config.CACHE_DIR
    if not folder or not os.path.isdir(folder):
        return True
    for _root, _dirs, files in os.walk(folder):
        if any(f.endswith(".nbi") for f in files):
            return False
    return True


def _icosphere(subdivisions, radius, centre):
    """Vertices and outward triangles of an icosphere (the warm-up's soft body)."""
    t = (1 + 5 ** 0.5) / 2
    v = np.array([[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t], [0, -1, -t], [0, 1, -t],
                  [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]], float)
    f = np.array([[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2],
                  [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5],
                  [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]], np.int64)
    for _ in range(subdivisions):
        e = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
        uniq, inv = np.unique(e, axis=0, return_inverse=True)
        mid = len(v) + inv.reshape(3, -1).T
        v = np.vstack([v, (v[uniq[:, 0]] + v[uniq[:, 1]]) / 2])
        a, b, c = f.T
        ab, bc, ca = mid.T
        f = np.concatenate([np.stack([a, ab, ca], 1), np.stack([b, bc, ab], 1), np.stack([c, ca, bc], 1),
                            np.stack([ab, bc, ca], 1)])
    return v / np.linalg.norm(v, axis=1, keepdims=True) * radius + np.asarray(centre, float), f


def _box(lo, hi):
    """A closed outward box surface (8 vertices, 12 triangles)."""
    v = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])], float)
    t = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], np.int64)
    return v, t


def _tetrahedralize():
    """Cage and conforming tetrahedralization of a small sphere (what Add Soft Body runs), points embedded."""
    from .geometry import embed_points, tetrahedralize
    v, f = _icosphere(1, 0.25, (0.0, 0.0, 0.0))
    cage = tetrahedralize(v, f, resolution=5, mode="cage")
    embed_points(cage.nodes, cage.tets, 0.5 * v)
    return cage, tetrahedralize(v, f, resolution=3, mode="conforming")


def _simulate(cage, conforming):
    """Two bodies (one pinned, one with a stiffness map) resting on a moving box collider, over its edge, and on
    each other; the render positions of the embedded surface read back (what each frame shows)."""
    from . import Material, SolverSettings, TetMesh, World
    world = World(gravity=(0.0, 0.0, -9.81), settings=SolverSettings())
    material = Material(youngs_modulus=2e4, poisson_ratio=0.45, density=1000.0, damping_mass=0.0,
                        damping_stiffness=0.01, friction=0.5)
    low = cage.nodes[:, 2].min()
    world.add_body(TetMesh(cage.nodes - [0.0, 0.0, low - 0.005], cage.tets, embedding=cage.embedding,
                                  mass_weights=cage.mass_weights), material,
                          stiffness_scale=np.linspace(0.5, 1.0, cage.num_tets))
    top = cage.nodes[:, 2].max() - low
    nodes = conforming.nodes + [0.1, 0.0, top - conforming.nodes[:, 2].min() + 0.002]
    pinned = np.array([int(np.argmax(nodes[:, 2]))])
    other = world.add_body(TetMesh(nodes, conforming.tets, embedding=conforming.embedding,
                                   mass_weights=conforming.mass_weights), material, pinned=pinned)
    box_v, box_t = _box((-1.0, -1.0, -0.5), (0.05, 1.0, 0.0))   # a sharp edge under the ball: edge contacts
    collider = world.add_collider(box_v, box_t, friction=0.5, thickness=0.01)
    for k in range(4):
        world.move_collider(collider, box_v + [0.0, 0.0, 0.002 * (k + 1)])
        other.set_pin_targets(nodes[pinned] + [0.0, 0.0, -0.01 * (k + 1)])
        world.step(1.0 / 24.0)
    cage.embedding.positions(world.bodies[0].x)
    return world


def run():
    """Compile or load, in this thread, every kernel the add-on's scenes use; returns the warm-up World."""
    return _simulate(*_tetrahedralize())
