"""Model: what does not change during a simulation, for all bodies of a World in one set of global arrays."""
import copy

import numpy as np

from .errors import InvalidInputError

NODE_MASS_FLOOR = 0.25   # no node lighter than this fraction of its body's median node mass (total kept)


class Model:
    """Global structure of arrays: every body's nodes concatenated, tets with global node indices.

    rest (N,3), tets (M,4), gm (M,3,3) = Dm⁻¹, volume (M,), mu_v / lam_v (M,) = μV, λV (with the
    per-tet stiffness scale), mass (N,) lumped (floored, see _floored), damping_mass (N,) Rayleigh α per node,
    damping_stiffness (M,) Rayleigh β per tet, pinned (N,) bool, node_ptr / node_ent: for each node
    the (tet*4 + corner) incidences (CSR), node_ranges / tet_ranges: each body's slices; material_code (M,)
    each tet's Material.model_code, energy_params (M,3) its Material.energy_coefficients times V (and the
    stiffness scale)."""

    def __init__(self, bodies):
        rest, tets, gm, vol, mu_v, lam_v, mass, alpha, beta, pinned, code, params = ([] for _ in range(12))
        self.node_ranges, self.tet_ranges = [], []
        n0 = m0 = 0
        for mesh, material, pin_mask, stiffness_scale in bodies:
            nodes = mesh.nodes
            t = mesh.tets
            ds = np.empty((len(t), 3, 3))
            for k in (1, 2, 3):
                np.subtract(nodes[t[:, k]], nodes[t[:, 0]], out=ds[:, :, k - 1])
            v = np.linalg.det(ds) / 6.0
            lam, mu = material.lame
            m_tet = material.density * v * mesh.mass_weights
            m = np.zeros(len(nodes))
            np.add.at(m, t.ravel(), np.repeat(m_tet / 4.0, 4))
            if np.any(m <= 0):
                raise InvalidInputError(f"{int(np.sum(m <= 0))} nodes belong to no tet (zero mass)")
            if mesh.embedding is not None:   # a cage: its lumped masses are an estimate of the embedded volume's
                m = _floored(m)
            rest.append(nodes.copy())
            tets.append(t + n0)
            gm.append(np.linalg.inv(ds))
            del ds
            vol.append(v)
            stiffness_scale = stiffness_scale * mesh.stiffness_weights
            mu_v.append(mu * v * stiffness_scale)
            lam_v.append(lam * v * stiffness_scale)
            code.append(np.full(len(t), material.model_code, dtype=np.int64))
            params.append(np.outer(v * stiffness_scale, material.energy_coefficients))
            mass.append(m)
            alpha.append(np.full(len(nodes), material.damping_mass))
            beta.append(np.full(len(t), material.damping_stiffness))
            pinned.append(pin_mask)
            self.node_ranges.append((n0, n0 + len(nodes)))
            self.tet_ranges.append((m0, m0 + len(t)))
            n0 += len(nodes)
            m0 += len(t)
        self.rest = _join(rest)
        self.tets = _join(tets)
        self.gm = _join(gm)
        self.volume = _join(vol)
        self.mu_v = _join(mu_v)
        self.lam_v = _join(lam_v)
        self.mass = _join(mass)
        self.damping_mass = _join(alpha)
        self.damping_stiffness = _join(beta)
        self.pinned = _join(pinned)
        self.material_code = _join(code)
        self.energy_params = _join(params)
        self.node_ent = np.argsort(self.tets.ravel(), kind="stable")
        self.node_ptr = np.zeros(n0 + 1, dtype=np.int64)
        self.node_ptr[1:] = np.cumsum(np.bincount(self.tets.ravel(), minlength=n0))
        for a in vars(self).values():
            if isinstance(a, np.ndarray):
                a.setflags(write=False)

    @property
    def num_nodes(self):
        return len(self.rest)

    @property
    def num_tets(self):
        return len(self.tets)

    def with_body_material(self, index, old, new):
        """A Model sharing this one's arrays except body `index`'s stiffness and damping, changed from material
        `old` to `new` (same density, Poisson ratio and model: the masses and λ/μ stay; μV and λV scale by E'/E, so
        a stiffness group's per-tet scale is kept). O(tets of that body), no inverse recomputed."""
        model = copy.copy(self)
        nodes, tets = slice(*self.node_ranges[index]), slice(*self.tet_ranges[index])
        ratio = new.youngs_modulus / old.youngs_modulus
        params = self.energy_params.copy()
        params[tets] = np.outer(self.mu_v[tets] / old.lame[1], new.energy_coefficients)   # μV / μ: V × scale
        params.setflags(write=False)
        model.energy_params = params
        for name, sl, value in (("mu_v", tets, None), ("lam_v", tets, None),
                                ("damping_stiffness", tets, new.damping_stiffness),
                                ("damping_mass", nodes, new.damping_mass)):
            a = getattr(self, name).copy()
            if value is None:
                a[sl] *= ratio
            else:
                a[sl] = value
            a.setflags(write=False)
            setattr(model, name, a)
        return model


def _join(arrays):
    """One contiguous array (no copy for a single body's own arrays)."""
    return np.ascontiguousarray(arrays[0] if len(arrays) == 1 else np.concatenate(arrays))


def _floored(m):
    """Lumped masses with none below NODE_MASS_FLOOR times the median, scaled to the same total. A cage node
    whose tets lie mostly outside the surface is otherwise ~100× lighter than its neighbours, and a contact
    impulse reaching it through an embedded point throws it through its tets. (Only for cages: a mesh of
    the body itself has exact lumped masses, and the gravity load of a static solve depends on them.)"""
    low = NODE_MASS_FLOOR * np.median(m)
    if not np.any(m < low):
        return m
    raised = np.maximum(m, low)
    return raised * (m.sum() / raised.sum())

