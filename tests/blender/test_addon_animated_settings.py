"""Animated settings: a keyframed Young's modulus and friction (of a body or a collider) are read per frame, change the
motion, and do not outdate the cache; editing the animation does. Settings that cannot vary in time are not
animatable."""
import numpy as np
from addon_testing import add_ico, evaluated_world


def scene_with_ball(bpy):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 8
    bpy.ops.mesh.primitive_plane_add(size=4.0, location=(0.0, 0.0, 0.0))
    bpy.context.active_object.modifiers.new("Collision", 'COLLISION')
    bpy.context.active_object.collision.thickness_outer = 0.0
    ball = add_ico(bpy, subdivisions=2, location=(0.0, 0.0, 0.55))
    ball.softfem.resolution = 4
    ball.softfem.youngs_modulus = 2e4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    return scene, ball


def play(softfem, bpy, scene, frames):
    status = softfem.addon.status.cache_status
    for f in frames:
        scene.frame_set(f)
        bpy.context.view_layer.update()
        assert not status(scene)["outdated"], f


def test_keyframed_youngs_modulus_and_friction_play_through_without_outdating_the_cache(blender, softfem,
                                                                                         monkeypatch):
    bpy = blender
    scene, ball = scene_with_ball(bpy)
    play(softfem, bpy, scene, range(1, 9))
    sess = softfem.addon.session.existing(scene)
    constant = sess.positions(scene, ball.name, 8).copy()

    ball.softfem.youngs_modulus = 2e4
    ball.keyframe_insert('softfem.youngs_modulus', frame=1)
    ball.softfem.youngs_modulus = 2e3
    ball.keyframe_insert('softfem.youngs_modulus', frame=8)
    ball.softfem.friction = 0.5
    ball.keyframe_insert('softfem.friction', frame=1)
    ball.softfem.friction = 0.1
    ball.keyframe_insert('softfem.friction', frame=8)
    used = []
    set_material = softfem.core.body.Body.set_material
    monkeypatch.setattr(softfem.core.body.Body, "set_material",
                        lambda body, m: used.append((m.youngs_modulus, m.friction)) or set_material(body, m))
    scene.softfem.adaptive_substeps = False         # every frame its Substeps: the steps are counted
    scene.frame_set(1)                              # the animation is new: outdated, re-simulated from frame 1
    sess = softfem.addon.session.existing(scene)
    calls = sess.core_calls
    play(softfem, bpy, scene, range(2, 9))
    assert sess.core_calls - calls == 7 * scene.softfem.substeps   # every frame simulated once, none reset
    assert sess.cached_frames() == list(range(1, 9))
    fcurves = {fc.data_path: fc for fc in softfem.addon.animation._curves(ball, "softfem.youngs_modulus")
               + softfem.addon.animation._curves(ball, "softfem.friction")}
    expected = [(fcurves["softfem.youngs_modulus"].evaluate(f), fcurves["softfem.friction"].evaluate(f))
                for f in range(2, 9)]
    np.testing.assert_allclose(used, expected, rtol=1e-6)     # the values of the frame being simulated
    animated = sess.positions(scene, ball.name, 8)
    assert np.abs(animated - constant).max() > 1e-3          # softer over time: the motion changed
    calls = sess.core_calls
    play(softfem, bpy, scene, range(1, 9))                   # played again: all cached
    assert sess.core_calls == calls

    fc = fcurves["softfem.youngs_modulus"]
    fc.keyframe_points[1].co.y = 5e3                          # editing the animation outdates the cache
    bpy.context.view_layer.update()
    assert softfem.addon.status.cache_status(scene)["outdated"]


def test_a_colliders_keyframed_friction_holds_a_cube_on_a_slope_then_lets_it_slide(blender, softfem):
    # Blender's default cube (0.2 m, the defaults, μ 0.8) on a 30° Collision plane whose friction is keyframed
    # 0.8 -> 0.05 (constant) at frame 24: μ = √(0.8 · 0.8) holds it, √(0.8 · 0.05) = 0.2 slides it at 3.2 m/s².
    # (The collider's friction was read once, at the start frame: it never slid.)
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 48
    tilt = np.radians(30.0)
    bpy.ops.mesh.primitive_plane_add(size=20.0, rotation=(0.0, tilt, 0.0))
    slope = bpy.context.active_object
    slope.modifiers.new("Collision", 'COLLISION')
    slope.softfem.friction = 0.8
    slope.keyframe_insert('softfem.friction', frame=1)
    slope.softfem.friction = 0.05
    slope.keyframe_insert('softfem.friction', frame=24)
    for curve in softfem.addon.animation._curves(slope, "softfem.friction"):
        for key in curve.keyframe_points:
            key.interpolation = 'CONSTANT'
    normal = np.array([np.sin(tilt), 0.0, np.cos(tilt)])
    bpy.ops.mesh.primitive_cube_add(size=0.2, location=tuple((0.1 + 0.021) * normal), rotation=(0.0, tilt, 0.0))
    cube = bpy.context.active_object
    cube.softfem.friction = 0.8
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    downhill = np.array([np.cos(tilt), 0.0, -np.sin(tilt)])
    along = {}
    for f in range(1, 49):
        scene.frame_set(f)
        along[f] = float(np.mean(evaluated_world(bpy, cube) @ downhill))
    # (frame 24 is simulated at its own μ, 0.05: the step into it already slides)
    assert abs(along[23] - along[6]) < 0.005, along[23] - along[6]
    assert along[48] - along[24] > 0.5, along[48] - along[24]      # 1 s at 3.2 m/s²: 1.6 m


