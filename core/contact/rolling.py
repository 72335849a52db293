"""Rolling resistance: per contact patch on a collider, a torque of at most η·a·Fₙ against the body's rolling on it.

A soft body rolling on a surface loses energy to the hysteresis of the material entering and leaving its contact
patch: the normal pressure is higher at the patch's leading edge, so the normal force Fₙ acts a distance b ahead of
the patch's centre and brakes the rolling with the torque b·Fₙ (the rolling-resistance law of tyres and balls;
b = c_rr R, c_rr ≈ 0.01–0.03 for rubber on a hard floor). Here b = η·a, a fraction η of the patch's radius a (the
root mean square distance of its contact points from its centre, weighted by their normal forces), so a soft body
with a wide patch resists rolling more than a stiff one with a small patch. Below that torque a patch does not
roll at all (static rolling resistance): a body resting on its patch holds its orientation. Without it, a ball's
cage (whose stiffness depends slightly on its orientation) rolled a few cm to and fro for seconds after landing.

Applied at the end of a step as an angular impulse, at most η·a·Fₙ·Δt per step and never more than stops the
relative rolling, so it only removes kinetic energy: about the patch's centre (a rolling body turns about its
contact, so its centre of mass is braked with it) where the patch's friction has the impulse that takes to spare
(μ Fₙ beyond its tangential force), else about the centre of mass (the bare couple of the shifted normal force). A
sliding patch has none to spare: braked about its centre, a cube sliding down a 30° slope at μ = 0.2 slowed to 2.78
m/s² against Coulomb's 3.21. Spin about the patch normal is left alone.

Between two bodies there is none: applied as an impulse at the end of the step (about the common patch's centre,
or as a couple about the two centres of mass), it made a stack of five of Blender's cubes (E = 1e6 Pa) shake by
±3 mm and never fall asleep, where without it the stack sleeps after 1.2 s."""
import math

import numpy as np

from ..jit import njit
from ..rigid_motion import moments


def resist_rolling(v, x, inv_mass, contacts, node_offsets, body_friction, collider_friction, collider_spin, eta, dt):
    """Brake each body's rolling on each collider it touches (see the module docstring), changing the node
    velocities v (N,3) in place. x: node positions (N,3); inv_mass (N,): 0 on pinned or held nodes (such a body is
    not braked: its motion is prescribed). contacts: the step's Contacts (forces on the body). node_offsets: the
    bodies' first nodes and the total (B+1,). body_friction (B,), collider_friction (C,), collider_spin (C,3): the
    bodies' and colliders' μ and the colliders' angular velocities. Returns whether any velocity changed."""
    fn = np.einsum("cd,cd->c", contacts.forces, contacts.normals)
    touching = np.flatnonzero((fn > 0.0) & (contacts.other_body < 0))   # patches on colliders only (module docstring)
    if eta <= 0.0 or not len(touching):
        return False
    num_colliders = len(collider_friction)
    key = contacts.body[touching] * num_colliders + contacts.collider[touching]
    order = np.argsort(key, kind="stable")   # the (body, collider) patches, each in the contacts' order
    touching, key = touching[order], key[order]
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1], [True])))
    return _brake_patches(v, x, inv_mass, np.ascontiguousarray(contacts.points[touching]),
                          np.ascontiguousarray(contacts.normals[touching]), fn[touching],
                          np.ascontiguousarray(contacts.forces[touching]), key, starts, num_colliders,
                          np.asarray(node_offsets, np.int64), np.asarray(body_friction, np.float64),
                          np.asarray(collider_friction, np.float64), np.asarray(collider_spin, np.float64), eta, dt)


