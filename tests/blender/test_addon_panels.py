"""The sidebar's draw functions run in every state against a stand-in layout that records (and checks) calls."""
from types import SimpleNamespace

from addon_testing import add_ico


class Layout:
    """Records labels, props and operators; checks that props and operators exist."""

    def __init__(self, log):
        self.log = log
        self.alert = False
        self.enabled = True
        self.use_property_split = False

    def _child(self, *_args, **_kwargs):
        return Layout(self.log)

    column = row = box = split = _child

    def label(self, text="", icon='NONE'):
        self.log.append(("label", text, self.alert))

    def separator(self, **_kwargs):
        pass

    def prop(self, data, name, **_kwargs):
        assert name in data.bl_rna.properties, f"{data} has no property {name}"
        assert data.bl_rna.properties[name].description, f"{name} has no tooltip"
        self.log.append(("prop", name, self.alert))

    def prop_search(self, data, name, search_data, search_name, **_kwargs):
        assert name in data.bl_rna.properties and hasattr(search_data, search_name)
        self.log.append(("prop", name, self.alert))

    def operator(self, idname, **_kwargs):
        import bpy
        module, name = idname.split(".")
        assert hasattr(bpy.types, f"{module.upper()}_OT_{name}"), f"operator {idname} is not registered"
        self.log.append(("operator", idname, self.alert))


def draw_all(softfem, bpy, obj, physics=False):
    """Draw every SoftFEM panel of the sidebar (or of Properties > Physics whose poll() passes, and the SoftFEM
    button among Blender's physics buttons); return the recorded calls."""
    log = []
    context = SimpleNamespace(scene=bpy.context.scene, object=obj)
    if not physics:
        for cls in softfem.panels.sidebar.CLASSES:
            cls.draw(SimpleNamespace(layout=Layout(log)), context)
        return log
    softfem.panels.physics.draw_physics_button(SimpleNamespace(layout=Layout(log)), context)
    for cls in softfem.panels.physics.CLASSES:
        if cls.poll(context):
            panel = SimpleNamespace(layout=Layout(log))
            cls.draw(panel, context)
            assert panel.layout.use_property_split, cls
            log.append(("panel", cls.__name__, False))
    return log


def texts(log, kind="label"):
    return [entry[1] for entry in log if entry[0] == kind]


def test_panels_draw_in_every_state(blender, softfem, monkeypatch):
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3

    log = draw_all(softfem, bpy, None)  # nothing selected
    assert "Select a mesh object" in texts(log)

    obj = add_ico(bpy, subdivisions=1)
    obj.softfem.resolution = 4
    log = draw_all(softfem, bpy, obj)  # a mesh that is no soft body yet
    assert "softfem.add_soft_body" in texts(log, "operator")
    assert "Select a SoftFEM body" in texts(log)

    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    log = draw_all(softfem, bpy, obj)  # cage built, nothing simulated
    assert f"Nodes: {obj.softfem.cage_nodes}" in texts(log) and obj.softfem.cage_nodes > 0
    assert {"youngs_modulus", "poisson_ratio", "density", "damping", "friction", "pin_group",
            "stiffness_group", "mode", "resolution", "substeps", "cache_directory", "material_model",
            "integrator"} <= set(texts(log, "prop"))
    assert "mooney_rivlin_c10" not in texts(log, "prop")
    obj.softfem.material_model = "MOONEY_RIVLIN"
    obj.softfem.mooney_rivlin_c10 = obj.softfem.mooney_rivlin_c01 = 0.0
    log = draw_all(softfem, bpy, obj)  # Mooney-Rivlin: its coefficients, refused ones in red
    assert {"mooney_rivlin_c10", "mooney_rivlin_c01"} <= set(texts(log, "prop"))
    assert any("C10 + C01 must be above 0" in t and alert for kind, t, alert in log if kind == "label")
    obj.softfem.material_model = "COROTATED"
    assert "Nothing cached yet" in texts(log)

    for f in (1, 2, 3):
        scene.frame_set(f)
    log = draw_all(softfem, bpy, obj)  # cached
    assert "3 frames cached (1-3)" in texts(log)
    assert not any(t.startswith("Cache outdated") for t in texts(log))

    obj.softfem.poisson_ratio = 0.3
    log = draw_all(softfem, bpy, obj)  # outdated
    assert any(t.startswith("Cache outdated") and alert for kind, t, alert in log if kind == "label")
    scene.frame_set(1)

    assert bpy.ops.softfem.bake() == {'FINISHED'}
    log = draw_all(softfem, bpy, obj)  # baked
    assert "Baked: frames 1-3" in texts(log)
    assert "softfem.free_bake" in texts(log, "operator") and "softfem.bake" not in texts(log, "operator")

    obj.softfem.pin_group = "Missing"
    log = draw_all(softfem, bpy, obj)  # a pin group that does not exist
    assert any("Pin group 'Missing' not found" in t and alert for kind, t, alert in log if kind == "label")
    obj.softfem.pin_group = ""

    floor = add_ico(bpy, name="Floor")
    floor.modifiers.new("Collision", 'COLLISION')
    log = draw_all(softfem, bpy, floor)  # a collider: its friction
    assert "friction" in texts(log, "prop") and "Collider: Floor" in texts(log)

    monkeypatch.setattr(softfem.addon.dependencies, "missing_modules", lambda: ["numba"])
    log = draw_all(softfem, bpy, obj)  # numba missing
    assert any("numba" in t and alert for kind, t, alert in log if kind == "label")
    assert bpy.ops.softfem.add_soft_body.poll() is not None  # operators still registered


