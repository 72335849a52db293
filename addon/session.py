"""Simulation session: one core.World per scene, stepped on frame changes, with the memory and disk cache."""
import numpy as np

from . import animated_shape, bridge, cage, colliders, effectors, mesh_hashes, scene_warnings
from .runtime_body import Body, centre_of_mass
from .dependencies import load_core
from .frame_cache import FrameCache
from .scene_settings import (body_key, cache_location, frame_range, gravity, material, preconditioner,
                             signature, soft_bodies)
from .soft_body import check_meshes_writable

_SESSIONS = {}
class Session:
    """The simulation of one scene: World, bodies, colliders and the frame cache (memory + files)."""

    def __init__(self, scene_name):
        self.scene_name = scene_name
        self.signature = None
        self.bodies = None
        self.world = None
        self.colliders = []
        self.cache = FrameCache(self.warn)
        self.current = None
        self.outdated = False
        self.diverged_at = None
        self.error = None
        self.warnings = []
        self.core_calls = 0
        self.shown = None   # (frame, [(x, v, motion)]) last shown (what the overlay draws), None when none is

    # ---- status and cache -------------------------------------------------------------------------
    def cached_frames(self):
        """Sorted frames available from memory or disk."""
        return self.cache.cached()

    def last_frame(self):
        """The last cached frame, or None."""
        return self.cache.last()

    def warn(self, message):
        """Record (once) and print a one-line warning (None: nothing to warn about)."""
        if message is not None and message not in self.warnings:
            self.warnings.append(message)
            print("SoftFEM warning:", message)

    def state(self, frame):
        """Cached [(x, v, motion)] of a frame, one per body; None if unavailable."""
        return self.cache.state(frame, self.bodies)

    def _store(self, frame, state, carried=None):
        self.cache.store(frame, self.signature, self.bodies, state, carried)

    def relocate(self, scene):
        """The file was saved (maybe elsewhere) or the Cache Folder changed: the cached frames follow."""
        if self.bodies is not None:
            self.cache.relocate(cache_location(scene), self.signature, self.bodies)

    # ---- building ---------------------------------------------------------------------------------
    def _on_signature_change(self, scene, sig):
        """Settings, mesh, bodies or file changed: adopt a matching disk cache, else mark outdated."""
        self.signature = sig
        self.bodies = None
        self.shown = None
        self.world = None
        self.current = None
        self.colliders = []
        self.diverged_at = None
        self.error = None
        had_cache = self.cache.open(cache_location(scene))
        file_sig = self.cache.file_signature(frame_range(scene)[0])
        baked = scene.softfem.baked
        if file_sig == sig or (baked and file_sig is not None):
            self.outdated = file_sig != sig
            return
        self.outdated = had_cache or bool(self.cache.disk) or baked
        if not baked:
            self.cache.disk = {}

    def _build_bodies(self, scene):
        objects = soft_bodies(scene)
        check_meshes_writable(objects)
        bodies = []
        for obj in objects:
            tm = cage.get_cage(obj)
            if obj.softfem.cage_key != cage.cage_key(obj):   # a new cage (added while the solver was being
                cage.record(obj, tm)                         # prepared, resolution or mesh changed): its counts
            bodies.append(Body(obj, tm))
        self.bodies = bodies
        if objects:
            self.warn(scene_warnings.unit_scale(scene))

    def _rest_state(self, scene, depsgraph):
        """Every body in the shape and place it has now (the start frame), its pins on their targets, moving with its
        Initial Velocity and Initial Spin (about its centre of mass)."""
        state = []
        for body in self.bodies:
            obj = scene.objects[body.name]
            driven = animated_shape.driven_shape(obj, depsgraph, self.warn)
            x = animated_shape.pose(obj, body, driven)
            body.read_pins(obj)
            if len(body.pinned):
                x[body.pinned] = animated_shape.pin_targets(obj, body, driven)
            o = obj.softfem
            v = np.zeros_like(x)
            v[:] = tuple(o.initial_velocity)
            spin = np.array(o.initial_angular_velocity, np.float64)
            if spin.any():
                v += np.cross(spin, x - centre_of_mass(x, body.tm))
            state.append((x, v, None))
        return state

    def _animated_pose(self, obj, body, depsgraph):
        """World cage node positions of an Animated body's animated shape and place at this frame."""
        return animated_shape.pose(obj, body, animated_shape.driven_shape(obj, depsgraph, self.warn))

    def _reset(self, scene, depsgraph):
        """At the start frame: drop the outdated cache, cache the rest state and build the World there
        (colliders start from their start-frame pose)."""
        core = load_core()
        for body in self.bodies:   # a material the core refuses is reported before the outdated cache is dropped
            material(core, scene.objects[body.name])
        if not scene.softfem.baked:
            self.cache.delete_files(cache_location(scene))
        self.cache.frames, self.cache.carry = {}, {}
        self.world = None
        self.current = None
        self.outdated = False
        self.diverged_at = None
        self.error = None
        self._store(frame_range(scene)[0], self._rest_state(scene, depsgraph))
        self._build_world(scene, depsgraph)
        self.current = frame_range(scene)[0]

    def _build_world(self, scene, depsgraph):
        """A core.World with every soft body at its rest state (the cached start frame) and every collider."""
        core = load_core()
        s = scene.softfem
        world = core.World(gravity=gravity(scene), settings=core.SolverSettings(
            newton_iterations=s.newton_iterations or None, cg_iterations=s.cg_iterations,
            integrator=s.integrator.lower()))
        rest = self.state(frame_range(scene)[0])
        if rest is None:
            raise RuntimeError("the start frame is not cached: go to the start frame to re-simulate")
        for body, (x0, *_) in zip(self.bodies, rest):
            obj = scene.objects[body.name]
            body_material = material(core, obj)
            mesh = body.tm.moved(x0)
            body.edge = core.geometry.quality.mean_edge(x0, body.tm.tets)
            body.read_pins(obj)
            scale = body.stiffness_scale(obj)
            body.handle = world.add_body(mesh, body_material, pinned=body.pinned if len(body.pinned) else None,
                                         stiffness_scale=scale, goal_frequency=body.goal_frequency,
                                         self_collision=bool(obj.softfem.self_collision))
            body.goal_poses.setdefault(frame_range(scene)[0], x0[body.handle.goal_nodes])
            self.warn(scene_warnings.too_soft(obj, body_material, x0, gravity(scene), body.pinned))
            self.warn(scene_warnings.mirror_after(obj, bridge.output_modifier(obj)))
        self.colliders = colliders.add_to_world(world, scene, depsgraph, self.warn)
        self._warn_about_starts(core, rest)
        self.world = world
        self._set_state(rest)   # the start frame's velocities (Initial Velocity and Spin)

    def _warn_about_starts(self, core, rest):
        """Warn about bodies that start inside each other, and about bodies small beside a collider's shell."""
        starts = [(body.name, x0, body.tm.tets, body.render_positions(x0)) for body, (x0, *_) in zip(self.bodies, rest)]
        for message in scene_warnings.overlapping(starts, lambda x, tets, p: core.geometry.embed_points(x, tets, p)[0]):
            self.warn(message)
        shells = [(c.name, c.handle.thickness) for c in self.colliders]
        for name, _x0, _tets, points in starts:
            self.warn(scene_warnings.thick_shell(name, points, shells))

    # ---- stepping and display -----------------------------------------------------------------------
    def _external_accelerations(self, core, scene):
        """[(body, core ForceFields, extra gravity (3,))] for the bodies force fields or a gravity factor act on."""
        g = np.array(gravity(scene))
        out = []
        for body in self.bodies:
            weights = scene.objects[body.name].softfem.effector_weights
            fields = effectors.body_fields(core, scene, weights)
            extra = (weights.gravity - 1.0) * g
            if len(fields) or extra.any():
                out.append((body, fields, extra))
        return out

    def _read_animated_settings(self, core, scene):
        """The settings that may vary in time, at the frame being simulated (its values hold over its steps)."""
        self.world.gravity = gravity(scene)
        for body in self.bodies:
            obj = scene.objects[body.name]
            o, m = obj.softfem, body.handle.material
            if (m.youngs_modulus, m.damping_stiffness, m.friction) != (o.youngs_modulus, o.damping, o.friction):
                body.handle.set_material(material(core, obj))
        colliders.read_friction(self.world, self.colliders, scene)
        colliders.read_switches(self.world, self.colliders, scene)

    def _set_state(self, state):
        for body, (x, v, _motion) in zip(self.bodies, state):
            body.handle.x[:] = x
            body.handle.v[:] = v

    def _resume(self, frame):
        """Put the World in the cached state of `frame`, which it did not just simulate: x and v, then what else it
        carried on from that frame (core.World.carried: contact memory, sleep, rotations, goal targets, the colliders'
        places), so the next frame comes out as if played on. Frames of files written before that was cached (or
        that do not fit the scene) resume from x and v alone."""
        self._set_state(self.state(frame))
        carried = self.cache.carried(frame, self.bodies)
        if carried is None:
            return
        try:
            self.world.resume(carried)
        except load_core().InvalidInputError as exc:
            self.warn(f"frame {frame}'s cached solver state does not fit the scene ({exc}): the frames after it are "
                      "simulated from its positions and velocities alone")
            return
        for body in self.bodies:
            if body.goal_frequency is not None:
                body.goal_poses[frame] = body.handle.goal_targets
        for c in self.colliders:       # the frame's places (the World was built at the next frame's)
            if c.handle.start.shape == c.vertices.shape:
                c.vertices = c.handle.start

    def _simulate(self, scene, depsgraph, frame):
        """Step from frame-1 (cached) to frame; cache it. False if the simulation diverged."""
        core = load_core()
        if self.world is None:
            self._build_world(scene, depsgraph)
        if self.current != frame - 1:
            self._resume(frame - 1)
        s = scene.softfem
        targets = [animated_shape.frame_targets(scene.objects[body.name], body, depsgraph, frame, self.warn)
                   for body in self.bodies]
        moves = colliders.frame_targets(self.colliders, scene, depsgraph)
        self._read_animated_settings(core, scene)
        # Animated bodies are driven along their animation through the frame's steps (where it puts them at the
        # frame's end, linearly): a moving obstacle the bodies they push cannot push back. (Moved freely within the
        # frame and put back on the animation at its end, a ball pushing another at 1.5 m/s ended 255 mm inside it.)
        animated = [(body, body.handle.x.copy(), self._animated_pose(scene.objects[body.name], body, depsgraph))
                    for body in self.bodies if scene.objects[body.name].softfem.animated]
        frame_seconds = scene.render.fps_base / scene.render.fps * s.time_scale
        n = frame_steps(core, self.world, s, frame_seconds, moves, targets, animated)
        dt = frame_seconds / n
        # The preconditioner carries nothing over from the frame before, and the motion the CG's warm start
        # extrapolates is the cached one, so the frame comes out the same played on from it or simulated again from
        # its cached state (with what the World carried, _resume) by a fresh World. (Forgotten every frame, the motion
        # made a swinging beam take 404 CG iterations over 96 steps at 4 substeps against 259.)
        self.world.reset_preconditioner()
        self.world.motion = [motion for *_, motion in self.state(frame - 1)]
        self.world.settings.preconditioner = preconditioner(core, self.bodies, dt)
        pushes = self._external_accelerations(core, scene)
        try:
            for k in range(1, n + 1):
                t = k / n
                for body, (pin_a, pin_b, goal_a, goal_b) in zip(self.bodies, targets):
                    if pin_a is not None:
                        body.handle.set_pin_targets(pin_a + (pin_b - pin_a) * t)
                    if goal_a is not None:   # (the frame's targets exactly at its end: where the next one starts)
                        body.handle.set_goal_targets(goal_b if k == n else goal_a + (goal_b - goal_a) * t)
                for body, before, pose in animated:
                    body.handle.drive(before + (pose - before) * t)
                colliders.move(self.world, moves, t)
                for body, fields, extra_gravity in pushes:
                    # Force fields and the gravity factor as a velocity kick before each implicit step (smooth
                    # external forces, first order in dt like the step itself; a drag's steady drift is exact).
                    accel = fields.acceleration(body.handle.x, body.handle.v) if len(fields) else 0.0
                    body.handle.v[:] += dt * (accel + extra_gravity)
                self.core_calls += 1
                self.world.step(dt)
                if not all(np.all(np.isfinite(b.handle.x)) for b in self.bodies):
                    raise core.SimulationDiverged("non-finite node positions")
        except core.SimulationDiverged:
            self.diverged_at = frame
            self.error = (f"simulation diverged at frame {frame}: raise Substeps (now {s.substeps}) or soften the "
                          f"material; frames up to {frame - 1} are kept")
            print("SoftFEM:", self.error)
            self.current = None
            return False
        colliders.commit(self.colliders, moves)
        for body, (*_, goal_end) in zip(self.bodies, targets):
            if goal_end is not None:
                body.goal_poses[frame] = goal_end
        for body, before, pose in animated:
            # Animated: the body is where its animation puts it, moving at the animation's velocity over the
            # frame, which the simulation goes on with once Animated is keyframed off.
            body.handle.x[:] = pose
            body.handle.v[:] = (pose - before) / frame_seconds
        self.current = frame
        for body in self.bodies:
            self.warn(scene_warnings.undrawn_bend(body.name, body.handle.undrawn_bend(), body.handle.x))
        motion = self.world.motion or [None] * len(self.bodies)
        self._store(frame, [(b.handle.x.copy(), b.handle.v.copy(), m) for b, m in zip(self.bodies, motion)],
                    self.world.carried())
        return True

    def _show(self, scene, state):
        for index, (body, (x, *_)) in enumerate(zip(self.bodies, state)):
            obj = scene.objects.get(body.name)
            if obj is None or obj.mode == 'EDIT':  # being edited: its mesh data is not the one shown
                continue
            if bridge.output_modifier(obj) is None:
                self.warn(f"'{obj.name}' has lost its SoftFEM modifier (applied or deleted), so it no longer shows "
                          "the simulation: Remove SoftFEM keeps the mesh as it is; Remove and Add SoftFEM simulates "
                          "it again")
            # Nodes to local space first: a few thousand points instead of every render vertex.
            local = body.render_positions(bridge.to_world(bridge.world_to_local(obj), x))
            if obj.softfem.output_strain:   # from the shown positions: cached and baked frames show them too
                rest = self.state(frame_range(scene)[0])
                if rest is None:
                    raise RuntimeError("Output Strain measures from the start frame, which is not cached: go to the "
                                       "start frame")
                gauge = body.strain_gauge(load_core(), obj, rest[index][0])
                bridge.write_point_values(obj, bridge.STRAIN_ATTRIBUTES, gauge.points_at(x))
            else:
                bridge.remove_attributes(obj.data, bridge.STRAIN_ATTRIBUTES)
            bridge.write_local_positions(obj, local)

    def follow_renames(self, scene):
        """The bodies' object names as they are now (the cache knows them by body_key, which a rename keeps)."""
        if all(scene.objects.get(b.name) is not None and body_key(scene.objects[b.name]) == b.key
               for b in self.bodies):
            return   # (every frame: no walk over the scene's objects unless something was renamed)
        objects = {body_key(o): o for o in soft_bodies(scene)}
        for body in self.bodies:
            obj = objects.get(body.key)
            if obj is not None:
                body.name = obj.name

    def goto(self, scene, depsgraph, frame, subframe=0.0):
        """Show `frame`: the rest state at the start frame, a cached frame, one new simulated frame after a
        cached one, else the last simulated frame. Returns the frame whose state is shown (or None). At a
        `subframe` (0..1, where a render's motion blur samples its shutter) of a cached frame whose next frame is
        cached too, the state between them, linearly (never simulated there: the scene is evaluated between frames)."""
        if self.bodies is not None:
            self.follow_renames(scene)
        sig = signature(scene, fresh=True)
        if sig != self.signature:
            self._on_signature_change(scene, sig)
        if self.bodies is None:
            self._build_bodies(scene)
        elif cache_location(scene) != (self.cache.directory, self.cache.prefix):
            self.relocate(scene)  # the Cache Folder setting changed: the frames follow
        start, end = frame_range(scene)
        baked = scene.softfem.baked
        if frame <= start:
            if frame == start and not baked and (self.outdated or self.state(start) is None):
                self._reset(scene, depsgraph)
            shown = start if self.state(start) is not None else None
        elif self.state(frame) is not None:
            shown = frame
        elif (frame <= end and subframe == 0.0 and not baked and not self.outdated and self.diverged_at is None
              and self.state(frame - 1) is not None and self._simulate(scene, depsgraph, frame)):
            shown = frame
        else:
            earlier = [f for f in self.cached_frames() if f < frame]
            shown = earlier[-1] if earlier else None
        while shown is not None and self.state(shown) is None:  # a bad file found while showing
            earlier = [f for f in self.cached_frames() if f < shown]
            shown = earlier[-1] if earlier else None
        if shown is not None:
            state = self.state(shown)
            after = self.state(frame + 1) if shown == frame and subframe > 0.0 else None
            if after is not None:
                state = [(x + subframe * (x1 - x), v, m) for (x, v, m), (x1, *_) in zip(state, after)]
            self._show(scene, state)
            self.shown = (shown, state)
        else:  # nothing simulated to show (freed, outdated or not yet played): the mesh as modelled
            self.shown = None
            for body in self.bodies:
                obj = scene.objects.get(body.name)
                if obj is not None:
                    bridge.reset_output(obj)
        return shown

    def positions(self, scene, name, frame):
        """World render positions of body `name` at a cached frame (None if not cached)."""
        state = self.state(frame)
        if state is None:
            return None
        self.follow_renames(scene)
        for body, (x, *_) in zip(self.bodies, state):
            if body.name == name:
                return body.render_positions(x)
        return None


