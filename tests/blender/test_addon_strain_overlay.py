"""Output Strain's point attributes (a squashed ball, baked, saved and reopened, turned off) and the cage overlay's
draw handler (toggle, add-on disable) and geometry (counts against the cage)."""
import numpy as np
from addon_testing import MODULE, add_ico

STRAIN = ("softfem_strain", "softfem_volume_change", "softfem_stress")
FRAMES = 8


def _evaluated_attributes(bpy, obj):
    """{name: (n,) float32} of the strain attributes on the object's evaluated mesh (absent ones left out)."""
    mesh = obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).data
    out = {}
    for name in STRAIN:
        attribute = mesh.attributes.get(name)
        if attribute is not None:
            values = np.empty(len(attribute.data), np.float32)
            attribute.data.foreach_get("value", values)
            out[name] = values
    return out


def _squashed_ball(bpy):
    """A soft 0.5 m ball (E = 30 kPa) 1 cm above a Collision plane, its top vertices pinned in place, Output Strain
    on, frames 1-8 baked: it sags onto the plane."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    bpy.ops.mesh.primitive_plane_add(size=4.0)
    bpy.context.active_object.modifiers.new("Collision", 'COLLISION')
    bpy.context.active_object.collision.thickness_outer = 0.002
    obj = add_ico(bpy, location=(0.0, 0.0, 0.26), subdivisions=2, radius=0.25)
    obj.softfem.resolution = 5
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    obj.softfem.youngs_modulus = 3e4
    obj.softfem.output_strain = True
    assert bpy.ops.softfem.bake() == {'FINISHED'}
    return scene, obj


def test_strain_at_the_contact_patch_kept_through_save_and_reopen_and_absent_when_off(blender, softfem, tmp_path):
    import addon_utils
    bpy = blender
    scene, obj = _squashed_ball(bpy)
    scene.frame_set(FRAMES)
    values = _evaluated_attributes(bpy, obj)
    assert set(values) == set(STRAIN)
    z = obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).to_mesh().attributes["position"]
    co = np.empty(len(z.data) * 3, np.float32)
    z.data.foreach_get("vector", co)
    obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).to_mesh_clear()
    height = co.reshape(-1, 3)[:, 2]
    bottom, top = height < height.min() + 0.04, height > height.max() - 0.04
    strain = values["softfem_strain"]
    assert strain[bottom].mean() > 0.01
    assert strain[top].mean() < 0.2 * strain[bottom].mean()
    mu = 3e4 / (2 * 1.45)
    np.testing.assert_allclose(values["softfem_stress"], 3 * mu * strain, rtol=1e-5, atol=1e-3)
    assert values["softfem_volume_change"][bottom].mean() < 0.0   # squashed

    name, blend = obj.name, str(tmp_path / "squash.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    addon_utils.enable(MODULE, default_set=True)
    bpy.ops.wm.open_mainfile(filepath=blend)
    scene = bpy.context.scene
    obj = scene.objects[name]
    scene.frame_set(2)
    scene.frame_set(FRAMES)
    again = _evaluated_attributes(bpy, obj)
    for name in STRAIN:
        np.testing.assert_array_equal(again[name], values[name])
    assert softfem.addon.session.existing(scene).core_calls == 0   # from the baked frames, not simulated again

    obj.softfem.output_strain = False
    assert _evaluated_attributes(bpy, obj) == {}
    assert not any(obj.data.attributes.get(name) for name in STRAIN)
    scene.frame_set(3)
    assert _evaluated_attributes(bpy, obj) == {}
    obj.softfem.output_strain = True   # shown again at once, at this frame
    assert set(_evaluated_attributes(bpy, obj)) == set(STRAIN)


def test_overlay_handler_follows_its_toggle_and_the_addon_and_draws_the_cage(blender, softfem):
    import addon_utils
    bpy = blender
    overlay = softfem.addon.overlay
    scene, obj = _squashed_ball(bpy)
    group = obj.vertex_groups.new(name="Top")
    group.add([v.index for v in obj.data.vertices if v.co.z > 0.2], 1.0, 'REPLACE')
    assert not overlay.drawing()
    scene.softfem.show_overlay = True
    assert overlay.drawing()
    scene.frame_set(FRAMES)
    sess = softfem.addon.session.existing(scene)
    body = sess.bodies[0]
    tets = body.tm.tets
    edges = {tuple(sorted((int(t[a]), int(t[b])))) for t in tets for a in range(4) for b in range(a + 1, 4)}
    shapes = overlay.geometry(scene)
    assert shapes["edges"] == len(edges)
    x = sess.state(FRAMES)[0][0]
    drawn = {tuple(sorted(map(int, pair))) for pair in body.cage_edges()[0]}
    assert drawn == edges
    np.testing.assert_allclose(shapes["lines"][:2 * len(edges)], x[body.cage_edges()[0]].reshape(-1, 3), atol=1e-6)
    assert shapes["contacts"] == len(sess.world.contacts)   # the last frame baked is the one just simulated
    scene.frame_set(FRAMES - 1)
    assert overlay.geometry(scene)["contacts"] == 0   # a cached frame: its contacts are not kept
    assert len(shapes["points"]) == len(body.pinned) == 0

    # Simulated frames: the top pinned, the contacts of the frame just simulated as lines
    assert bpy.ops.softfem.free_bake() == {'FINISHED'}
    obj.softfem.pin_group = "Top"
    for f in range(1, 4):
        scene.frame_set(f)
    sess = softfem.addon.session.existing(scene)
    body = sess.bodies[0]
    shapes = overlay.geometry(scene)
    assert len(body.pinned) > 0 and len(shapes["points"]) == len(body.pinned)
    np.testing.assert_allclose(shapes["points"], sess.state(3)[0][0][body.pinned], atol=1e-6)
    assert shapes["contacts"] == len(sess.world.contacts) > 0
    assert len(shapes["lines"]) == len(shapes["line_colours"]) == 2 * (shapes["edges"] + shapes["contacts"])
    calls = sess.core_calls
    obj.softfem.output_strain = False   # not a setting the frames depend on: the cache stays
    scene.frame_set(2)
    assert not sess.outdated and sess.core_calls == calls and sess.last_frame() == 3
    plain = shapes["line_colours"][:2 * shapes["edges"]]
    scene.softfem.overlay_quality = True
    coloured = overlay.geometry(scene)["line_colours"][:2 * shapes["edges"]]
    assert not np.allclose(coloured, plain) and np.all(coloured[:, 1] > 0.0)   # no flat or inverted tet

    overlay._draw()   # headless, Blender draws nothing: the callback reports that once and does not raise
    assert overlay._failed

    scene.softfem.show_overlay = False
    assert not overlay.drawing()
    scene.softfem.show_overlay = True
    assert overlay.drawing()
    addon_utils.disable(MODULE, default_set=True)
    try:
        assert not overlay.drawing()
    finally:
        addon_utils.enable(MODULE, default_set=True)


def test_an_attribute_node_renders_the_strain(blender, softfem, tmp_path):
    """A material reading softfem_strain through an Attribute node into a Color Ramp (blue at 0, red at 0.15), rendered
    by Cycles: the squashed ball's contact patch comes out red, its top blue."""
    bpy = blender
    scene, obj = _squashed_ball(bpy)
    mat = bpy.data.materials.new("Strain")
    if mat.node_tree is None:
        mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    attribute, ramp = nodes.new("ShaderNodeAttribute"), nodes.new("ShaderNodeValToRGB")
    attribute.attribute_name = "softfem_strain"
    ramp.color_ramp.elements[0].color = (0.0, 0.0, 1.0, 1.0)
    ramp.color_ramp.elements[1].color = (1.0, 0.0, 0.0, 1.0)
    ramp.color_ramp.elements[1].position = 0.15
    emission = nodes.new("ShaderNodeEmission")
    links.new(attribute.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], emission.inputs["Color"])
    links.new(emission.outputs["Emission"], nodes["Material Output"].inputs["Surface"])
    obj.data.materials.append(mat)
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(camera)
    camera.location, camera.rotation_euler = (0.0, -1.6, 0.25), (np.radians(90.0), 0.0, 0.0)
    scene.camera = camera
    scene.objects["Plane"].visible_camera = False   # (its reflection of the ball would look like the ball)
    scene.view_settings.view_transform = 'Standard'
    scene.render.engine, scene.cycles.device, scene.cycles.samples = 'CYCLES', 'CPU', 4
    scene.render.resolution_x, scene.render.resolution_y = 80, 60
    scene.render.filepath = str(tmp_path / "strain.png")
    scene.frame_set(FRAMES)
    bpy.ops.render.render(write_still=True)
    image = bpy.data.images.load(scene.render.filepath)
    pixels = np.array(image.pixels[:]).reshape(60, 80, 4)   # rows from the bottom
    column = pixels[:, 37:43].mean(axis=1)
    ball = np.flatnonzero(column[:, :3].sum(axis=1) > 0.1)   # the emitting ball against the black world
    bottom, top = column[ball[:3]], column[ball[-3:]]
    assert bottom[:, 0].mean() > 2 * bottom[:, 2].mean() and top[:, 2].mean() > 2 * top[:, 0].mean()
