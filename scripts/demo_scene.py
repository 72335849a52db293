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
import bmesh  # after bpy: bmesh is only importable once bpy is
from mathutils import Matrix

import demo_measure

MODULE = "bl_ext.user_default.softfem"
FPS = 24
FRAME_START, FRAME_END = 1, 73  # 3 s, all simulated
SUBSTEPS = 4  # the add-on's default
# Rendering on a CPU shared by other jobs costs ~5-20 s per 1280x720 frame here: the video is every second frame
# (12 fps) at half size; the stills, through both cameras, at full size.
RESOLUTION = (1280, 720)
SAMPLES = 4  # with OIDN denoising
VIDEO_STEP, VIDEO_PERCENT = 2, 50
STILL_FRAMES = (9, 73)  # Suzanne squashed on landing, at rest
# The strain shot: the bodies coloured by their softfem_strain attribute (Output Strain on; a colour ramp from blue at
# rest through green and yellow to red at STRAIN_RED), through the close-up camera over the landing, every second frame.
STRAIN_FRAMES = range(1, 42, VIDEO_STEP)
STRAIN_RED = 0.15
COLLIDER_THICKNESS = 0.005  # m: Collision thickness_outer of the steps and the floor
# Staircase along x, descending toward -x: box k spans x in [k RUN, (k+1) RUN] (the top one runs on to
# TOP_END) and z in [0, (k+1) RISE], y in [-WIDTH/2, WIDTH/2].
STEPS, RISE, RUN, TOP_END, WIDTH = 4, 0.2, 0.5, 2.1, 1.6
# The soft bodies, all made by Blender's own primitives (nothing read from outside the repository): name, mesh
# builder, location, rotation (XYZ Euler, degrees), material preset, cage resolution, Young's modulus instead of
# the preset's (None: the preset's). The Jelly preset (5 kPa) is a dessert-sized jelly: a 40 cm Suzanne of it
# slumps under her own weight (rho g h ~ 3 kPa), so hers is a firm 25 kPa gel.
BODIES = (
    ("Rubber Torus", "torus", (1.22, -0.05, 0.77), (10.0, 0.0, 0.0), "RUBBER", 10, None),
    ("Jelly Suzanne", "monkey", (1.2, -0.06, 1.12), (-20.0, 0.0, -20.0), "JELLY", 10, 2.5e4),
)
# The cameras: location, the point they look at, focal length (mm). The main one frames the drop and the
# landing on the third step; the close one the contact between the two bodies.
MAIN_CAMERA = ((0.35, -2.3, 1.35), (1.2, -0.05, 0.85), 70.0)
CLOSE_CAMERA = ((0.7, -1.35, 0.98), (1.21, -0.05, 0.76), 62.0)


def principled(name, colour, roughness=0.4, **inputs):
    """A Principled BSDF material; extra keyword inputs set sockets by name (spaces as underscores)."""
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # Blender < 5.0 creates materials without nodes
        mat.use_nodes = True
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    for key, value in inputs.items():
        bsdf.inputs[key.replace("_", " ")].default_value = value
    return mat


def jelly_material():
    """Green jelly under a glossy coat (no subsurface or transmission: at few samples they cost more than they show)."""
    return principled("Jelly", (0.1, 0.75, 0.08), roughness=0.2, Coat_Weight=0.6, Coat_Roughness=0.05)


def rubber_material():
    """Satin orange-red rubber."""
    return principled("Rubber", (0.85, 0.22, 0.05), roughness=0.45, Coat_Weight=0.3, Coat_Roughness=0.2)


