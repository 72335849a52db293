"""Run inside a throwaway Blender (fresh process): install the SoftFEM zip, build the demo scene, bake, render.

Usage: python demo_scene.py ZIP OUT_DIR  (HOME and BLENDER_USER_RESOURCES already point at a temp dir).
Prints `SOFTFEM_DEMO_RESULT=<json>` as its last line: what ran, what is missing, the figures measured.
It never stands in for a missing part: without the add-on's operators nothing is simulated and it says so.
"""
import importlib
import json
import math
import os
import sys
import time

import bpy
import bmesh  # after bpy: bmesh is only importable once bpy is
import numpy as np
from mathutils import Matrix

MODULE = "bl_ext.user_default.softfem"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNNY_OBJ = os.path.join(REPO, "..", "shared", "models", "stanford-bunny.obj")
FPS = 24
FRAME_START, FRAME_END = 1, 73  # 3 s
SUBSTEPS = 4  # the add-on's default
RESOLUTION = (480, 270)
SAMPLES = 8
COLLIDER_THICKNESS = 0.005  # m: Collision thickness_outer of the steps and the floor
# Staircase along x, descending toward -x: box k spans x in [k RUN, (k+1) RUN] (the top one runs on to
# TOP_END) and z in [0, (k+1) RISE], y in [-WIDTH/2, WIDTH/2].
STEPS, RISE, RUN, TOP_END, WIDTH = 4, 0.2, 0.5, 2.1, 1.6
# The soft bodies: name, mesh builder, location, rotation (XYZ Euler, degrees), material preset, cage resolution,
# Young's modulus instead of the preset's (None: the preset's). The Jelly preset (5 kPa) is a dessert-sized
# jelly: a 40 cm Suzanne of it slumps under her own weight (ρ g h ≈ 3 kPa), so hers is a firm 25 kPa gel.
BODIES = (
    ("Rubber Bunny", "bunny", (1.25, -0.12, 0.75), (0.0, 0.0, 200.0), "RUBBER", 10, None),
    ("Jelly Suzanne", "monkey", (1.2, -0.08, 1.45), (-20.0, 0.0, -20.0), "JELLY", 10, 2.5e4),
)


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
    """Green jelly: light scattered under the surface (subsurface: clean at few samples, where transmission
    sparkles), under a glossy coat."""
    return principled("Jelly", (0.1, 0.75, 0.08), roughness=0.2, Subsurface_Weight=1.0, Subsurface_Scale=0.1,
                      Subsurface_Radius=(1.0, 1.0, 0.5), Coat_Weight=0.6, Coat_Roughness=0.05)


def rubber_material():
    """Satin orange-red rubber."""
    return principled("Rubber", (0.85, 0.22, 0.05), roughness=0.45, Coat_Weight=0.3, Coat_Roughness=0.2)


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


def bunny_mesh(name):
    """The Stanford bunny (shared models) holes filled, decimated to ~3.5k triangles, Z up, ~0.45 m long, its base at z = 0 and
    centred on the origin."""
    bpy.ops.wm.obj_import(filepath=BUNNY_OBJ, forward_axis="NEGATIVE_Z", up_axis="Y")
    obj = bpy.context.selected_objects[0]
    mesh = obj.data
    mesh.transform(obj.matrix_basis)
    bpy.data.objects.remove(obj)
    bm = bmesh.new()
    bm.from_mesh(mesh)
    bmesh.ops.holes_fill(bm, edges=bm.edges, sides=0)  # the scan's open base: else it shows as dark holes
    bm.to_mesh(mesh)
    bm.free()
    mesh = with_modifier_applied(mesh, "DECIMATE", ratio=0.05)
    co = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    lo, hi = co.min(axis=0), co.max(axis=0)
    s = 0.45 / float((hi - lo)[:2].max())
    centre = (lo + hi) / 2
    mesh.transform(Matrix.Diagonal((s, s, s, 1.0)) @ Matrix.Translation((-centre[0], -centre[1], -lo[2])))
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
        mesh = bunny_mesh(name) if kind == "bunny" else monkey_mesh(name)
        mat = rubber_material() if kind == "bunny" else jelly_material()
        obj = add_object(name, mesh, loc, tuple(math.radians(a) for a in rot), mat, smooth=True)
        # After SoftFEM's modifier: smooths the render only (the viewport, which measure() reads, shows the
        # simulated vertices).
        subsurf = obj.modifiers.new("Subdivision", "SUBSURF")
        subsurf.levels, subsurf.render_levels = 0, 1
        bodies.append(obj)

    cam_data = bpy.data.cameras.new("Camera")
    cam_data.lens = 32
    cam = add_object("Camera", cam_data, (-1.5, -3.0, 1.75))
    target = bpy.data.objects.new("Camera Target", None)
    target.location = (0.65, 0.0, 0.45)
    scene.collection.objects.link(target)
    track = cam.constraints.new("TRACK_TO")
    track.target = target
    scene.camera = cam

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
    scene.cycles.max_bounces = 4
    scene.cycles.transmission_bounces = 4
    scene.cycles.glossy_bounces = 2
    scene.cycles.diffuse_bounces = 2
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


def world_vertices(obj):
    """obj's simulated vertex positions in world space (its viewport evaluation: without the render's
    subdivision), (n,3), and its triangles (m,3)."""
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    co = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    mesh.calc_loop_triangles()
    tris = np.empty(len(mesh.loop_triangles) * 3, np.int64)
    mesh.loop_triangles.foreach_get("vertices", tris)
    matrix = np.array(evaluated.matrix_world)
    evaluated.to_mesh_clear()
    return co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3], tris.reshape(-1, 3)


