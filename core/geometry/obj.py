"""Minimal Wavefront OBJ reader (vertices and fan-triangulated faces) for tests, benchmarks and demos."""
import numpy as np


def load_obj(path):
    """Read `v` and `f` records of an OBJ file; polygons are fan-triangulated. Returns (vertices (n,3), triangles (m,3))."""
    verts, tris = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("v "):
                verts.append([float(x) for x in line.split()[1:4]])
            elif line.startswith("f "):
                idx = [int(tok.split("/")[0]) for tok in line.split()[1:]]
                idx = [i - 1 if i > 0 else len(verts) + i for i in idx]
                tris.extend([idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1))
    return np.array(verts, dtype=np.float64).reshape(-1, 3), np.array(tris, dtype=np.int64).reshape(-1, 3)