@njit(cache=True)
def _brake_patches(v, x, inv_mass, points, normals, fn, forces, key, starts, num_colliders, node_offsets,
                   body_friction, collider_friction, collider_spin, eta, dt):
    """resist_rolling's work, patch by patch: contacts starts[k]..starts[k+1] (positions, normals, normal forces fn,
    forces) form patch k, of body and collider key // num_colliders, key % num_colliders."""
    changed = False
    for k in range(len(starts) - 1):
        a, b = starts[k], starts[k + 1]
        body, col = key[a] // num_colliders, key[a] % num_colliders
        force = 0.0
        centre, n, pull = np.zeros(3), np.zeros(3), np.zeros(3)
        for c in range(a, b):
            force += fn[c]
            for d in range(3):
                centre[d] += points[c, d] * fn[c]
                n[d] += normals[c, d] * fn[c]
                pull[d] += forces[c, d]
        centre /= force
        n /= math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
        spread = 0.0
        for c in range(a, b):
            off = points[c] - centre
            off -= (off[0] * n[0] + off[1] * n[1] + off[2] * n[2]) * n
            spread += fn[c] * (off[0] * off[0] + off[1] * off[1] + off[2] * off[2])
        radius = math.sqrt(spread / force)
        mu = math.sqrt(body_friction[body] * collider_friction[col])
        pull -= (pull[0] * n[0] + pull[1] * n[1] + pull[2] * n[2]) * n
        reserve = max(mu * force - math.sqrt(pull[0] ** 2 + pull[1] ** 2 + pull[2] ** 2), 0.0) * dt   # to spare
        n0, n1 = node_offsets[body], node_offsets[body + 1]
        if n1 == n0 or radius == 0.0:
            continue
        for about_com in (False, True):
            pivot = centre.copy()
            momentum, linear, inertia, com = np.zeros(3), np.zeros(3), np.zeros((3, 3)), np.zeros(3)
            mass = moments(x, v, inv_mass, n0, n1, pivot, about_com, momentum, linear, inertia, com)
            if mass <= 0.0:
                break
            turn = np.linalg.inv(inertia)
            rolling = turn @ momentum - collider_spin[col]
            rolling -= (rolling[0] * n[0] + rolling[1] * n[1] + rolling[2] * n[2]) * n
            rate = math.sqrt(rolling[0] ** 2 + rolling[1] ** 2 + rolling[2] ** 2)
            if rate == 0.0:
                break
            u = rolling / rate
            tu = turn @ u
            impulse = min(eta * radius * force * dt, rate / (u[0] * tu[0] + u[1] * tu[1] + u[2] * tu[2]))
            delta = -impulse * tu
            # turning about the patch's centre brakes the centre of mass too: the patch's friction must supply that
            if not about_com and mass * np.linalg.norm(np.cross(delta, com - centre)) > reserve:
                continue
            for i in range(n0, n1):
                r0, r1, r2 = x[i, 0] - pivot[0], x[i, 1] - pivot[1], x[i, 2] - pivot[2]
                v[i, 0] += delta[1] * r2 - delta[2] * r1
                v[i, 1] += delta[2] * r0 - delta[0] * r2
                v[i, 2] += delta[0] * r1 - delta[1] * r0
            changed = True
            break
    return changed


def rigid_spin(start, end, dt):
    """Angular velocity (3,) of the best rigid fit (Kabsch) of a collider's motion start -> end over dt."""
    if len(start) < 3 or np.array_equal(start, end):
        return np.zeros(3)
    p, q = start - start.mean(axis=0), end - end.mean(axis=0)
    u, _, vt = np.linalg.svd(q.T @ p)
    rot = u @ np.diag([1.0, 1.0, np.sign(np.linalg.det(u @ vt))]) @ vt
    angle = np.arccos(np.clip((np.trace(rot) - 1.0) / 2.0, -1.0, 1.0))
    axis = np.array([rot[2, 1] - rot[1, 2], rot[0, 2] - rot[2, 0], rot[1, 0] - rot[0, 1]])
    s = np.linalg.norm(axis)
    return np.zeros(3) if s < 1e-15 else axis / s * angle / dt