def collision_floor(bpy):
    """A 4 m Collision plane at the origin."""
    bpy.ops.mesh.primitive_plane_add(size=4.0)
    floor = bpy.context.active_object
    floor.modifiers.new("Collision", 'COLLISION')
    return floor


def test_a_floor_whose_collision_checkbox_is_keyframed_off_lets_the_ball_resting_on_it_fall_through(blender,
                                                                                                      softfem):
    # Round 4: the keyframed checkbox changed the set of colliders in mid-play, which outdated the cache: from the
    # key on, the ball was drawn back at its start, 0.68 m up, and Bake failed at that frame.
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 36
    floor = collision_floor(bpy)
    floor.keyframe_insert('collision.use', frame=1)
    floor.collision.use = False
    floor.keyframe_insert('collision.use', frame=24)
    floor.collision.use = True
    ball = add_ico(bpy, subdivisions=1, radius=0.3, location=(0.0, 0.0, 0.5))
    ball.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    low = {}
    for f in range(1, 37):
        scene.frame_set(f)
        low[f] = evaluated_world(bpy, ball)[:, 2].min()
    assert abs(low[23] - floor.collision.thickness_outer) < 0.002       # resting on the floor's shell
    assert low[36] < -0.5                                                # 0.5 s of free fall: 1.2 m
    status = softfem.addon.status.cache_status(scene)
    assert not status["outdated"] and status["frames"] == 36 and status["error"] is None
    assert bpy.ops.softfem.bake() == {'FINISHED'}


def test_keyframed_disable_in_viewports_switches_a_floor_on_and_off_and_keeps_a_body_simulated(blender, softfem):
    # Session 43: a floor whose monitor icon was keyframed (appearing at frame 8) changed the set of colliders in
    # mid-play: the cache went outdated at the key and the ball was drawn at its start, 1.2 m up, from then on. A body
    # whose own monitor icon is keyframed dropped out of the simulation the same way.
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 40
    floor = collision_floor(bpy)
    for frame, disabled in ((1, True), (8, False), (30, True)):
        floor.hide_viewport = disabled
        floor.keyframe_insert('hide_viewport', frame=frame)
    ball = add_ico(bpy, subdivisions=1, radius=0.3, location=(0.0, 0.0, 0.9))
    ball.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    ghost = add_ico(bpy, subdivisions=1, radius=0.3, location=(1.5, 0.0, 0.9))   # shown from frame 20 on
    ghost.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    ghost.hide_viewport = True
    ghost.keyframe_insert('hide_viewport', frame=1)
    ghost.hide_viewport = False
    ghost.keyframe_insert('hide_viewport', frame=20)
    scene.frame_set(1)
    low = {}
    for f in range(1, 41):
        scene.frame_set(f)
        low[f] = {o.name: evaluated_world(bpy, o)[:, 2].min() for o in (ball, ghost)}
    shell = floor.collision.thickness_outer
    shell = floor.collision.thickness_outer
    on_floor = [low[f][ball.name] for f in range(10, 30)]
    assert min(on_floor) > shell - 0.002 and min(on_floor) < shell + 0.002   # it landed on the floor that appeared
    assert low[40][ball.name] < -0.5                                          # gone from frame 30: it falls through
    # simulated while disabled: when shown at frame 20 it is where the ball beside it is, having fallen 0.55 m
    assert abs(low[20][ghost.name] - low[20][ball.name]) < 1e-4 and low[20][ghost.name] < 0.1
    status = softfem.addon.status.cache_status(scene)
    assert not status["outdated"] and status["frames"] == 40 and status["error"] is None


