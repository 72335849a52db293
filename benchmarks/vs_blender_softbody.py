"""SoftFEM vs Blender's built-in Soft Body: icosphere (5 subdivisions, 2562 vertices) dropped from 2 m on a plane.

60 frames at 24 fps, one run each, frames driven by scene.frame_set for both: SoftFEM through the add-on at its
defaults (Add Soft Body on the icosphere, a Collision plane, nothing else set: resolution Auto, E = 1e5 Pa, at most
4 substeps, Adaptive) and Blender's Soft Body at its defaults (use_goal off, so that it falls; vertices collide with the same
Collision plane), and again with its optional Face collision on (not needed on this plane: it rests as high, and it
costs Blender ~4x the time; earlier versions of this benchmark compared against this one alone).
Prints the median ms per frame after the first frame for each and their ratios; the total time of frames 2-60 (what a
bake of the shot costs: the landings, which the median leaves out, weigh most in it) and its ratio; the volume kept at
frame 60.
`--resolution N`, `--substeps N` and `--fixed` run SoftFEM at that cage resolution, those substeps or all of them
every frame instead of the defaults (`--resolution 12 --fixed`: the defaults before Auto; labelled in the output). `--core` adds the earlier core-only figure (the same meshes
through core at cage resolution 8, E = 1e6 Pa: not the add-on's defaults), labelled as such.
Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/vs_blender_softbody.py [--resolution N] [--substeps N]
     [--damping S] [--fixed] [--core]
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests", "blender"))
import conftest  # noqa: E402,F401  (sets the throwaway Blender user folder before bpy is imported)
import core  # noqa: E402
from addon_testing import link_and_enable  # noqa: E402

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
    link_and_enable()
    scene = bpy.context.scene
    scene.softfem.cache_directory = tempfile.mkdtemp(prefix="softfem_vs_") + os.sep
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


def run_blender(face_collision):
    bpy, scene, plane, ball = blender_scene()
    v0, tris = mesh_arrays(ball)
    ball.modifiers.new("Softbody", "SOFT_BODY")
    ball.soft_body.use_goal = False
    ball.soft_body.use_face_collision = face_collision
    return play(bpy, scene, ball, v0, tris)


def play(bpy, scene, ball, v0, tris):
    """Frames 1..FRAMES by frame_set: the median ms per frame after the first, their total (s), the volume kept at
    the last and the lowest vertex height there."""
    frame_ms = []
    for f in range(1, FRAMES + 1):
        t0 = time.perf_counter()
        scene.frame_set(f)
        frame_ms.append((time.perf_counter() - t0) * 1e3)
    v, _ = mesh_arrays(ball, bpy.context.evaluated_depsgraph_get())
    return (float(np.median(frame_ms[1:])), sum(frame_ms[1:]) / 1e3, enclosed_volume(v, tris) / enclosed_volume(v0, tris),
            float(v[:, 2].min()))


def run_addon(resolution=None, substeps=None, damping=None, fixed=False):
    """SoftFEM through the add-on: its defaults, or the given cage resolution, substeps, damping and fixed substeps."""
    bpy, scene, plane, ball = blender_scene()
    v0, tris = mesh_arrays(ball)
    bpy.ops.object.select_all(action='DESELECT')
    ball.select_set(True)
    bpy.context.view_layer.objects.active = ball
    if resolution is not None:
        ball.softfem.resolution = resolution
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    if damping is not None:
        ball.softfem.damping = damping
    if substeps is not None:
        scene.softfem.substeps = substeps
    scene.softfem.adaptive_substeps = not fixed
    auto = f"auto {ball.softfem.cage_summary.split('resolution ')[1].split(')')[0]}" if ball.softfem.resolution == 0 \
        else ball.softfem.resolution
    settings = (auto, ball.softfem.youngs_modulus, round(ball.softfem.damping, 6),
                f"{'' if fixed else '≤'}{scene.softfem.substeps}", ball.softfem.cage_tets)
    return play(bpy, scene, ball, v0, tris) + (settings,)


def run_core(substeps):
    """The earlier core-only run (cage resolution 8, E = 1e6 Pa): mean ms per frame, volume kept."""
    bpy, scene, plane, ball = blender_scene()                 # the very same meshes
    v, tris = mesh_arrays(ball)
    pv, pt = mesh_arrays(plane)
    tm = core.tetrahedralize(v, tris, resolution=8)
    tm.embedding.triangles = tris
    w = core.World()
    b = w.add_body(tm, core.Material(youngs_modulus=1e6, poisson_ratio=0.45, density=1000.0, friction=0.5))
    w.add_collider(pv, pt, friction=0.5, thickness=0.0, name="Plane")
    rest = enclosed_volume(tm.embedding.positions(b.x), tris)
    dt = 1.0 / FPS / substeps
    w.step(dt)                                                # first step: numba compile / cache load
    frame_ms = []
    for _ in range(FRAMES - 1):
        t0 = time.perf_counter()
        for _ in range(substeps):
            w.step(dt)
        tm.embedding.positions(b.x)                           # render positions, as the add-on writes back
        frame_ms.append((time.perf_counter() - t0) * 1e3)
    return float(np.mean(frame_ms)), enclosed_volume(tm.embedding.positions(b.x), tris) / rest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resolution", type=int, help="the cage resolution instead of the default")
    parser.add_argument("--substeps", type=int, help="substeps per frame instead of the default")
    parser.add_argument("--damping", type=float, help="the body's Damping in s instead of the default")
    parser.add_argument("--fixed", action="store_true", help="every frame all its substeps (Adaptive off)")
    parser.add_argument("--core", action="store_true", help="add the earlier core-only figure")
    args = parser.parse_args()
    ms_a, total_a, vol_a, low_a, (res, e, damping, substeps, tets) = run_addon(args.resolution, args.substeps,
                                                                               args.damping, args.fixed)
    label = "defaults" if (args.resolution, args.substeps, args.damping, args.fixed) == (None, None, None, False) \
        else "set"
    blender = [("Blender Soft Body (defaults)", run_blender(False)),
               ("Blender Soft Body, Face collision on", run_blender(True))]
    print(f"Icosphere 2562 vertices, r = 0.5 m, dropped from {HEIGHT} m on a Collision plane (outer thickness "
          f"0.02 m), {FRAMES} frames at {FPS} fps, median ms per frame after the first (load "
          f"{open('/proc/loadavg').read().split()[0] if os.path.exists('/proc/loadavg') else '?'})")
    print(f"{'':44}{'ms/frame':>10}{'SoftFEM speed':>15}{'total s':>9}{'SoftFEM speed':>15}{'volume kept':>13}"
          f"{'lowest z mm':>13}")
    print(f"{f'SoftFEM add-on {label} (res {res}, E {e:g}, {damping:g} s, {substeps} sub)':44}{ms_a:>10.1f}{'':>15}"
          f"{total_a:>9.2f}{'':>15}{vol_a * 100:>12.1f}%{low_a * 1e3:>13.1f}")
    for label, (ms_b, total_b, vol_b, low_b) in blender:
        print(f"{label:44}{ms_b:>10.1f}{ms_b / ms_a:>14.2f}x{total_b:>9.2f}{total_b / total_a:>14.2f}x"
              f"{vol_b * 100:>12.1f}%{low_b * 1e3:>13.1f}")
    print(f"(SoftFEM speed: Blender's time / SoftFEM's, above 1 when SoftFEM is faster; SoftFEM cage: {tets} tets)")
    if args.core:
        ms_b = blender[0][1][0]
        for n in SUBSTEPS:
            ms_s, vol_s = run_core(n)
            print(f"{f'core only, res 8, E 1e6, {n} substeps (mean)':44}{ms_s:>10.1f}{ms_b / ms_s:>14.2f}x"
                  f"{'':>24}{vol_s * 100:>12.1f}%")


if __name__ == "__main__":
    main()
