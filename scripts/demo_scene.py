"""Run inside a throwaway Blender (fresh process): install the SoftFEM zip, build the demo scene, bake, render.

Usage: python demo_scene.py ZIP OUT_DIR  (HOME and BLENDER_USER_RESOURCES already point at a temp dir).
Prints `SOFTFEM_DEMO_RESULT=<json>` as its last line: what ran, what is missing, the figures measured.
It never stands in for a missing part: without the add-on's operators nothing is simulated and it says so.
"""
import json
import math
import os
import sys
import time

import bpy
import bmesh

MODULE = "bl_ext.user_default.softfem"
FPS = 24
FRAME_START, FRAME_END = 1, 48
RESOLUTION = (320, 240)
SAMPLES = 8
FLOOR_TOLERANCE = 0.05  # m below the floor's top that still counts as resting on it (collision thickness)
# The soft bodies: name, mesh builder, location, rotation, colour, material preset of the add-on.
BODIES = (
    # Silicone, not jelly: a metre-sized jelly (E ~ 5 kPa) cannot carry its own weight (rho g h ~ 10 kPa).
    ("Silicone Suzanne", "monkey", (0.15, 0.25, 1.35), (math.radians(-10), 0.0, math.radians(-12)),
     (0.15, 0.75, 0.25), "SILICONE"),
    ("Rubber Ball", "icosphere", (-1.5, 0.6, 1.0), (0.0, 0.0, 0.0), (0.85, 0.25, 0.08), "RUBBER"),
)


def material(name, colour, roughness=0.35, checker=False):
    """A Principled BSDF material (optionally with a checker pattern for the floor)."""
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # Blender < 5.0 creates materials without nodes
        mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    if checker:
        tex = nodes.new("ShaderNodeTexChecker")
        tex.inputs["Scale"].default_value = 24.0
        tex.inputs["Color1"].default_value = (*colour, 1.0)
        tex.inputs["Color2"].default_value = (*(c * 0.6 for c in colour), 1.0)
        links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def add_object(name, mesh, location, rotation=(0.0, 0.0, 0.0), mat=None, smooth=False):
    """Link a new object for mesh into the scene."""
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    obj.rotation_euler = rotation
    bpy.context.scene.collection.objects.link(obj)
    if mat is not None:
        mesh.materials.append(mat)
    if smooth:
        mesh.polygons.foreach_set("use_smooth", [True] * len(mesh.polygons))
    return obj


def bmesh_mesh(name, build):
    """A mesh filled by build(bm)."""
    bm = bmesh.new()
    build(bm)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    return mesh


def body_mesh(kind, name):
    """The soft bodies' meshes: a once-subdivided Suzanne (~1 m wide), an icosphere of radius 0.3 m."""
    if kind == "monkey":
        def build(bm):
            bmesh.ops.create_monkey(bm, matrix=_scale(0.38))
            bmesh.ops.subdivide_edges(bm, edges=bm.edges, cuts=1, use_grid_fill=True, use_smooth_even=True,
                                      smooth=1.0)
    else:
        def build(bm):
            bmesh.ops.create_icosphere(bm, subdivisions=3, radius=0.3)
    return bmesh_mesh(name, build)


def _scale(s):
    from mathutils import Matrix
    return Matrix.Diagonal((s, s, s, 1.0))


def add_collider(obj):
    """Give obj a Collision modifier (what SoftFEM collides with)."""
    obj.modifiers.new("Collision", "COLLISION")
    return obj