def test_animated_gravity_is_read_per_frame(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 5
    ball = add_ico(bpy, subdivisions=1, location=(0.0, 0.0, 2.0))
    ball.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    scene.gravity = (0.0, 0.0, -9.81)
    scene.keyframe_insert('gravity', frame=2)
    scene.gravity = (0.0, 0.0, 9.81)
    scene.keyframe_insert('gravity', frame=3)
    for fc in scene.animation_data.action.layers[0].strips[0].channelbags[0].fcurves:
        for k in fc.keyframe_points:
            k.interpolation = 'CONSTANT'
    play(softfem, bpy, scene, range(1, 6))
    sess = softfem.addon.session.existing(scene)
    z = [sess.positions(scene, ball.name, f)[:, 2].mean() for f in range(1, 6)]
    # frame 2 is simulated under gravity -g, frames 3-5 under +g: it falls, then rises back
    assert z[1] < z[0] and z[4] > z[1]


def test_initial_velocity_and_spin(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    scene.use_gravity = False
    scene.softfem.adaptive_substeps = False   # (with fewer steps backward Euler slows the spin more: 1.98 rad/s)
    ball = add_ico(bpy, subdivisions=2, location=(0.0, 0.0, 2.0))
    ball.softfem.resolution = 4
    ball.softfem.youngs_modulus = 1e6
    ball.softfem.initial_velocity = (1.5, 0.0, -0.5)
    ball.softfem.initial_angular_velocity = (0.0, 0.0, 2.0)
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    play(softfem, bpy, scene, range(1, 4))
    sess = softfem.addon.session.existing(scene)
    m = sess.world.model.mass
    (x1, v1, _), = sess.state(1)
    (x3, v3, _), = sess.state(3)
    c1, c3 = (m @ x1) / m.sum(), (m @ x3) / m.sum()
    np.testing.assert_allclose((c3 - c1) * 12.0, (1.5, 0.0, -0.5), rtol=0, atol=1e-3 * 1.5)  # 2 frames = 1/12 s
    # the spin: angular momentum about the centre / moment of inertia about z = 2 rad/s, kept without gravity
    r = x3 - c3
    spin = (m * (r[:, 0] * v3[:, 1] - r[:, 1] * v3[:, 0])).sum() / (m * (r[:, 0] ** 2 + r[:, 1] ** 2)).sum()
    assert abs(spin - 2.0) < 0.02


def test_animated_hand_off_continues_with_the_animation_velocity(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 10
    scene.use_gravity = False
    ball = add_ico(bpy, subdivisions=2, location=(0.0, 0.0, 2.0))
    ball.softfem.resolution = 4
    ball.softfem.youngs_modulus = 1e6
    for frame, x in ((1, 0.0), (6, 5 / 12.0), (8, 5 / 12.0)):   # 2 m/s at 24 fps up to frame 6, then it stops
        ball.location.x = x
        ball.keyframe_insert('location', index=0, frame=frame)
    ball.softfem.animated = True
    ball.keyframe_insert('softfem.animated', frame=1)
    ball.softfem.animated = False
    ball.keyframe_insert('softfem.animated', frame=6)  # animated up to frame 5, simulated from frame 6 on
    bag = softfem.addon.animation.animdata_get_channelbag_for_assigned_slot(ball.animation_data)
    for k in next(fc for fc in bag.fcurves if fc.data_path == "location").keyframe_points:
        k.interpolation = 'LINEAR'
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    play(softfem, bpy, scene, range(1, 11))
    sess = softfem.addon.session.existing(scene)
    m = sess.world.model.mass

    def centre(f):
        return (m @ sess.state(f)[0][0]) / m.sum()
    expected = 2.0
    for f in range(2, 6):                             # following the animation: exactly where it puts the body
        assert abs(centre(f)[0] - centre(1)[0] - (f - 1) / 12.0) < 1e-6
    before = (centre(5)[0] - centre(4)[0]) * 24.0
    after = (centre(8)[0] - centre(7)[0]) * 24.0
    assert abs(before - expected) < 1e-6 * expected
    assert abs(after - before) < 0.01 * before         # continuous within 1 % after the hand-off
    assert abs(centre(10)[0] - centre(1)[0] - 9 / 12.0) < 0.01   # simulated on (the animation stops at 5/12)


def test_an_animated_body_pushes_a_soft_body_without_sinking_into_it(blender, softfem):
    bpy = blender
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 24
    scene.use_gravity = False
    pusher = add_ico(bpy, subdivisions=2, radius=0.3, location=(-0.7, 0.0, 1.0), name="Pusher")
    pusher.softfem.resolution = 4
    for frame, x in ((1, -0.7), (24, -0.7 + 23 / 24.0 * 1.5)):   # 1.5 m/s into the resting ball
        pusher.location.x = x
        pusher.keyframe_insert('location', index=0, frame=frame)
    bag = softfem.addon.animation.animdata_get_channelbag_for_assigned_slot(pusher.animation_data)
    for k in next(fc for fc in bag.fcurves if fc.data_path == "location").keyframe_points:
        k.interpolation = 'LINEAR'
    pusher.softfem.animated = True
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    bpy.ops.object.select_all(action='DESELECT')
    ball = add_ico(bpy, subdivisions=2, radius=0.3, location=(0.0, 0.0, 1.0), name="Pushed")
    ball.softfem.resolution = 4
    assert bpy.ops.softfem.add_soft_body() == {'FINISHED'}
    play(softfem, bpy, scene, range(1, 25))
    sess = softfem.addon.session.existing(scene)
    gaps = []
    for f in range(1, 25):
        p, q = sess.positions(scene, "Pusher", f), sess.positions(scene, "Pushed", f)
        gaps.append(q[:, 0].min() - p[:, 0].max())   # along the push: the pushed ball's back to the pusher's front
        # the pusher is exactly where its animation puts it
        assert abs(p[:, 0].mean() - (-0.7 + (f - 1) / 24.0 * 1.5)) < 0.02
    assert min(gaps) > -0.015                          # 255 mm inside it at 1.5 m/s when it moved freely in a frame
    assert sess.positions(scene, "Pushed", 24)[:, 0].mean() > 0.2   # and it was pushed along