def strain_material():
    """The bodies' equivalent strain as a colour: an Attribute node reading softfem_strain, mapped from 0 to STRAIN_RED
    onto a blue-green-yellow-red Color Ramp, into a Principled BSDF's Base Color."""
    mat = principled("Strain", (1.0, 1.0, 1.0), roughness=0.35, Coat_Weight=0.3, Coat_Roughness=0.1)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    attribute = nodes.new("ShaderNodeAttribute")
    attribute.attribute_type, attribute.attribute_name = "GEOMETRY", "softfem_strain"
    scale = nodes.new("ShaderNodeMapRange")
    scale.inputs["From Max"].default_value = STRAIN_RED
    ramp = nodes.new("ShaderNodeValToRGB")
    stops = ramp.color_ramp.elements
    stops[0].color, stops[1].color = (0.05, 0.15, 0.8, 1.0), (0.85, 0.05, 0.02, 1.0)
    for position, colour in ((0.35, (0.1, 0.7, 0.2, 1.0)), (0.65, (0.95, 0.8, 0.05, 1.0))):
        stops.new(position).color = colour
    links.new(attribute.outputs["Fac"], scale.inputs["Value"])
    links.new(scale.outputs["Result"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
    return mat


def render_strain_shot(scene, bodies, camera, folder):
    """The strain shot: Output Strain on and the strain material on every body, STRAIN_FRAMES rendered through
    `camera`; the bodies' own materials and Output Strain put back after. Returns the PNG paths."""
    mat = strain_material()
    kept = [(obj, list(obj.data.materials)) for obj in bodies]
    for obj in bodies:
        obj.softfem.output_strain = True
        obj.data.materials.clear()
        obj.data.materials.append(mat)
    try:
        return render_frames(scene, camera, folder, STRAIN_FRAMES, "strain")
    finally:
        for obj, materials in kept:
            obj.softfem.output_strain = False
            obj.data.materials.clear()
            for material in materials:
                obj.data.materials.append(material)


def add_object(name, data, location=(0.0, 0.0, 0.0), rotation=(0.0, 0.0, 0.0), mat=None, smooth=False):
    """Link a new object for data (a mesh, camera or light) into the scene."""
    obj = bpy.data.objects.new(name, data)
    obj.location = location
    obj.rotation_euler = rotation
    bpy.context.scene.collection.objects.link(obj)
    if mat is not None:
        data.materials.append(mat)
    if smooth:
        data.polygons.foreach_set("use_smooth", [True] * len(data.polygons))
    return obj


def bmesh_mesh(name, build):
    """A mesh filled by build(bm)."""
    bm = bmesh.new()
    build(bm)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    return mesh


def box_mesh(name, lo, hi):
    """An axis-aligned box from corner lo to corner hi, in world coordinates (identity object transform)."""
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    size = [b - a for a, b in zip(lo, hi)]
    matrix = Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0))
    return bmesh_mesh(name, lambda bm: bmesh.ops.create_cube(bm, size=1.0, matrix=matrix))


def with_modifier_applied(mesh, kind, **settings):
    """A new mesh: `mesh` with one modifier (e.g. SUBSURF, DECIMATE) applied; `mesh` is removed."""
    tmp = bpy.data.objects.new("tmp", mesh)
    bpy.context.scene.collection.objects.link(tmp)
    modifier = tmp.modifiers.new("tmp", kind)
    for key, value in settings.items():
        setattr(modifier, key, value)
    result = bpy.data.meshes.new_from_object(tmp.evaluated_get(bpy.context.evaluated_depsgraph_get()))
    result.name = mesh.name
    bpy.data.objects.remove(tmp)
    bpy.data.meshes.remove(mesh)
    return result


def monkey_mesh(name):
    """Blender's Suzanne, ~0.4 m wide, Catmull-Clark subdivided once (real vertices: they are what collides;
    a Subdivision Surface modifier after the simulation smooths it for the render)."""
    mesh = bmesh_mesh(name, lambda bm: bmesh.ops.create_monkey(bm, matrix=Matrix.Diagonal((0.15, 0.15, 0.15, 1.0))))
    return with_modifier_applied(mesh, "SUBSURF", levels=1)


def torus_mesh(name):
    """Blender's torus primitive: a rubber ring 0.45 m across, 0.13 m thick (768 vertices)."""
    bpy.ops.mesh.primitive_torus_add(major_radius=0.16, minor_radius=0.065, major_segments=48, minor_segments=16)
    obj = bpy.context.active_object
    mesh = obj.data
    bpy.data.objects.remove(obj)
    mesh.name = name
    return mesh


def add_collider(obj):
    """Give obj a Collision modifier (what SoftFEM collides with)."""
    obj.modifiers.new("Collision", "COLLISION")
    obj.collision.thickness_outer = COLLIDER_THICKNESS
    return obj


def stair_boxes():
    """(lo, hi) corners of the stair boxes, lowest first."""
    boxes = []
    for k in range(STEPS):
        x_end = TOP_END if k == STEPS - 1 else (k + 1) * RUN
        boxes.append(((k * RUN, -WIDTH / 2, 0.0), (x_end, WIDTH / 2, (k + 1) * RISE)))
    return boxes