def build_scene():
    """Floor, a step, two soft bodies, camera, light, world; returns the soft body objects."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    scene.frame_start, scene.frame_end = FRAME_START, FRAME_END

    floor = add_object("Floor", bmesh_mesh("Floor", lambda bm: bmesh.ops.create_grid(
        bm, x_segments=1, y_segments=1, size=12.0)), (0.0, 0.0, 0.0), mat=material("Floor", (0.55, 0.55, 0.6),
                                                                                     0.6, checker=True))
    step = add_object("Step", bmesh_mesh("Step", lambda bm: bmesh.ops.create_cube(bm, size=1.0)),
                      (1.0, 0.3, 0.2), mat=material("Step", (0.12, 0.2, 0.45), 0.5))
    step.scale = (1.6, 2.0, 0.4)
    add_collider(floor)
    add_collider(step)

    bodies = []
    for name, kind, loc, rot, colour, _preset in BODIES:
        bodies.append(add_object(name, body_mesh(kind, name), loc, rot, material(name, colour, 0.25), smooth=True))

    cam_data = bpy.data.cameras.new("Camera")
    cam_data.lens = 32
    cam = add_object("Camera", cam_data, (-0.6, -4.4, 1.9))
    target = bpy.data.objects.new("Camera Target", None)
    target.location = (-0.1, 0.2, 0.55)
    scene.collection.objects.link(target)
    track = cam.constraints.new("TRACK_TO")
    track.target = target
    scene.camera = cam

    sun_data = bpy.data.lights.new("Sun", "SUN")
    sun_data.energy = 3.5
    sun_data.angle = math.radians(8)
    add_object("Sun", sun_data, (0, 0, 5), (math.radians(40), math.radians(15), math.radians(-35)))

    world = bpy.data.worlds.new("World")
    if world.node_tree is None:
        world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.45, 0.5, 0.6, 1.0)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.6
    scene.world = world
    return bodies


def configure_render(scene):
    """Cycles on the CPU, small and quick."""
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = SAMPLES
    scene.cycles.use_denoising = True
    scene.cycles.denoising_prefilter = "NONE"  # the full-quality OIDN pass would cost more than the render
    if hasattr(scene.cycles, "denoising_quality"):
        scene.cycles.denoising_quality = "FAST"
    scene.render.resolution_x, scene.render.resolution_y = RESOLUTION
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.use_persistent_data = True  # keep the static scene's BVH between frames


def install(zip_path):
    """Install and enable the zip like a user (Install from Disk); return whether the add-on is enabled."""
    result = bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                                      enable_on_install=True)
    return "FINISHED" in result and MODULE in bpy.context.preferences.addons


def operator_exists(name):
    """Whether bpy.ops.softfem.<name> is registered."""
    return name in dir(bpy.ops.softfem)


def mesh_figures(obj):
    """Volume (m^3; None for an open mesh, whose volume is undefined), lowest z and height (m) of obj's
    evaluated mesh in world space."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    bm = bmesh.new()
    bm.from_object(obj, depsgraph)
    bm.transform(obj.matrix_world)
    volume = bm.calc_volume(signed=False) if all(e.is_manifold for e in bm.edges) else None
    zs = [v.co.z for v in bm.verts]
    bm.free()
    return volume, min(zs), max(zs) - min(zs)


def simulate(bodies, result):
    """Add Soft Body on each body, set its preset, bake with the add-on's operator; record what is missing."""
    missing = [op for op in ("add_soft_body", "bake") if not operator_exists(op)]
    if missing:
        result["missing"] += [f"bpy.ops.softfem.{op}" for op in missing]
        return False
    for obj, (_name, _kind, _loc, _rot, _colour, preset) in zip(bodies, BODIES):
        bpy.ops.object.select_all(action="DESELECT")
        obj.select_set(True)
        bpy.context.view_layer.objects.active = obj
        ret = bpy.ops.softfem.add_soft_body()
        if "FINISHED" not in ret:
            result["missing"].append(f"add_soft_body on {obj.name} returned {sorted(ret)}")
            return False
        settings = getattr(obj, "softfem", None)
        if settings is not None and hasattr(settings, "preset"):
            settings.preset = preset
        else:
            result["missing"].append(f"obj.softfem.preset (left the default material on {obj.name})")
    t = time.perf_counter()
    ret = bpy.ops.softfem.bake()
    result["bake_seconds"] = round(time.perf_counter() - t, 2)
    if "FINISHED" not in ret:
        result["missing"].append(f"bake returned {sorted(ret)}")
        return False
    return True


def measure(bodies, scene, result):
    """Per body: volume and lowest point at the start and end frames, and the most squashed frame (smallest
    height over the range) - what the renders show, as numbers."""
    figures = {obj.name: {} for obj in bodies}
    for frame in range(FRAME_START, FRAME_END + 1):
        scene.frame_set(frame)
        for obj in bodies:
            volume, lowest, height = mesh_figures(obj)
            f = figures[obj.name]
            if frame == FRAME_START:
                f["start"] = {"volume_m3": volume, "lowest_z_m": round(lowest, 4), "height_m": round(height, 4)}
            if frame == FRAME_END:
                f["end"] = {"volume_m3": volume, "lowest_z_m": round(lowest, 4), "height_m": round(height, 4)}
            if height < f.get("min_height_m", math.inf):
                f["min_height_m"], f["min_height_frame"] = round(height, 4), frame
    for name, f in figures.items():
        start, end = f["start"]["volume_m3"], f["end"]["volume_m3"]
        if start and end:
            f["volume_ratio_end_to_start"] = round(end / start, 4)
        f["min_height_ratio"] = round(f["min_height_m"] / f["start"]["height_m"], 3)
        for key in ("start", "end"):
            if f[key]["volume_m3"] is not None:
                f[key]["volume_m3"] = round(f[key]["volume_m3"], 5)
        if result["simulated"] and f["end"]["lowest_z_m"] < -FLOOR_TOLERANCE:
            result["problems"].append(f"{name} fell through the colliders (lowest point z = "
                                      f"{f['end']['lowest_z_m']} m at frame {FRAME_END}, floor at z = 0): "
                                      "contact is missing or failed")
    result["bodies"] = figures