def session_for(scene):
    """The scene's Session (created on first use)."""
    sess = _SESSIONS.get(scene.name)
    if sess is None:
        sess = _SESSIONS[scene.name] = Session(scene.name)
    return sess


def existing(scene):
    """The scene's Session if one exists."""
    return _SESSIONS.get(scene.name)


def forget(scene=None):
    """Drop one scene's session, or all of them (new file loaded)."""
    if scene is None:
        _SESSIONS.clear()
        mesh_hashes.forget()
    else:
        _SESSIONS.pop(scene.name, None)


def frame_steps(core, world, settings, frame_seconds, moves, targets, animated):
    """The frame's steps: all the Substeps, or with Adaptive as few as the motion at its start needs
    (core.frame_substeps), counting the colliders, pin targets and animated bodies driven through it."""
    if not settings.adaptive_substeps:
        return settings.substeps
    driven = [verts - c.vertices for c, verts in moves] + [b - a for a, b, *_ in targets if a is not None]
    driven += [pose - before for _, before, pose in animated]
    fastest = max((float(np.sqrt(np.einsum("nd,nd->n", d, d).max(initial=0.0))) for d in driven), default=0.0)
    return core.frame_substeps(world, frame_seconds, settings.substeps, outside_speed=fastest / frame_seconds)