def build_scene():
    """Floor, staircase, the two soft bodies, camera, lights, world; returns the soft body objects."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    scene.frame_start, scene.frame_end = FRAME_START, FRAME_END

    floor = add_object("Floor", bmesh_mesh("Floor", lambda bm: bmesh.ops.create_grid(
        bm, x_segments=1, y_segments=1, size=40.0)), mat=principled("Floor", (0.30, 0.28, 0.25), 0.75))
    add_collider(floor)
    step_colours = ((0.12, 0.17, 0.26), (0.18, 0.24, 0.34), (0.12, 0.17, 0.26), (0.18, 0.24, 0.34))
    for k, (lo, hi) in enumerate(stair_boxes()):
        add_collider(add_object(f"Step {k + 1}", box_mesh(f"Step {k + 1}", lo, hi),
                                mat=principled(f"Step {k + 1}", step_colours[k], 0.55)))

    bodies = []
    for name, kind, loc, rot, _preset, _res, _stiffness in BODIES:
        mesh = torus_mesh(name) if kind == "torus" else monkey_mesh(name)
        mat = rubber_material() if kind == "torus" else jelly_material()
        obj = add_object(name, mesh, loc, tuple(math.radians(a) for a in rot), mat, smooth=True)
        # After SoftFEM's modifier: smooths the render only (the viewport, which measure() reads, shows the
        # simulated vertices).
        subsurf = obj.modifiers.new("Subdivision", "SUBSURF")
        subsurf.levels, subsurf.render_levels = 0, 1
        bodies.append(obj)

    scene.camera = add_camera("Camera", *MAIN_CAMERA)
    add_camera("Close-up Camera", *CLOSE_CAMERA)
    target = scene.camera.constraints[0].target
    add_light("Key", "SUN", 2.2, (0, 0, 5), (math.radians(50), 0.0, math.radians(-40)), angle=math.radians(6))
    add_light("Fill", "AREA", 150.0, (-3.0, -2.5, 1.5), None, size=3.0, target=target)
    add_light("Rim", "AREA", 300.0, (2.5, 3.0, 3.0), None, size=1.5, target=target)

    world = bpy.data.worlds.new("World")
    if world.node_tree is None:
        world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.55, 0.62, 0.75, 1.0)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.25
    scene.world = world
    return bodies


def add_camera(name, location, look_at, lens):
    """A camera at location aimed at look_at (a Track To constraint on an empty there)."""
    data = bpy.data.cameras.new(name)
    data.lens = lens
    cam = add_object(name, data, location)
    target = bpy.data.objects.new(name + " Target", None)
    target.location = look_at
    bpy.context.scene.collection.objects.link(target)
    track = cam.constraints.new("TRACK_TO")
    track.target = target
    return cam


def add_light(name, kind, energy, location, rotation, angle=None, size=None, target=None):
    """A sun or area light, aimed by rotation or by a Track To constraint on target."""
    data = bpy.data.lights.new(name, kind)
    data.energy = energy
    if angle is not None:
        data.angle = angle
    if size is not None:
        data.size = size
    light = add_object(name, data, location, rotation or (0.0, 0.0, 0.0))
    if target is not None:
        track = light.constraints.new("TRACK_TO")
        track.target = target
    return light


def configure_render(scene):
    """Cycles on the CPU: few samples, OIDN denoising, bounces capped for speed."""
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = SAMPLES
    scene.cycles.use_adaptive_sampling = True
    scene.cycles.use_denoising = True
    scene.cycles.denoising_prefilter = "NONE"  # the full-quality OIDN prefilter costs more than it shows here
    scene.cycles.max_bounces = 2
    scene.cycles.transmission_bounces = 2
    scene.cycles.glossy_bounces = 1
    scene.cycles.diffuse_bounces = 1
    scene.cycles.transparent_max_bounces = 4
    scene.cycles.caustics_reflective = False
    scene.cycles.caustics_refractive = False
    scene.view_settings.view_transform = "AgX"
    scene.view_settings.look = "AgX - Medium High Contrast"
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


def simulate(bodies, result):
    """Add Soft Body on each body with its preset and resolution, bake with the add-on's operator; record
    what is missing."""
    missing = [op for op in ("add_soft_body", "bake") if not operator_exists(op)]
    if missing:
        result["missing"] += [f"bpy.ops.softfem.{op}" for op in missing]
        return False
    bpy.context.scene.softfem.substeps = SUBSTEPS
    for obj, (_name, _kind, _loc, _rot, preset, resolution, stiffness) in zip(bodies, BODIES):
        obj.softfem.resolution = resolution
        bpy.ops.object.select_all(action="DESELECT")
        obj.select_set(True)
        bpy.context.view_layer.objects.active = obj
        ret = bpy.ops.softfem.add_soft_body()
        if "FINISHED" not in ret:
            result["missing"].append(f"add_soft_body on {obj.name} returned {sorted(ret)}")
            return False
        obj.softfem.preset = preset
        if stiffness is not None:
            obj.softfem.youngs_modulus = stiffness
    t = time.perf_counter()
    ret = bpy.ops.softfem.bake()
    result["bake_seconds"] = round(time.perf_counter() - t, 2)
    if "FINISHED" not in ret:
        result["missing"].append(f"bake returned {sorted(ret)}")
        return False
    return True


def render_frames(scene, camera, folder, frames, name):
    """Render the given frames through camera to folder/<name>_####.png; return the paths."""
    scene.camera = camera
    paths = []
    os.makedirs(folder, exist_ok=True)
    for frame in frames:
        scene.frame_set(frame)
        path = os.path.join(folder, f"{name}_{frame:04d}.png")
        scene.render.filepath = path
        bpy.ops.render.render(write_still=True)
        paths.append(path)
    return paths


