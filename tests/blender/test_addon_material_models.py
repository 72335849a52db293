"""The material model (obj.softfem.material_model, Mooney-Rivlin coefficients) and the integrator
(scene.softfem.integrator): what the presets pick, what reaches the core, what outdates the cache, every preset
playing a dropped ball, and a Mooney-Rivlin the core refuses reported in one line naming the object."""
import numpy as np
import pytest
from addon_testing import add_ico, add_rubber_cube, evaluated_world


def play(scene, frames):
    for f in frames:
        scene.frame_set(f)


def make_ball(bpy, frames=4):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    ball = add_ico(bpy, subdivisions=1)
    ball.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    return scene, ball


def test_presets_pick_their_model_and_a_different_model_makes_it_custom(blender, softfem):
    bpy = blender
    presets = softfem.addon.presets.PRESETS
    ball = add_ico(bpy, subdivisions=1)
    s = ball.softfem
    assert s.material_model == "COROTATED" and bpy.context.scene.softfem.integrator == "BACKWARD_EULER"
    for key, preset in presets.items():
        s.preset = key
        assert s.preset == key   # applying a preset's fields one by one does not flip it to Custom
        assert s.material_model == preset["material_model"]
        assert s.youngs_modulus == pytest.approx(preset["youngs_modulus"], rel=1e-6)
    assert {p["material_model"] for k, p in presets.items() if k in ("RUBBER", "SOFT_RUBBER", "SILICONE")} \
        == {"NEO_HOOKEAN"}
    s.preset = "JELLY"
    s.material_model = "MOONEY_RIVLIN"
    assert s.preset == "CUSTOM" and s.material_model == "MOONEY_RIVLIN"
    s.preset = "JELLY"
    assert s.material_model == "NEO_HOOKEAN"
    s.material_model = "NEO_HOOKEAN"   # setting the preset's own model keeps the preset
    assert s.preset == "JELLY"


def test_switching_the_model_or_the_integrator_outdates_the_cache(blender, softfem):
    bpy = blender
    scene, ball = make_ball(bpy, frames=6)
    status = softfem.addon.status.cache_status
    session = softfem.addon.session
    play(scene, range(1, 4))
    sess = session.existing(scene)
    assert sess.bodies[0].handle.material.model == "corotated"
    assert sess.world.settings.integrator == "backward_euler" and sess.world.settings.newton_iterations == 1
    assert not status(scene)["outdated"] and status(scene)["frames"] == 3

    ball.softfem.mooney_rivlin_c01 = 5.0e3   # not the body's model: nothing it simulated depends on it
    assert not status(scene)["outdated"]

    ball.softfem.material_model = "NEO_HOOKEAN"
    assert status(scene)["outdated"]
    calls = sess.core_calls
    scene.frame_set(4)
    assert sess.core_calls == calls            # outdated: nothing simulated past it
    play(scene, range(1, 4))
    assert not status(scene)["outdated"] and status(scene)["frames"] == 3
    assert sess.bodies[0].handle.material.model == "neo_hookean"

    ball.softfem.material_model = "MOONEY_RIVLIN"
    play(scene, range(1, 3))
    m = sess.bodies[0].handle.material
    assert (m.model, m.mooney_rivlin_c01, m.mooney_rivlin_c10) == (
        "mooney_rivlin", pytest.approx(ball.softfem.mooney_rivlin_c01), pytest.approx(ball.softfem.mooney_rivlin_c10))
    ball.softfem.mooney_rivlin_c10 *= 2.0      # the body's own coefficients
    assert status(scene)["outdated"]
    play(scene, range(1, 3))
    assert not status(scene)["outdated"]

    scene.softfem.integrator = "NEWMARK"
    assert status(scene)["outdated"]
    calls = sess.core_calls
    scene.frame_set(3)
    assert sess.core_calls == calls
    play(scene, range(1, 4))
    assert sess.world.settings.integrator == "newmark"
    assert sess.world.settings.newton_iterations == 2   # Auto (0): Newmark needs two to keep its energy
    assert not status(scene)["outdated"] and status(scene)["frames"] == 3 and sess.error is None


def volume(p, tris):
    a, b, c = p[tris[:, 0]], p[tris[:, 1]], p[tris[:, 2]]
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


