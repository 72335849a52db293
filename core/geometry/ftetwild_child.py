"""Child process of ftetwild.py: loads fTetWild (pytetwild's extension), meshes the arrays of a .npz, writes a .npz."""
import importlib.machinery
import importlib.util
import os
import sys

# this script's folder holds core's modules, not top-level ones: off the path before numpy is imported
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != os.path.dirname(os.path.abspath(__file__))]
import numpy as np  # noqa: E402


def load_wrapper():
    """pytetwild's compiled fTetWild wrapper, loaded without its package __init__ (pytetwild 0.4.2 imports PyVista
    there, which Blender does not ship; the wrapper itself needs only numpy). Raises ImportError when absent."""
    spec = importlib.util.find_spec("pytetwild")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("pytetwild is not installed")
    for folder in spec.submodule_search_locations:
        for name in sorted(os.listdir(folder)):
            if name.startswith("PyfTetWildWrapper") and name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
                loader = importlib.machinery.ExtensionFileLoader("PyfTetWildWrapper", os.path.join(folder, name))
                module = importlib.util.module_from_spec(importlib.util.spec_from_loader("PyfTetWildWrapper", loader))
                loader.exec_module(module)
                return module
    raise ImportError("pytetwild has no compiled fTetWild wrapper")


def run(inp, out):
    """Mesh the surface in `inp` (.npz: vertices, triangles, edge, epsilon, threads, iterations) into `out`."""
    data = np.load(inp)
    wrapper = load_wrapper()
    nodes, tets = wrapper.tetrahedralize_mesh(
        np.ascontiguousarray(data["vertices"], np.float64), np.ascontiguousarray(data["triangles"], np.uint32),
        True, False, 0.05, float(data["edge"]), float(data["epsilon"]), 10.0, False, int(data["threads"]),
        int(data["iterations"]), 6, True, False, False,
        np.empty((0, 3)), np.empty((0, 4), np.int32), np.empty(0))
    np.savez(out, nodes=np.asarray(nodes, np.float64), tets=np.asarray(tets, np.int64))


if __name__ == "__main__":
    if sys.argv[1] == "--probe":
        load_wrapper()
    else:
        run(sys.argv[1], sys.argv[2])