def test_physics_panels_are_registered_beside_blenders_physics(blender, softfem):
    import bpy
    panel = bpy.types.PHYSICS_PT_softfem
    assert (panel.bl_space_type, panel.bl_region_type, panel.bl_context) == ('PROPERTIES', 'WINDOW', "physics")
    for name in ("PHYSICS_PT_softfem_cage", "PHYSICS_PT_softfem_solver", "PHYSICS_PT_softfem_cache"):
        assert getattr(bpy.types, name).bl_parent_id == "PHYSICS_PT_softfem"
    assert softfem.panels.physics.draw_physics_button in bpy.types.PHYSICS_PT_add._dyn_ui_initialize()
    assert bpy.types.SOFTFEM_OT_add_soft_body.bl_label == "Add SoftFEM"
    assert bpy.types.SOFTFEM_OT_remove_soft_body.bl_label == "Remove SoftFEM"
    assert bpy.context.scene.objects is not None and hasattr(bpy.ops.softfem, "add_soft_body")


def test_physics_panels_draw_in_every_state(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    assert draw_all(softfem, bpy, None, physics=True) == []       # no object: nothing drawn

    bpy.ops.object.empty_add()
    assert draw_all(softfem, bpy, bpy.context.object, physics=True) == []   # not a mesh

    obj = add_ico(bpy, subdivisions=1)
    obj.softfem.resolution = 4
    log = draw_all(softfem, bpy, obj, physics=True)              # a mesh: the SoftFEM button adds
    assert texts(log, "operator").count("softfem.add_soft_body") == 2
    assert texts(log, "panel") == ["PHYSICS_PT_softfem"]

    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    log = draw_all(softfem, bpy, obj, physics=True)              # a body: the button removes, every panel shows
    assert "softfem.remove_soft_body" in texts(log, "operator")
    assert texts(log, "panel") == ["PHYSICS_PT_softfem", "PHYSICS_PT_softfem_cage", "PHYSICS_PT_softfem_fields",
                                   "PHYSICS_PT_softfem_solver", "PHYSICS_PT_softfem_cache"]
    assert {"youngs_modulus", "animated", "initial_velocity", "resolution", "substeps", "time_scale", "wind",
            "gravity", "use_frame_range", "collision_collection", "cache_directory"} <= set(texts(log, "prop"))
    assert "Nothing cached yet" in texts(log)
    for f in (1, 2, 3):
        scene.frame_set(f)
    assert "3 frames cached (1-3)" in texts(draw_all(softfem, bpy, obj, physics=True))
    assert bpy.ops.softfem.bake() == {'FINISHED'}
    assert "Baked: frames 1-3" in texts(draw_all(softfem, bpy, obj, physics=True))

    floor = add_ico(bpy, name="Floor")
    floor.modifiers.new("Collision", 'COLLISION')
    log = draw_all(softfem, bpy, floor, physics=True)            # a collider: its friction
    assert "friction" in texts(log, "prop") and "Collider: Floor" in texts(log)