def render_frames(scene, out_dir, frames):
    """Render the given frames to out_dir/frames/frame_####.png; return the paths."""
    paths = []
    os.makedirs(os.path.join(out_dir, "frames"), exist_ok=True)
    for frame in frames:
        scene.frame_set(frame)
        path = os.path.join(out_dir, "frames", f"frame_{frame:04d}.png")
        scene.render.filepath = path
        bpy.ops.render.render(write_still=True)
        paths.append(path)
    return paths


def encode_video(frame_paths, out_path):
    """Encode the rendered PNGs into an H.264 MP4 through Blender's own FFmpeg (sequencer scene)."""
    video = bpy.data.scenes.new("SoftFEM Video")
    video.render.fps, video.render.fps_base = FPS, 1.0
    video.render.resolution_x, video.render.resolution_y = RESOLUTION
    video.render.resolution_percentage = 100
    editor = video.sequence_editor_create()
    strips = editor.strips if hasattr(editor, "strips") else editor.sequences
    strip = strips.new_image("frames", frame_paths[0], 1, 1)
    for path in frame_paths[1:]:
        strip.elements.append(os.path.basename(path))
    video.frame_start, video.frame_end = 1, len(frame_paths)
    settings = video.render.image_settings
    if hasattr(settings, "media_type"):
        settings.media_type = "VIDEO"
    settings.file_format = "FFMPEG"
    video.render.ffmpeg.format = "MPEG4"
    video.render.ffmpeg.codec = "H264"
    video.render.ffmpeg.constant_rate_factor = "HIGH"
    video.render.filepath = out_path
    video.render.use_file_extension = False
    with bpy.context.temp_override(scene=video):
        bpy.ops.render.render(animation=True, scene=video.name)
    bpy.data.scenes.remove(video)
    return out_path


def main(zip_path, out_dir):
    """Install the zip, build and bake the scene, save the .blend, render frames and the video."""
    result = {"missing": [], "problems": [], "renders": [], "video": None}
    t0 = time.perf_counter()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.context.preferences.filepaths.save_version = 0  # no .blend1 backups in demo_out
    result["installed"] = install(zip_path)
    if not result["installed"]:
        result["missing"].append("the SoftFEM add-on did not install/enable from the zip")
    scene = bpy.context.scene
    bodies = build_scene()
    configure_render(scene)
    os.makedirs(out_dir, exist_ok=True)
    blend = os.path.join(out_dir, "softfem_demo.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend)  # the add-on's cache lives beside the saved .blend
    try:
        simulated = result["installed"] and simulate(bodies, result)
    except RuntimeError as exc:  # an operator that raised: report it, render what there is
        result["problems"].append(f"an operator raised: {str(exc).strip().splitlines()[-1]}")
        simulated = False
    result["simulated"] = simulated
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    result["blend"] = blend
    measure(bodies, scene, result)
    t = time.perf_counter()
    # Without a simulation only the start frame is honest: an animation of still objects would mislead.
    frames = list(range(FRAME_START, FRAME_END + 1)) if simulated else [FRAME_START]
    result["renders"] = render_frames(scene, out_dir, frames)
    result["render_seconds_per_frame"] = round((time.perf_counter() - t) / len(frames), 2)
    if simulated:
        t = time.perf_counter()
        result["video"] = encode_video(result["renders"], os.path.join(out_dir, "softfem_demo.mp4"))
        result["encode_seconds"] = round(time.perf_counter() - t, 2)
    result["scene_seconds"] = round(time.perf_counter() - t0, 1)
    print("SOFTFEM_DEMO_RESULT=" + json.dumps(result), flush=True)


if __name__ == "__main__":
    main(os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2]))
