"""The cage overlay's cost on a ~10k-tet cage: what a redraw after a frame change computes (addon.overlay.geometry:
the cage's edges, pins and contact lines at the shown frame; with and without the tet-quality colours). Headless, so
the GPU batch upload and draw are not timed (a redraw of an unchanged frame draws the batches made before, no
geometry).

Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/overlay.py
"""
import os
import statistics
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "blender"))
import conftest  # noqa: E402  (sets the throwaway Blender user folder before bpy is imported)
import bpy  # noqa: E402


def main():
    """A pinned ball with a ~10k-tet cage resting on a plane, three frames simulated, the overlay's geometry timed."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    softfem = conftest.link_and_enable()
    overlay = softfem.addon.overlay
    scene = bpy.context.scene
    scene.softfem.cache_directory = tempfile.mkdtemp(prefix="softfem_bench_") + os.sep
    bpy.ops.mesh.primitive_plane_add(size=4.0)
    bpy.context.active_object.modifiers.new("Collision", 'COLLISION')
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=4, radius=0.5, location=(0.0, 0.0, 0.51))
    ball = bpy.context.active_object
    group = ball.vertex_groups.new(name="Top")
    group.add([v.index for v in ball.data.vertices if v.co.z > 0.45], 1.0, 'REPLACE')
    ball.softfem.resolution = 15
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    ball.softfem.pin_group = "Top"
    scene.softfem.show_overlay = True
    for f in range(1, 4):
        scene.frame_set(f)
    sess = softfem.addon.session.existing(scene)
    assert sess.error is None, sess.error
    print(f"cage: {ball.softfem.cage_tets} tets, {ball.softfem.cage_nodes} nodes; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for quality in (False, True):
        scene.softfem.overlay_quality = quality
        overlay.geometry(scene)
        samples = []
        for _ in range(30):
            t0 = time.perf_counter()
            shapes = overlay.geometry(scene)
            samples.append(time.perf_counter() - t0)
        print(f"overlay geometry{' with tet quality' if quality else ''}: {1000 * statistics.median(samples):.2f} ms "
              f"(median of {len(samples)}; {shapes['edges']} edges, {len(shapes['points'])} pinned nodes, "
              f"{shapes['contacts']} contacts)")


if __name__ == "__main__":
    main()
