"""SoftFEM vs Blender's built-in Soft Body: icosphere (5 subdivisions, 2562 vertices) dropped from 2 m on a plane.

60 frames at 24 fps in one run: SoftFEM through core (the same icosphere, a cage from tetrahedralize,
a plane collider) and Blender's Soft Body (default settings, use_goal off, face collision on, plane with
a Collision modifier) through bpy. Prints ms per frame for both, the ratio and the volume kept at frame 60.
Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/vs_blender_softbody.py
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import core  # noqa: E402

FRAMES = 60
FPS = 24
SUBSTEPS = (4, 2)   # the add-on's default, and half of it
HEIGHT = 2.0


def enclosed_volume(v, t):
    a, b, c = (v[t[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->", a, np.cross(b, c)) / 6.0)


def blender_scene():
    """Factory scene with the icosphere (radius 0.5 m, bottom 2 m above the plane) and a 10 m collision plane."""
    import bpy
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = FPS
    scene.frame_start, scene.frame_end = 1, FRAMES
    bpy.ops.mesh.primitive_plane_add(size=10.0, location=(0, 0, 0))
    plane = bpy.context.object
    plane.modifiers.new("Collision", "COLLISION")
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=5, radius=0.5, location=(0, 0, HEIGHT + 0.5))
    ball = bpy.context.object
    return bpy, scene, plane, ball


def mesh_arrays(obj, depsgraph=None):
    mesh = obj.evaluated_get(depsgraph).to_mesh() if depsgraph is not None else obj.data
    v = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", v)
    mesh.calc_loop_triangles()
    t = np.empty(len(mesh.loop_triangles) * 3, np.int64)
    mesh.loop_triangles.foreach_get("vertices", t)
    v = v.reshape(-1, 3) @ np.array(obj.matrix_world)[:3, :3].T + np.array(obj.matrix_world)[:3, 3]
    if depsgraph is not None:
        obj.evaluated_get(depsgraph).to_mesh_clear()
    return v, t.reshape(-1, 3)


def run_blender():
    bpy, scene, plane, ball = blender_scene()
    v0, tris = mesh_arrays(ball)
    ball.modifiers.new("Softbody", "SOFT_BODY")
    ball.soft_body.use_goal = False
    ball.soft_body.use_face_collision = True
    scene.frame_set(1)
    t0 = time.perf_counter()
    for f in range(2, FRAMES + 1):
        scene.frame_set(f)
    ms = (time.perf_counter() - t0) * 1e3 / (FRAMES - 1)
    v, _ = mesh_arrays(ball, bpy.context.evaluated_depsgraph_get())
    return ms, enclosed_volume(v, tris) / enclosed_volume(v0, tris), len(v0)


def run_softfem(substeps):
    bpy, scene, plane, ball = blender_scene()                 # the very same meshes
    v, tris = mesh_arrays(ball)
    pv, pt = mesh_arrays(plane)
    t0 = time.perf_counter()
    tm = core.tetrahedralize(v, tris, resolution=8)
    tm.embedding.triangles = tris
    build = time.perf_counter() - t0
    w = core.World()
    b = w.add_body(tm, core.Material(youngs_modulus=1e6, poisson_ratio=0.45, density=1000.0, friction=0.5))
    w.add_collider(pv, pt, friction=0.5, thickness=0.0, name="Plane")
    rest = enclosed_volume(tm.embedding.positions(b.x), tris)
    dt = 1.0 / FPS / substeps
    t0 = time.perf_counter()
    w.step(dt)                                                # first step: numba compile / cache load
    compile_s = time.perf_counter() - t0
    frame_ms = []
    for _ in range(FRAMES - 1):
        t0 = time.perf_counter()
        for _ in range(substeps):
            w.step(dt)
        tm.embedding.positions(b.x)                           # render positions, as the add-on writes back
        frame_ms.append((time.perf_counter() - t0) * 1e3)
    p = tm.embedding.positions(b.x)
    return (float(np.mean(frame_ms)), enclosed_volume(p, tris) / rest, len(v), tm, build, compile_s,
            float(p[:, 2].min()))


def main():
    runs = [(n, run_softfem(n)) for n in SUBSTEPS]
    ms_b, vol_b, _ = run_blender()
    nv, tm, build, compile_s = runs[0][1][2:6]
    print(f"Icosphere {nv} vertices, r = 0.5 m, dropped from {HEIGHT} m, {FRAMES} frames at {FPS} fps")
    print(f"SoftFEM: cage {tm.num_nodes} nodes / {tm.num_tets} tets (tetrahedralize {build:.2f} s, "
          f"first step incl. compile {compile_s:.2f} s), E = 1e6 Pa, nu = 0.45")
    print(f"{'':30}{'ms/frame':>10}{'volume kept at frame 60':>26}{'Blender/SoftFEM time':>22}")
    for n, (ms_s, vol_s, _, _, _, _, lowest) in runs:
        print(f"{f'SoftFEM, {n} substeps':30}{ms_s:>10.1f}{vol_s * 100:>25.1f}%{ms_b / ms_s:>22.2f}"
              f"   (lowest vertex z = {lowest * 1e3:.2f} mm)")
    print(f"{'Blender Soft Body':30}{ms_b:>10.1f}{vol_b * 100:>25.1f}%")


if __name__ == "__main__":
    main()
