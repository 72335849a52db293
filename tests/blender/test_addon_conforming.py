"""Conforming mode through the add-on: fTetWild on an open mesh, the Tetrahedralize summary line, one-line errors."""
import importlib
import os
import sys

import numpy as np
import pytest

from addon_testing import MODULE, REPO, add_ico
from test_addon_panels import draw_all, texts


def open_box(bpy, name="OpenBox"):
    """Blender's default cube with its top face deleted: an open mesh."""
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 1.0))
    obj = bpy.context.active_object
    obj.name = name
    mesh = obj.data
    top = [p.index for p in mesh.polygons if p.center.z > 0.49]
    import bmesh
    bm = bmesh.new()
    bm.from_mesh(mesh)
    bm.faces.ensure_lookup_table()
    bmesh.ops.delete(bm, geom=[bm.faces[i] for i in top], context='FACES_ONLY')
    bm.to_mesh(mesh)
    bm.free()
    return obj


def state(obj):
    co = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.vertices.foreach_get("co", co)
    s = obj.softfem
    return co.tobytes(), s.cage_key, s.cage_nodes, s.cage_tets, s.cage_summary


def ftetwild_module():
    return importlib.import_module(MODULE + ".core.geometry.ftetwild")


def test_conforming_on_an_open_mesh_and_the_summary_line(blender, softfem):
    if not ftetwild_module().available():
        pytest.skip("pytetwild (fTetWild) is not installed")
    bpy = blender
    obj = open_box(bpy)
    obj.softfem.resolution = 6
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    assert obj.softfem.cage_summary.startswith("Cage: ") and "open mesh filled" in obj.softfem.cage_summary
    obj.softfem.mode = "CONFORMING"
    obj.softfem.envelope = 0.002
    log = draw_all(softfem, bpy, obj)
    assert "envelope" in texts(log, "prop")
    assert bpy.ops.softfem.tetrahedralize() == {'FINISHED'}
    summary = obj.softfem.cage_summary
    assert summary.startswith("Conforming: ") and "tets" in summary and "quality" in summary
    filled = float(summary.split("open mesh filled: ")[1].split(" ")[0])
    assert 0.95 < filled < 1.01, summary           # the 1 m cube
    assert summary in texts(draw_all(softfem, bpy, obj))
    assert obj.softfem.cage_tets > 100 and obj.softfem.cage_quality > 0.1


def test_an_open_car_body_gets_its_holes_capped_and_the_summary_line_says_so(blender, softfem):
    """Cage mode on a car body open in its windows, arches and floor (winding number ~0.58 at its centre: no clear
    inside), tests/core/open_shapes.car_body: its 9 holes are capped and the line says how many."""
    sys.path.insert(0, os.path.join(REPO, "tests", "core"))
    from open_shapes import car_body
    bpy = blender
    v, t = car_body()
    mesh = bpy.data.meshes.new("CarBody")
    mesh.from_pydata(v.tolist(), [], t.tolist())
    obj = bpy.data.objects.new("CarBody", mesh)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    for o in bpy.context.selected_objects:
        o.select_set(False)
    obj.select_set(True)
    obj.softfem.resolution = 8
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    summary = obj.softfem.cage_summary
    assert "open mesh filled" in summary and summary.endswith("(9 holes capped)"), summary
    filled = float(summary.split("open mesh filled: ")[1].split(" ")[0])
    assert 0.9 * 4.0 * 1.8 * 1.4 < filled < 1.01 * 4.0 * 1.8 * 1.4, summary


def test_ftetwild_failing_or_too_slow_reports_one_line_and_leaves_the_object_alone(blender, softfem, monkeypatch):
    bpy = blender
    obj = add_ico(bpy, subdivisions=2)
    obj.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    obj.softfem.mode = "CONFORMING"
    before = state(obj)
    ftw = ftetwild_module()
    if ftw.available():
        with pytest.raises(RuntimeError) as exc:
            bpy.ops.softfem.tetrahedralize(time_limit=0.05)
        assert "longer than 0.05 s" in str(exc.value) and str(exc.value).count("\n") <= 1
        assert state(obj) == before
    monkeypatch.setattr(ftw, "_available", False)   # pytetwild missing
    with pytest.raises(RuntimeError) as exc:
        bpy.ops.softfem.tetrahedralize()
    assert "needs fTetWild" in str(exc.value) and "cage mode does not" in str(exc.value)
    assert state(obj) == before
    monkeypatch.setattr(softfem.addon.dependencies, "ftetwild_found", lambda: False)
    monkeypatch.setattr(softfem.panels.sidebar, "ftetwild_found", lambda: False)
    assert any("needs fTetWild" in t for t in texts(draw_all(softfem, bpy, obj)))
    obj.softfem.mode = "CAGE"                        # cage mode never needs it
    assert bpy.ops.softfem.tetrahedralize() == {'FINISHED'}