@pytest.mark.parametrize("integrator", ["BACKWARD_EULER", "NEWMARK"])
def test_every_preset_plays_a_ball_dropped_on_a_plane(blender, softfem, integrator):
    """The add-on's defaults (resolution, substeps) but the preset and the integrator: a dessert-sized icosphere
    (30 cm across) dropped 30 cm onto a Collision plane lands and rests with no diverged frame, finite vertices,
    nothing through the plane and at least 90 % of its volume (measured at the end with backward Euler: Jelly 97.6 %,
    79 % before issue 15's continuation below the stretch floor; the others 99.5-100 %; a 50 cm Jelly ball dropped
    50 cm: tests/core/test_hyperelastic_volume.py)."""
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 36
    scene.softfem.integrator = integrator
    bpy.ops.mesh.primitive_plane_add(size=20.0)
    plane = bpy.context.active_object
    plane.modifiers.new("Collision", 'COLLISION')
    thickness = plane.collision.thickness_outer
    ball = add_ico(bpy, subdivisions=3, radius=0.15, location=(0.0, 0.0, thickness + 0.15 + 0.3))
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    ball.data.calc_loop_triangles()
    tris = np.array([t.vertices[:] for t in ball.data.loop_triangles])
    session = softfem.addon.session
    failures = []
    for key, preset in softfem.addon.presets.PRESETS.items():
        ball.softfem.preset = key
        scene.frame_set(1)
        v0 = volume(evaluated_world(bpy, ball), tris)
        lowest = np.inf
        for f in range(2, 37):
            scene.frame_set(f)
            p = evaluated_world(bpy, ball)
            if not np.all(np.isfinite(p)):
                failures.append(f"{key}: non-finite vertices at frame {f}")
                break
            lowest = min(lowest, p[:, 2].min())
        sess = session.existing(scene)
        assert sess.bodies[0].handle.material.model == preset["material_model"].lower()
        assert sess.world.settings.integrator == integrator.lower()
        if sess.error or sess.diverged_at is not None or sess.last_frame() != 36:
            failures.append(f"{key}: {sess.error} (last frame {sess.last_frame()})")
        elif lowest < thickness - 0.005:
            failures.append(f"{key}: sank to z = {lowest:.3f} m through the plane (thickness {thickness} m)")
        elif lowest > thickness + 0.02:
            failures.append(f"{key}: never reached the plane (lowest z = {lowest:.3f} m)")
        elif volume(p, tris) < 0.9 * v0:
            failures.append(f"{key}: ends with {volume(p, tris) / v0:.0%} of its volume")
    assert not failures, failures


def test_a_rubber_body_is_solved_to_the_cg_tolerance_and_a_soft_one_with_block_jacobi(blender, softfem, monkeypatch):
    # The Rubber cube is stiff for its cage: the add-on solves it with multigrid, every step within the CG's cap and to
    # its tolerance while it falls and lands. Block-Jacobi stopped at the cap (50) every step there, its residual up to
    # 0.24. The same cube in the default material (E = 1e5: stiffness number 13) keeps block-Jacobi, cheaper there.
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 8
    cube = add_rubber_cube(bpy)
    World = softfem.addon.dependencies.load_core().World
    steps, step = [], World.step

    def recording_step(self, dt):
        step(self, dt)
        steps.append(dict(self.stats, preconditioner_setting=self.settings.preconditioner,
                          cap=self.settings.cg_iterations, tolerance=self.settings.cg_tolerance))

    monkeypatch.setattr(World, "step", recording_step)
    scene.softfem.adaptive_substeps = False   # every frame its Substeps: the steps are counted
    play(scene, range(1, 9))
    assert len(steps) == 7 * scene.softfem.substeps
    assert any(s["contacts"] for s in steps)   # it landed
    for s in steps:
        assert s["preconditioner"] == "multigrid"
        assert s["contact_converged"]   # in contact: the contact solve met its tolerance within its cap
        assert s["cg_residual"] <= s["tolerance"]
    cube.softfem.preset = "CUSTOM"
    cube.softfem.youngs_modulus, cube.softfem.density = 1.0e5, 1000.0
    steps.clear()
    play(scene, range(1, 4))
    assert steps and all(s["preconditioner_setting"] == "jacobi" for s in steps)


def test_a_mooney_rivlin_the_core_refuses_is_one_line_naming_the_object_and_keeps_the_cache(blender, softfem):
    bpy = blender
    scene, ball = make_ball(bpy)
    status = softfem.addon.status.cache_status
    cache_files = softfem.addon.cache_files
    session, scene_settings = softfem.addon.session, softfem.addon.scene_settings
    play(scene, range(1, 4))
    files = sorted(cache_files.list_frames(*scene_settings.cache_location(scene)).values())
    assert len(files) == 3
    stamps = [open(f, "rb").read() for f in files]

    s = ball.softfem
    s.material_model = "MOONEY_RIVLIN"
    s.mooney_rivlin_c01 = s.mooney_rivlin_c10 = 0.0
    play(scene, range(1, 3))
    sess = session.existing(scene)
    error = sess.error
    assert error and "\n" not in error and "Traceback" not in error
    assert "'Ball'" in error and "mooney_rivlin_c01 + mooney_rivlin_c10" in error
    with pytest.raises(RuntimeError) as exc:
        bpy.ops.softfem.bake()
    message = str(exc.value)
    assert "Traceback" not in message and message.count("\n") <= 1 and "'Ball'" in message
    assert not scene.softfem.baked
    # the frames simulated before are untouched, and are the cache again once the model is put back
    assert [open(f, "rb").read() for f in files] == stamps
    s.material_model = "COROTATED"
    scene.frame_set(3)
    assert not status(scene)["outdated"] and status(scene)["frames"] == 3 and sess.error is None
