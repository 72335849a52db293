"""Per-frame cost of the add-on around the solver (signature, pins, colliders, write-back, cache) at 100k vertices,
and what Output Strain adds to it.

Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/blender_overhead.py
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
import numpy as np  # noqa: E402

FRAMES = 20


def median_ms(samples):
    """Median of seconds, in milliseconds."""
    return 1000.0 * statistics.median(samples)


def main():
    """Build the scene, simulate and play it, print the figures."""
    softfem = conftest.link_and_enable()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    softfem = conftest.link_and_enable()
    addon = softfem.addon
    scene = bpy.context.scene
    scene.softfem.cache_directory = tempfile.mkdtemp(prefix="softfem_bench_") + os.sep
    scene.frame_start, scene.frame_end = 1, FRAMES + 1
    bpy.ops.mesh.primitive_uv_sphere_add(segments=400, ring_count=250, radius=0.5, location=(0, 0, 1.0))
    ball = bpy.context.active_object
    n = len(ball.data.vertices)
    group = ball.vertex_groups.new(name="Pin")
    local = addon.bridge.read_vertices(ball.data)
    group.add(np.flatnonzero(local[:, 2] > 0.45).tolist(), 1.0, 'REPLACE')
    ball.softfem.pin_group = "Pin"
    ball.keyframe_insert("location", frame=1)
    ball.location.x = 1.0
    ball.keyframe_insert("location", frame=FRAMES + 1)
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=71, y_subdivisions=71, size=4.0, location=(0, 0, 0.2))
    floor = bpy.context.active_object
    floor.modifiers.new("Collision", 'COLLISION')
    ntris = 2 * 70 * 70
    bpy.ops.object.select_all(action='DESELECT')
    ball.select_set(True)
    bpy.context.view_layer.objects.active = ball
    t = time.perf_counter()
    bpy.ops.softfem.add_soft_body()
    print(f"render mesh: {n} vertices; cage {ball.softfem.cage_nodes} nodes, {ball.softfem.cage_tets} tets "
          f"(add_soft_body incl. tetrahedralize: {time.perf_counter() - t:.2f} s); collider {ntris} triangles")

    core = softfem.core
    real_step = core.World.step
    step_time = []

    def timed_step(self, dt):
        t0 = time.perf_counter()
        real_step(self, dt)
        step_time.append(time.perf_counter() - t0)
    core.World.step = timed_step
    scene.frame_set(1)
    scene.frame_set(2)  # JIT warm-up and world build
    sess = addon.session.existing(scene)
    overhead, total = [], []
    for f in range(3, FRAMES + 2):
        step_time.clear()
        scene.frame_set(f)
        assert sess.error is None, sess.error
        total.append(sess.last_frame_seconds)
        overhead.append(sess.last_frame_seconds - sum(step_time))
    core.World.step = real_step
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other processes inflate the figures)")
    print(f"frame handler, simulating ({scene.softfem.substeps} substeps): total {median_ms(total):.2f} ms, "
          f"everything but world.step {median_ms(overhead):.2f} ms per frame (median of {len(total)} frames; "
          f"min {1000 * min(overhead):.2f} ms)")
    played = []
    for f in range(2, FRAMES + 2):
        scene.frame_set(f)
        played.append(sess.last_frame_seconds)
    print(f"frame handler, playing cached frames: {median_ms(played):.2f} ms per frame "
          f"(min {1000 * min(played):.2f} ms)")

    # The parts, timed one by one (median of repeats).
    body = sess.bodies[0]
    state = sess.state(FRAMES + 1)
    dg = bpy.context.evaluated_depsgraph_get()
    parts = {
        "signature (mesh fingerprint)": lambda: addon.scene_settings.signature(scene),
        "pin targets (animated shape + node fit)":
            lambda: addon.animated_shape.frame_targets(ball, body, dg, FRAMES + 1, sess.warn),
        "collider read (world space)": lambda: addon.colliders.frame_targets(sess.colliders, scene, dg),
        "render positions (embedding)": lambda: body.render_positions(state[0][0]),
        "write-back (to local + attribute foreach_set)": lambda: sess._show(scene, state),
        "cache write (memory + file)": lambda: sess._store(FRAMES + 1, state),
    }
    for name, fn in parts.items():
        samples = []
        for _ in range(15):
            t0 = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - t0)
        print(f"  {name}: {median_ms(samples):.2f} ms")

    # Output Strain: the same cached frames played with it off and on, alternately (each frame's pair back to back).
    scene.frame_set(2)
    ball.softfem.output_strain = True   # (its first frame builds the strain gauge)
    off, on = [], []
    for _ in range(3):
        for f in range(2, FRAMES + 2):
            for setting, samples in ((False, off), (True, on)):
                ball.softfem.output_strain = setting
                scene.frame_set(f)
                assert sess.error is None, sess.error
                samples.append(sess.last_frame_seconds)
    extra = [b - a for a, b in zip(off, on)]
    print(f"Output Strain on a {n}-vertex mesh, playing cached frames: {median_ms(on):.2f} ms per frame on, "
          f"{median_ms(off):.2f} off: {median_ms(extra):.2f} ms more (median of {len(extra)} pairs)")
    gauge = body.strain_gauge(softfem.core, ball, sess.state(1)[0][0])
    samples = []
    for _ in range(15):
        t0 = time.perf_counter()
        addon.bridge.write_point_values(ball, addon.bridge.STRAIN_ATTRIBUTES, gauge.points_at(state[0][0]))
        samples.append(time.perf_counter() - t0)
    print(f"  strain measures and their three attributes written: {median_ms(samples):.2f} ms")


if __name__ == "__main__":
    main()