def encode_video(frame_paths, out_path):
    """Encode the rendered PNGs into an H.264 MP4 through Blender's own FFmpeg (sequencer scene)."""
    video = bpy.data.scenes.new("SoftFEM Video")
    video.render.fps, video.render.fps_base = FPS // VIDEO_STEP, 1.0
    video.render.resolution_x, video.render.resolution_y = RESOLUTION
    video.render.resolution_percentage = VIDEO_PERCENT
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


def main(zip_path, out_dir, frames=None, still_frames=STILL_FRAMES):
    """Install the zip, build and bake the scene, save the .blend, render the video's frames (every
    VIDEO_STEP-th, or the given ones) and the video, and the stills through both cameras."""
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
    if simulated:
        t = time.perf_counter()
        demo_measure.measure(MODULE, bodies, scene, stair_boxes(), range(FRAME_START, FRAME_END + 1), result)
        result["measure_seconds"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()
    # Without a simulation only the start frame is honest: an animation of still objects would mislead.
    if frames is None:
        frames = list(range(FRAME_START, FRAME_END + 1, VIDEO_STEP)) if simulated else [FRAME_START]
    main_camera, close_camera = bpy.data.objects["Camera"], bpy.data.objects["Close-up Camera"]
    scene.render.resolution_percentage = VIDEO_PERCENT
    result["renders"] = render_frames(scene, main_camera, os.path.join(out_dir, "frames"), frames, "frame")
    result["render_seconds_per_frame"] = round((time.perf_counter() - t) / len(frames), 2)
    scene.render.resolution_percentage = 100
    if simulated and still_frames:
        t = time.perf_counter()
        stills = os.path.join(out_dir, "stills")
        result["stills"] = (render_frames(scene, main_camera, stills, still_frames, "main")
                            + render_frames(scene, close_camera, stills, still_frames, "close"))
        result["still_seconds_each"] = round((time.perf_counter() - t) / len(result["stills"]), 2)
    if simulated and still_frames:
        scene.render.resolution_percentage = VIDEO_PERCENT
        t = time.perf_counter()
        result["strain_renders"] = render_strain_shot(scene, bodies, close_camera, os.path.join(out_dir, "strain"))
        result["strain_seconds_per_frame"] = round((time.perf_counter() - t) / len(STRAIN_FRAMES), 2)
        result["strain_video"] = encode_video(result["strain_renders"], os.path.join(out_dir,
                                                                                       "softfem_demo_strain.mp4"))
        scene.render.resolution_percentage = 100
    scene.camera = main_camera
    if simulated and len(frames) > 1:
        t = time.perf_counter()
        result["video"] = encode_video(result["renders"], os.path.join(out_dir, "softfem_demo.mp4"))
        result["encode_seconds"] = round(time.perf_counter() - t, 2)
    result["scene_seconds"] = round(time.perf_counter() - t0, 1)
    print("SOFTFEM_DEMO_RESULT=" + json.dumps(result), flush=True)


if __name__ == "__main__":
    main(os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2]))
