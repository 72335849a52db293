"""Body: a thin handle on one soft body's slice of its World's global arrays."""
import numpy as np

from .errors import InvalidInputError
from .material import Material


class Body:
    """One soft body of a World. `x`, `v` are writable (N,3) views of the World's state
    (`body.x[:] = ...` sets the state); fresh views on every access, so they stay valid
    when the World grows."""

    def __init__(self, world, index, mesh, material, pinned_indices, goal_indices):
        self._world = world
        self._index = index
        self.mesh = mesh
        self.material = material
        self.pinned = pinned_indices
        self.goal_nodes = goal_indices

    @property
    def node_slice(self):
        return slice(*self._world._model.node_ranges[self._index])

    @property
    def tet_slice(self):
        return slice(*self._world._model.tet_ranges[self._index])

    @property
    def x(self):
        """Node positions (N,3), a writable view."""
        return self._world._state.x[self.node_slice]

    @x.setter
    def x(self, value):
        self.x[...] = value

    @property
    def v(self):
        """Node velocities (N,3), a writable view."""
        return self._world._state.v[self.node_slice]

    @v.setter
    def v(self, value):
        self.v[...] = value

    @property
    def num_nodes(self):
        return self.mesh.num_nodes

    @property
    def num_tets(self):
        return self.mesh.num_tets

    def set_pin_targets(self, positions):
        """Where the pinned nodes must be at the end of the next step: the full (N,3) array or
        (k,3) for the pinned nodes only, in the order of `body.pinned`."""
        p = self._on_nodes(positions, self.pinned, "pin targets")
        self._world._set_pin_targets(self.node_slice.start + self.pinned, p)

    def set_goal_targets(self, positions):
        """Where the goal springs pull the nodes from the next step on (they hold until set again): the full (N,3)
        array or (k,3) for the goal nodes only, in the order of `body.goal_nodes`."""
        p = self._on_nodes(positions, self.goal_nodes, "goal targets")
        self._world._set_goal_targets(self.node_slice.start + self.goal_nodes, p)

    @property
    def goal_targets(self):
        """The goal nodes' targets (k,3), in the order of `body.goal_nodes` (a copy)."""
        return self._world._goals.target[self.node_slice.start + self.goal_nodes].copy()

    def _on_nodes(self, positions, nodes, what):
        """positions (N,3) or (k,3) as finite (k,3) on `nodes`; InvalidInputError naming `what` otherwise."""
        p = np.asarray(positions, dtype=np.float64)
        k = len(nodes)
        if p.shape == (self.num_nodes, 3):
            p = p[nodes]
        elif p.shape != (k, 3):
            raise InvalidInputError(f"{what} must have shape ({self.num_nodes}, 3) or ({k}, 3), got {p.shape}")
        if not np.all(np.isfinite(p)):
            raise InvalidInputError(f"{what} contain NaN or infinite coordinates")
        return p

    def drive(self, positions):
        """Move the whole body along for the next step, as a kinematic body: every node ends it at `positions`
        (N,3), at constant velocity, and other bodies meet it as a moving obstacle they cannot push back (an
        animated body pushing others)."""
        p = np.asarray(positions, dtype=np.float64)
        if p.shape != (self.num_nodes, 3) or not np.all(np.isfinite(p)):
            raise InvalidInputError(f"drive positions must be finite with shape ({self.num_nodes}, 3), got {p.shape}")
        self._world._drive(self.node_slice, p)

    def set_material(self, material):
        """Use `material` from the next step on: Young's modulus, damping and friction may change over time
        (animated settings), and so may the Mooney–Rivlin coefficients; density, Poisson ratio and model may not
        (they fix the masses, the body's compressibility and its kernels). The state (positions, velocities,
        rotations, contact memory) is kept; a change wakes the body if it sleeps."""
        if not isinstance(material, Material):
            raise InvalidInputError("material must be a core.Material")
        if (material.density, material.poisson_ratio) != (self.material.density, self.material.poisson_ratio):
            raise InvalidInputError("density and poisson_ratio cannot change during a simulation")
        if material.model != self.material.model:
            raise InvalidInputError("model cannot change during a simulation")
        world = self._world
        old = self.material
        if (material.youngs_modulus, material.damping_mass, material.damping_stiffness, material.friction,
                material.energy_coefficients) != (old.youngs_modulus, old.damping_mass, old.damping_stiffness,
                                                  old.friction, old.energy_coefficients):
            world._sleep.wake([self._index])   # a sleeping body feels its new material at once
        mesh, _old, pin_mask, scale = world._specs[self._index]
        world._specs[self._index] = (mesh, material, pin_mask, scale)
        world._model = world._model.with_body_material(self._index, self.material, material)
        world._force_model = None
        world._contact.set_body_friction(self._index, material.friction)
        self.material = material

    def undrawn_bend(self):
        """How far (m) the body's surface is from where its render triangles draw it, flat between the render
        vertices (core.contact.surface.BodySurface.undrawn_bend): large when a coarse mesh bends under the cage."""
        return self._world._contact.surfaces[self._index].undrawn_bend(self.x)

    def elastic_energy(self):
        """Elastic energy (J) at the current positions."""
        return float(np.sum(self._world._tet_energies()[self.tet_slice]))

    def kinetic_energy(self):
        """Kinetic energy ½ Σ m v² (J) with the lumped masses."""
        m = self._world._model.mass[self.node_slice]
        return float(0.5 * np.sum(m[:, None] * self.v ** 2))

    def __repr__(self):
        return f"Body({self.num_nodes} nodes, {self.num_tets} tets, {len(self.pinned)} pinned)"