def collider_depth(points):
    """Per point, how deep it is inside the floor (below z = 0) or a stair box (distance to the nearest face)."""
    depth = np.maximum(-points[:, 2], 0.0)
    for lo, hi in stair_boxes():
        d = np.minimum(points - np.array(lo), np.array(hi) - points).min(axis=1)
        depth = np.maximum(depth, d)
    return depth


def body_depth(points, other_vertices, other_tris, winding_number):
    """Per point, its distance to the other body's surface where it is inside that surface (winding number
    above 1/2), else 0."""
    from mathutils.bvhtree import BVHTree
    depth = np.zeros(len(points))
    lo, hi = other_vertices.min(axis=0), other_vertices.max(axis=0)
    near = np.flatnonzero(np.all((points >= lo) & (points <= hi), axis=1))
    if len(near) == 0:
        return depth
    inside = near[winding_number(other_vertices, other_tris)(points[near]) > 0.5]
    if len(inside):
        tree = BVHTree.FromPolygons(other_vertices.tolist(), other_tris.tolist())
        depth[inside] = [tree.find_nearest(p)[3] for p in points[inside].tolist()]
    return depth


def cage_states(scene):
    """{body name: (tets, [(frame, node positions)])} from the add-on's cache files (what was simulated)."""
    session = importlib.import_module(MODULE + ".addon.session")
    cache_files = importlib.import_module(MODULE + ".addon.cache_files")
    cage = importlib.import_module(MODULE + ".addon.cage")
    paths = cache_files.list_frames(*session.cache_location(scene))
    states = {obj.name: (cage.get_cage(obj).tets, []) for obj in session.soft_bodies(scene)}
    for frame in sorted(paths):
        for name, x, _v in cache_files.read_frame(paths[frame])[2]:
            states[name][1].append((frame, x))
    return states


def signed_volumes(x, tets):
    """Signed volume of every tet (positive: as at rest, where the tets are oriented positively)."""
    a, b, c, d = (x[tets[:, i]] for i in range(4))
    return np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) / 6.0


def measure(bodies, scene, result):
    """Per body, over the baked frames: cage volume kept, inverted cage tets, deepest render vertex inside a
    collider and inside the other body; the lowest point at the end."""
    winding_number = importlib.import_module(MODULE + ".core.geometry").WindingNumber
    figures = {obj.name: {"max_collider_penetration_m": 0.0, "max_body_penetration_m": 0.0} for obj in bodies}
    for frame in range(FRAME_START, FRAME_END + 1):
        scene.frame_set(frame)
        meshes = {obj.name: world_vertices(obj) for obj in bodies}
        for obj in bodies:
            f = figures[obj.name]
            points = meshes[obj.name][0]
            depth = float(collider_depth(points).max())
            if depth > f["max_collider_penetration_m"]:
                f["max_collider_penetration_m"], f["max_collider_penetration_frame"] = round(depth, 4), frame
            for other in bodies:
                if other is not obj:
                    depth = float(body_depth(points, *meshes[other.name], winding_number).max())
                    if depth > f["max_body_penetration_m"]:
                        f["max_body_penetration_m"], f["max_body_penetration_frame"] = round(depth, 4), frame
            if frame == FRAME_END:
                f["end_lowest_z_m"] = round(float(points[:, 2].min()), 4)
    for name, (tets, frames) in cage_states(scene).items():
        f = figures[name]
        rest = signed_volumes(frames[0][1], tets).sum()
        kept = [signed_volumes(x, tets).sum() / rest for _frame, x in frames]
        inverted = [int((signed_volumes(x, tets) <= 0).sum()) for _frame, x in frames]
        f["cage_tets"] = len(tets)
        f["volume_kept_end"] = round(kept[-1], 4)
        f["volume_kept_min"] = round(min(kept), 4)
        f["inverted_tets_end"] = inverted[-1]
        f["inverted_tets_max"] = max(inverted)
        f["frames_with_inverted_tets"] = sum(1 for n in inverted if n)
        if f["end_lowest_z_m"] < -0.05:
            result["problems"].append(f"{name} fell through the colliders (lowest point z = "
                                      f"{f['end_lowest_z_m']} m at frame {FRAME_END}, floor at z = 0)")
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


def main(zip_path, out_dir, frames=None):
    """Install the zip, build and bake the scene, save the .blend, render frames (all, or the given ones)
    and the video."""
    result = {"missing": [], "problems": [], "renders": [], "video": None}
    t0 = time.perf_counter()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.context.preferences.filepaths.save_version = 0  # no .blend1 backups in demo_out
    if not os.path.isfile(BUNNY_OBJ):
        result["missing"].append(f"the shared bunny model {os.path.normpath(BUNNY_OBJ)}")
        print("SOFTFEM_DEMO_RESULT=" + json.dumps(dict(result, simulated=False)), flush=True)
        return
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
        measure(bodies, scene, result)
        result["measure_seconds"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()
    # Without a simulation only the start frame is honest: an animation of still objects would mislead.
    if frames is None:
        frames = list(range(FRAME_START, FRAME_END + 1)) if simulated else [FRAME_START]
    result["renders"] = render_frames(scene, out_dir, frames)
    result["render_seconds_per_frame"] = round((time.perf_counter() - t) / len(frames), 2)
    if simulated and len(frames) > 1:
        t = time.perf_counter()
        result["video"] = encode_video(result["renders"], os.path.join(out_dir, "softfem_demo.mp4"))
        result["encode_seconds"] = round(time.perf_counter() - t, 2)
    result["scene_seconds"] = round(time.perf_counter() - t0, 1)
    print("SOFTFEM_DEMO_RESULT=" + json.dumps(result), flush=True)


if __name__ == "__main__":
    main(os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2]))
