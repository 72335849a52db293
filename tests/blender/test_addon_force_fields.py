"""Blender force fields on SoftFEM bodies: a Wind field's steady drift strength/flow, the Effector Weights, the
gravity factor."""
import math

import numpy as np
from addon_testing import add_ico


def free_ball(bpy, frames):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    ball = add_ico(bpy, subdivisions=1, location=(0.0, 0.0, 2.0))
    ball.softfem.resolution = 4
    ball.softfem.youngs_modulus = 1e6
    bpy.ops.object.select_all(action='DESELECT')
    ball.select_set(True)
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    return scene, ball


def ball_in_wind(bpy, frames):
    """A free ball without gravity and a Wind field 3 m behind it: strength 3, flow 4, so the drift is 0.75 m/s
    along the field's Z axis (+X)."""
    scene, ball = free_ball(bpy, frames)
    scene.use_gravity = False
    bpy.ops.object.effector_add(type='WIND', location=(-3.0, 0.0, 2.0), rotation=(0.0, math.pi / 2, 0.0))
    wind = bpy.context.active_object
    wind.field.strength, wind.field.flow = 3.0, 4.0
    return scene, ball, wind


def centre_velocity(softfem, scene, frame):
    sess = softfem.addon.session.existing(scene)
    (x, v, _), = sess.state(frame)
    m = sess.world.model.mass
    return (m @ v) / m.sum()


def play(scene, frames):
    for f in frames:
        scene.frame_set(f)


def test_wind_pushes_a_body_at_the_steady_drift_strength_over_flow(blender, softfem):
    bpy = blender
    scene, ball, wind = ball_in_wind(bpy, 48)
    play(scene, range(1, 49))                                # 2 s: e^(-8) of the start remains
    v = centre_velocity(softfem, scene, 48)
    np.testing.assert_allclose(v, (0.75, 0.0, 0.0), atol=0.0075)   # within 1 %
    assert softfem.addon.session.existing(scene).positions(scene, ball.name, 48)[:, 0].mean() > 0.9

    ball.softfem.effector_weights.wind = 0.0                 # weighted out: no drift
    play(scene, range(1, 9))
    assert np.abs(centre_velocity(softfem, scene, 8)).max() < 1e-9


def test_a_wind_whose_disable_in_viewports_is_keyframed_blows_only_where_it_is_enabled(blender, softfem):
    # Session 43: keyframing the monitor icon changed the set of fields in mid-play, which outdated the cache.
    bpy = blender
    scene, ball, wind = ball_in_wind(bpy, 24)
    for frame, disabled in ((1, True), (12, False)):
        wind.hide_viewport = disabled
        wind.keyframe_insert('hide_viewport', frame=frame)
    play(scene, range(1, 25))
    assert np.abs(centre_velocity(softfem, scene, 11)).max() < 1e-9       # no wind yet
    assert centre_velocity(softfem, scene, 24)[0] > 0.3                  # 0.5 s of it: 0.75 (1 - e^(-2)) m/s
    status = softfem.addon.status.cache_status(scene)
    assert not status["outdated"] and status["frames"] == 24 and status["error"] is None


def test_gravity_factor_scales_the_fall(blender, softfem):
    bpy = blender
    scene, ball = free_ball(bpy, 6)
    ball.softfem.effector_weights.gravity = 0.5
    play(scene, range(1, 7))
    # backward Euler keeps each free body's momentum balance exact: v after 5 frames = 5 frames · 0.5 g
    v = centre_velocity(softfem, scene, 6)
    np.testing.assert_allclose(v, (0.0, 0.0, 0.5 * scene.gravity[2] * 5 / 24.0), rtol=1e-6, atol=1e-9)


def test_speed_scales_simulated_time(blender, softfem):
    bpy = blender
    scene, ball = free_ball(bpy, 5)
    scene.softfem.time_scale = 0.5
    play(scene, range(1, 6))
    v = centre_velocity(softfem, scene, 5)       # 4 frames of 1/48 s each under g
    np.testing.assert_allclose(v, (0.0, 0.0, scene.gravity[2] * 4 / 48.0), rtol=1e-6, atol=1e-9)
