"""The demo's figures, read back from Blender after the bake: volume kept, inverted tets, penetrations, lowest point."""
import importlib

import bpy
import numpy as np


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


def collider_depth(points, boxes):
    """Per point, how deep it is inside the floor (below z = 0) or a box (distance to the box's nearest face)."""
    depth = np.maximum(-points[:, 2], 0.0)
    for lo, hi in boxes:
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


def cage_states(module, scene):
    """{body name: (tets, [(frame, node positions)])} from the add-on's cache files (what was simulated)."""
    scene_settings = importlib.import_module(module + ".addon.scene_settings")
    cache_files = importlib.import_module(module + ".addon.cache_files")
    cage = importlib.import_module(module + ".addon.cage")
    paths = cache_files.list_frames(*scene_settings.cache_location(scene))
    states = {obj.name: (cage.get_cage(obj).tets, []) for obj in scene_settings.soft_bodies(scene)}
    for frame in sorted(paths):
        for name, x, *_ in cache_files.read_frame(paths[frame])[2]:
            states[name][1].append((frame, x))
    return states


def signed_volumes(x, tets):
    """Signed volume of every tet (positive: as at rest, where the tets are oriented positively)."""
    a, b, c, d = (x[tets[:, i]] for i in range(4))
    return np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) / 6.0


def measure(module, bodies, scene, boxes, frames, result):
    """Per body, over the baked frames: cage volume kept, inverted cage tets, deepest render vertex inside a
    collider (the floor and the boxes) and inside the other body; the lowest point at the end. A body that
    fell through the floor is a problem in result."""
    winding_number = importlib.import_module(module + ".core.geometry").WindingNumber
    figures = {obj.name: {"max_collider_penetration_m": 0.0, "max_body_penetration_m": 0.0} for obj in bodies}
    for frame in frames:
        scene.frame_set(frame)
        meshes = {obj.name: world_vertices(obj) for obj in bodies}
        for obj in bodies:
            f = figures[obj.name]
            points = meshes[obj.name][0]
            depth = float(collider_depth(points, boxes).max())
            if depth > f["max_collider_penetration_m"]:
                f["max_collider_penetration_m"], f["max_collider_penetration_frame"] = round(depth, 4), frame
            for other in bodies:
                if other is not obj:
                    depth = float(body_depth(points, *meshes[other.name], winding_number).max())
                    if depth > f["max_body_penetration_m"]:
                        f["max_body_penetration_m"], f["max_body_penetration_frame"] = round(depth, 4), frame
            if frame == frames[-1]:
                f["end_lowest_z_m"] = round(float(points[:, 2].min()), 4)
    for name, (tets, states) in cage_states(module, scene).items():
        f = figures[name]
        rest = signed_volumes(states[0][1], tets).sum()
        kept = [signed_volumes(x, tets).sum() / rest for _frame, x in states]
        inverted = [int((signed_volumes(x, tets) <= 0).sum()) for _frame, x in states]
        f["cage_tets"] = len(tets)
        f["volume_kept_end"] = round(kept[-1], 4)
        f["volume_kept_min"] = round(min(kept), 4)
        f["inverted_tets_end"] = inverted[-1]
        f["inverted_tets_max"] = max(inverted)
        f["frames_with_inverted_tets"] = sum(1 for n in inverted if n)
        if f["end_lowest_z_m"] < -0.05:
            result["problems"].append(f"{name} fell through the colliders (lowest point z = "
                                      f"{f['end_lowest_z_m']} m at frame {frames[-1]}, floor at z = 0)")
    result["bodies"] = figures
