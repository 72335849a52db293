"""World: the soft bodies simulated together (one global system), stepped by SolverSettings.integrator."""
import time

import numpy as np

from .body import Body
from .carry import take
from .contact import ContactStage
from .errors import InvalidInputError, SimulationDiverged
from .fem.force_model import ForceModel
from .threads import ElementThreads, running_on, solver_threads
from .material import Material
from .model import Model
from .node_rows import add_rows, all_finite
from .settings import SolverSettings
from .goals import Goals, goal_omega2
from .sleep import Sleep, seen_motion, support_normals, swept_boxes
from .geometry.quality import mean_edge
from .solve.auto_preconditioner import stiff_for_jacobi
from .solve.implicit_step import implicit_step
from .solve.multigrid import Multigrid
from .solve.static import solve_static
from .state import State
from .warm_start import LastMotion
from .tetmesh import TetMesh

__all__ = ["World", "SolverSettings"]


class World:
    """Bodies stepped together: all nodes in one global state, one CG solve per Newton iteration.

    world = World(gravity=(0, 0, -9.81), settings=SolverSettings())
    body = world.add_body(mesh, material, pinned=None, stiffness_scale=None, goal_frequency=None, self_collision=False)
    world.step(dt); world.solve_static(); world.stats

    world.sleeping (default True): bodies come to rest (core.sleep). A body touching something whose render points
    (a body without an embedding: its nodes) all move slower than core.sleep.SETTLE_SPEED settles: its motion
    other than sliding or rolling on its support is damped at SETTLE_DAMPING. An island of touching bodies whose
    render points all stay slower than SLEEP_SPEED for SLEEP_TIME falls asleep: it is held still until a moving body
    or collider comes near one of its bodies, their pins move, or their x / v are written (world.wake() wakes every
    body). When every body sleeps, a step costs nothing.
    """

    def __init__(self, gravity=(0.0, 0.0, -9.81), settings=None):
        self.gravity = gravity
        self.settings = SolverSettings() if settings is None else settings
        if not isinstance(self.settings, SolverSettings):
            raise InvalidInputError("settings must be a core.SolverSettings")
        self.bodies = []
        self._specs = []
        self._edges = []    # each body's mean cage edge at rest (m): its stiffness number (stiff_for_jacobi)
        self._model = None
        self._threads = ElementThreads(0)
        self._state = None
        self._force_model = None
        self._force_model_key = None
        self._pin_target = np.zeros((0, 3))
        self._pin_target_set = np.zeros(0, dtype=bool)
        self._driven = np.zeros(0, dtype=bool)   # nodes of bodies driven through the next step (Body.drive)
        self._goals = Goals()
        self._contact = ContactStage()   # colliders and body surfaces: the step's contact problem
        self._sleep = Sleep()
        self.sleeping = True
        self._multigrid = Multigrid()   # the CG preconditioner's aggregates, kept across steps
        self._motion = LastMotion()
        self.stats = {}

    @property
    def gravity(self):
        return self._gravity.copy()

    @gravity.setter
    def gravity(self, value):
        g = np.asarray(value, dtype=np.float64)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise InvalidInputError(f"gravity must be 3 finite numbers, got {value!r}")
        if hasattr(self, "_gravity") and not np.array_equal(g, self._gravity):
            self.wake()
        self._gravity = g

    @property
    def model(self):
        """The immutable Model of all bodies (rebuilt when a body is added)."""
        return self._model

    @property
    def state(self):
        """The live global State (x, v, rotations, DAPD witnesses of all bodies)."""
        return self._state

    def add_body(self, mesh, material, pinned=None, stiffness_scale=None, goal_frequency=None, self_collision=False):
        """Add a soft body. pinned: node indices (integers), or a per-node weight array (float,
        weight > 0.5 pinned) or bool mask; stiffness_scale: per-tet factor (M,) on Young's modulus;
        goal_frequency: per node (N,) in Hz, a spring m (2π f)² pulling the node toward its goal target
        (Body.set_goal_targets; at first its rest place), 0 for none (core.goals); self_collision: its render surface
        also collides with itself (core.contact.self_contact: the same rows and solve as contact between bodies, its
        contacts reported with other_body == the body itself). Off by default: a detailed render mesh pays for it every
        step, folding or not (see core.contact.self_contact).
        Returns the Body handle; the body starts at rest in mesh.nodes."""
        if not isinstance(mesh, TetMesh):
            raise InvalidInputError("mesh must be a core.TetMesh")
        if not isinstance(material, Material):
            raise InvalidInputError("material must be a core.Material")
        if not isinstance(self_collision, (bool, np.bool_)):
            raise InvalidInputError(f"self_collision must be True or False, got {self_collision!r}")
        n, m = mesh.num_nodes, mesh.num_tets
        pin_mask = _pin_mask(pinned, n)
        if stiffness_scale is None:
            scale = np.ones(m)
        else:
            scale = np.array(stiffness_scale, dtype=np.float64).reshape(-1)
            if scale.shape != (m,) or not np.all(np.isfinite(scale)) or np.any(scale <= 0):
                raise InvalidInputError(f"stiffness_scale must be {m} positive finite numbers (one per tet)")
        omega2 = goal_omega2(goal_frequency, n)
        specs = self._specs + [(mesh, material, pin_mask, scale)]
        model = Model(specs)
        new = State.at_rest(mesh.nodes, m)
        self._state = new if self._state is None else State.concatenate([self._state, new])
        self._model = model
        self._edges.append(mean_edge(mesh.nodes, mesh.tets))
        self._threads = ElementThreads(model.num_tets)
        self._inv_mass = np.where(model.pinned, 0.0, 1.0 / model.mass)   # rolling resistance: 0 for pinned nodes
        self._specs = specs
        self._force_model = None
        self._pin_target = np.concatenate([self._pin_target, mesh.nodes])
        self._pin_target_set = np.concatenate([self._pin_target_set, np.zeros(n, dtype=bool)])
        self._driven = np.concatenate([self._driven, np.zeros(n, dtype=bool)])
        self._goals.add_body(mesh.nodes, omega2)
        body = Body(self, len(self.bodies), mesh, material, np.flatnonzero(pin_mask), np.flatnonzero(omega2))
        self._contact.add_body(mesh, material.friction, f"body {body._index}", self_collision=bool(self_collision))
        self._sleep.add_body()
        self.bodies.append(body)
        return body

    def reset_preconditioner(self):
        """Forget multigrid's hierarchy, auto's records and the last step's accelerations (the CG's warm start), so later
        steps depend only on the state and settings."""
        self._multigrid.reset()
        self._motion.forget()

    def wake(self):
        """Wake every sleeping body."""
        self._sleep.wake()

    @property
    def motion(self):
        """Per body, the last steps' accelerations (a, p) from which the next step's CG warm start predicts 2a − p, or
        None where it keeps none (None altogether when none): state to store beside x and v, so that a world given
        the same x, v and motion steps on exactly as this one (the add-on caches it with each frame)."""
        return None if self._model is None else self._motion.snapshot(self._state.v, self._model.node_ranges)

    @motion.setter
    def motion(self, per_body):
        self._require_bodies()
        self._motion.restore(per_body, self._state.v, self._model.node_ranges)

    def carried(self):
        """Everything a step leaves for the next beside the bodies' x, v and `motion`, as a dict of numpy arrays: the
        rotations, DAPD witnesses and the positions they were last evaluated at ("state.*"), the goal targets
        ("goals.*"), sleep ("sleep.*") and the contact stage's memory of its rows, colliders and sides ("contact.*").
        A World built with the same bodies, colliders and settings, given x, v, resume(carried) and motion (in that
        order), steps on bit for bit as this one, the preconditioner reset in both (reset_preconditioner: it is a
        cache, not carried)."""
        self._require_bodies()
        s = self._state
        out = {"state.rot": s.rot.copy(), "state.witness": s.witness.copy(), "state.x_eval": s.x_eval.copy()}
        out.update(self._goals.carried())
        out.update(self._sleep.carried())
        out.update(self._contact.carried())
        return out

    def resume(self, carried):
        """Take back what carried() of a World with the same bodies and colliders gave (after writing x and v, before
        setting motion); InvalidInputError (nothing changed) if it does not fit this world."""
        self._require_bodies()
        if not isinstance(carried, dict):
            raise InvalidInputError("resume takes the dict World.carried() returns")
        n, m = len(self._state.x), len(self._state.rot)
        rot = take(carried, "state.rot", (m, 3, 3), np.float64)
        witness = take(carried, "state.witness", (m,), np.int8)
        x_eval = take(carried, "state.x_eval", (n, 3), np.float64)
        if np.any((witness < -1) | (witness > 6)):
            raise InvalidInputError("the carried 'state.witness' holds values other than DAPD's pairs (-1..6)")
        restores = [self._goals.restorer(carried), self._sleep.restorer(carried, self._model.node_ranges),
                    self._contact.restorer(carried, self._node_counts())]
        self._state.rot[...], self._state.witness[...], self._state.x_eval[...] = rot, witness, x_eval
        for restore in restores:
            restore()

    @property
    def asleep(self):
        """Per body: whether it is asleep (bool array)."""
        return self._sleep.asleep.copy()

    def _set_pin_targets(self, nodes, positions):
        self._pin_target[nodes] = positions
        self._pin_target_set[nodes] = True

    def _set_goal_targets(self, nodes, positions):
        self._goals.set_targets(nodes, positions)

    def _drive(self, nodes, positions):
        self._set_pin_targets(nodes, positions)
        self._driven[nodes] = True

    def _forget_targets(self):
        """After a step: pin targets and drives are given for one step at a time (goal targets hold)."""
        self._pin_target_set[:] = False
        self._driven[:] = False
        self._goals.finish_step()

    def _forces(self):
        key = (self.settings.stress_differential, self.settings.dapd_alpha, self.settings.dapd_beta)
        if self._force_model is None or self._force_model_key != key:
            self._force_model = ForceModel(self._model, *key)
            self._force_model_key = key
        return self._force_model

    def _targets(self):
        """Pin targets for this step: the set ones, else the current positions (pins hold)."""
        target = np.where(self._pin_target_set[:, None], self._pin_target, self._state.x)
        return target

    def _require_bodies(self):
        if not self.bodies:
            raise InvalidInputError("the world has no bodies: add_body first")
        if not np.all(np.isfinite(self._state.x)) or not np.all(np.isfinite(self._state.v)):
            raise InvalidInputError("body positions or velocities contain NaN or infinite values")

    def step(self, dt):
        """Advance every body by dt seconds (settings.integrator). Raises SimulationDiverged, leaving
        every body's state as before the step, if the step produced NaN/inf."""
        dt = float(dt)
        if not np.isfinite(dt) or dt <= 0:
            raise InvalidInputError(f"dt must be a positive finite number of seconds, got {dt}")
        self._require_bodies()
        count = self._threads.next()
        with running_on(count):
            self._step(dt)
        rotations = self.stats["seconds"].get("rotations")
        if rotations is not None:   # (a sleeping world's step skips the kernels)
            self._threads.record(count, rotations)

    def _step(self, dt):
        t0 = time.perf_counter()
        backup = self._state.copy()
        target = self._targets()
        held = self._model.pinned
        inv_mass = self._inv_mass
        if self._driven.any():   # driven bodies: held on their targets, like pins (no copies on other steps)
            held = held | self._driven
            inv_mass = np.where(self._driven, 0.0, inv_mass)
        if self.sleeping:
            if self._wake_disturbed(target, dt):
                self._forget_targets()
                self._contact.finish_step()
                self.stats = {"asleep": len(self.bodies), "settling": 0, "newton_iterations": 0, "cg_iterations": 0,
                              "cg_iterations_sum": 0, "cg_residual": 0.0, "degenerate_tets": 0, "contact_rows": 0,
                              "contacts": len(self._contact.contacts),
                              "seconds": {"total": time.perf_counter() - t0}}
                return
            if self._sleep.asleep.any():
                held = held | self._sleep.held_nodes(self._model.node_ranges, len(held))
                kinematic = self._model.pinned | self._driven
                target[held] = np.where(kinematic[held, None], target[held], backup.x[held])
                inv_mass = np.where(held, 0.0, inv_mass)
        self._step_one_problem(dt, t0, backup, target, held, inv_mass)

    def _implicit_step(self, dt, backup, target, held, **contact):
        """The step's implicit solve (core.solve.implicit_step; `contact`: its contact arguments) from `backup`;
        raises SimulationDiverged, the state restored, if it produced NaN/inf."""
        try:
            stats = implicit_step(self._forces(), self._state, dt, self._gravity, target, self.settings, held=held,
                                  multigrid=self._multigrid, acceleration=self._motion.acceleration(self._state.v),
                                  goal=self._goals.step_terms(held, self._node_damping(), dt)
                                  if self._goals.active else None, **contact)
        except FloatingPointError:
            stats = None
        if stats is None or not all_finite(self._state.x, self._state.v):
            self._state.assign(backup)
            raise SimulationDiverged(f"the step of dt={dt} s produced NaN/inf; state restored "
                                     "(lower dt, add substeps or stiffen/soften the material)")
        return stats

    def _strayed(self, guess, dt):
        """How far the solved motion may have moved a render point's gap from where the detection along `guess` saw
        it: the largest end-of-step distance between a node's solved and predicted positions, plus the second body's
        largest for a point on another body (render points are convex combinations of their tet's nodes). (A body's
        contact with itself has its own margin and check: ContactStage.self_strayed.)"""
        stray = np.sqrt(np.einsum("nd,nd->n", self._state.v - guess, self._state.v - guess)) * dt
        per_body = [stray[n0:n1].max(initial=0.0) for n0, n1 in self._model.node_ranges]
        worst = np.sort(per_body)[::-1]
        return float(worst[:2].sum())

    def _finish_step(self, stats, backup, dt, t0):
        """After a step's solve: sleeping and settling (core.sleep) from the step's contacts, the colliders at their end
        positions, the motion recorded for the next warm start; self.stats."""
        if self.sleeping:
            c = self._contact.contacts
            touching = np.stack([c.body, c.other_body], axis=1)[(c.other_body >= 0) & (c.other_body != c.body)]
            moving, fast = seen_motion(self.bodies, self._sleep.asleep)
            self._sleep.after_step(self._state.x, self._state.v, self._model.mass, self._model.node_ranges, dt,
                                   touching, moving, support_normals(c, ~fast, self._contact.colliders))
            stats["asleep"] = int(self._sleep.asleep.sum())
            stats["settling"] = int(self._sleep.settling.sum())
        self._contact.finish_step()   # (after support_normals has seen which colliders moved)
        self._motion.record(backup.v, self._state.v, dt, self._model.node_ranges, self._smooth_motion(stats))
        stats["contacts"] = len(self._contact.contacts)
        stats["seconds"]["total"] = time.perf_counter() - t0
        self.stats = stats

    def _step_one_problem(self, dt, t0, backup, target, held, inv_mass):
        """The step with contact as one problem: detect once along the motion predicted under gravity (pins moving to
        their targets) out to the margin plus the step's predicted travel, solve the implicit step with the contact rows
        (core.contact.problem), and where the solved motion strayed from the predicted by more than that (a body at
        rest strays by a step's fall under gravity, within it), check it once for contacts the rows lack (by the
        detections whose check fired: against colliders and other bodies, or a body's own) and solve again with them;
        record the contacts."""
        guess = backup.v.copy()
        add_rows(guess, None, dt * self._gravity)
        guess[held] = (target[held] - backup.x[held]) / dt
        counts = self._node_counts()
        speed = float(np.sqrt(np.max(np.einsum("nd,nd->n", guess, guess), initial=0.0)))
        margin = self._contact.settings.margin + dt * speed
        with solver_threads(self._model.num_tets):
            problem = self._contact.problem(backup.x, guess, dt, counts, margin)
        preconditioner = self.settings.preconditioner
        vcycle = preconditioner == "multigrid" or preconditioner == "auto" and any(
            stiff_for_jacobi(b.material, edge, dt) for b, edge in zip(self.bodies, self._edges))
        stats = self._implicit_step(dt, backup, target, held, contact=problem, contact_multigrid=vcycle)
        checks = 0
        strayed = self._strayed(guess, dt) >= margin
        selves = self._contact.self_strayed(self._state.v, guess, dt)
        if strayed or selves:
            checks = 1
            with solver_threads(self._model.num_tets):
                new = self._contact.problem(backup.x, self._state.v, dt, counts, 0.0,
                                            exclude=None if problem is None else problem.key, recheck=(strayed, selves))
            if new is not None:
                if problem is None:
                    problem = new
                else:
                    problem.add(new)
                self._state.assign(backup)
                stats = self._implicit_step(dt, backup, target, held, contact=problem, contact_multigrid=vcycle)
        self._contact.finish_problem(problem, backup.x, self._state.x, dt)
        with solver_threads(self._model.num_tets):
            self._contact.resist_rolling(self._state.x, self._state.v, inv_mass, dt)
        stats["contact_checks"] = checks
        stats["contact_rows"] = 0 if problem is None else len(problem)
        stats["contact_iterations"] = 0 if problem is None else problem.iterations
        stats["contact_restarts"] = 0 if problem is None else problem.restarts
        stats["contact_converged"] = True if problem is None else problem.converged
        self._forget_targets()
        self._finish_step(stats, backup, dt, t0)

    def add_collider(self, vertices, triangles, friction=0.5, thickness=0.0, name=None):
        """Add a triangle-mesh collider in world space (closed meshes are one-sided, open ones two-sided
        with `thickness`); returns its handle. NaN/inf vertices raise InvalidInputError naming `name`;
        zero triangles: ignored with a warning."""
        return self._contact.add_collider(vertices, triangles, friction, thickness, name)

    def move_collider(self, collider, vertices):
        """Collider vertex positions at the end of the next step; positions are interpolated linearly within it."""
        self._contact.move_collider(collider, vertices)

    def set_collider_friction(self, collider, friction):
        """Change a collider's friction coefficient μ from the next step on; wakes every sleeping body (one resting on
        it may slide now)."""
        self._contact.set_collider_friction(collider, friction)
        self.wake()

    def set_collider_active(self, collider, active):
        """Switch a collider on or off from the next step on (a Collision checkbox keyframed); wakes every sleeping
        body when it changes (one resting on it falls now, one it switches on under may need pushing out)."""
        if self._contact.set_collider_active(collider, active):
            self.wake()

    @property
    def colliders(self):
        """The collider handles, in the order they were added."""
        return list(self._contact.colliders)

    @property
    def contacts(self):
        """The last step's contacts: .points, .normals, .depths, .forces, .body, .collider, .other_body."""
        return self._contact.contacts

    @property
    def contact_settings(self):
        """core.contact.ContactSettings of this world (search depth, body thickness, edge contacts...)."""
        return self._contact.settings

    def _node_damping(self):
        """Each node's body's stiffness damping β (s)."""
        return np.repeat([b.material.damping_stiffness for b in self.bodies], self._node_counts())

    def _node_counts(self):
        return [b - a for a, b in self._model.node_ranges]

    def _smooth_motion(self, stats):
        """Per body, whether its last step's motion predicts its next (the CG's extrapolated warm start): backward
        Euler's, its CG converged, awake and touching nothing. Newmark's end velocities carry the trapezoidal rule's
        undamped step-to-step flip of the CG's error (extrapolated, a free-falling box drifted from rigid by ~1e-6 m);
        contact's impulses come and go (extrapolated, a 20 cm cube landing at the defaults took 772 CG iterations
        over 96 steps against 576)."""
        keep = stats.pop("converged") & ~self._sleep.asleep & (self.settings.integrator == "backward_euler")
        c = self._contact.contacts
        keep[c.body] = False
        keep[c.other_body[c.other_body >= 0]] = False
        return keep

    def _wake_disturbed(self, target, dt):
        """Wake the sleeping bodies something disturbs (see Sleep.wake_disturbed): moving pins, writes to their
        state, and the swept boxes of the awake bodies still moving and of the moving colliders. Returns whether
        every body still sleeps and no collider moves (the step can be skipped)."""
        sleep = self._sleep
        if not sleep.asleep.any():
            return False
        x, v = self._state.x, self._state.v
        boxes, moving_collider = swept_boxes(x, v, self._model.node_ranges, sleep.asleep, dt, self._gravity,
                                             self._contact.colliders, self._contact.settings)
        moved = (self._model.pinned | self._driven) & self._pin_target_set & np.any(target != x, axis=1)
        moved |= self._goals.moved
        sleep.wake_disturbed(x, v, self._model.node_ranges, moved, boxes)
        return bool(sleep.asleep.all()) and not moving_collider

    def solve_static(self):
        """Move every body to static equilibrium under gravity and its pins (Newton to
        settings.static_tolerance); velocities become zero. Every body needs pinned nodes."""
        self._require_bodies()
        for body in self.bodies:
            if len(body.pinned) == 0:
                raise InvalidInputError("solve_static needs pinned nodes on every body (a free body has no equilibrium)")
        if self._goals.active:
            raise InvalidInputError("solve_static does not take goal springs: step the world to its rest instead")
        backup = self._state.copy()
        stats = solve_static(self._forces(), self._state, self._gravity, self._targets(), self.settings)
        if not np.all(np.isfinite(self._state.x)):
            self._state.assign(backup)
            raise SimulationDiverged("the static solve produced NaN/inf; state restored")
        self._forget_targets()
        self.stats = stats
        return stats

    def _tet_energies(self):
        """Elastic energy per tet at the current positions (rotations evaluated on a copy of the state)."""
        self._require_bodies()
        probe = self._state.copy()
        fm = self._forces()
        fm.update_rotations(probe)
        energies = fm.energies(probe.x)
        fm.rot = None
        return energies


def _pin_mask(pinned, n):
    if pinned is None:
        return np.zeros(n, dtype=bool)
    p = np.asarray(pinned)
    if p.size == 0:
        return np.zeros(n, dtype=bool)
    if p.dtype == bool:
        if p.shape != (n,):
            raise InvalidInputError(f"a boolean pin mask must have shape ({n},), got {p.shape}")
        return p.copy()
    if np.issubdtype(p.dtype, np.integer):
        p = p.reshape(-1)
        if p.size and (p.min() < 0 or p.max() >= n):
            raise InvalidInputError(f"pinned node indices must be in [0, {n - 1}]")
        mask = np.zeros(n, dtype=bool)
        mask[p] = True
        return mask
    if np.issubdtype(p.dtype, np.floating):
        if p.shape != (n,) or not np.all(np.isfinite(p)):
            raise InvalidInputError(f"pin weights must be {n} finite numbers (one per node)")
        return p > 0.5
    raise InvalidInputError(f"pinned must be node indices or per-node weights, got dtype {p.dtype}")
