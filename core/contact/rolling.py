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
import numpy as np

from ..rigid_motion import rigid_frame


def resist_rolling(v, x, inv_mass, contacts, node_offsets, body_friction, collider_friction, collider_spin, eta, dt):
    """Brake each body's rolling on each collider it touches (see the module docstring), changing the node
    velocities v (N,3) in place. x: node positions (N,3); inv_mass (N,): 0 on pinned or held nodes (such a body is
    not braked: its motion is prescribed). contacts: the step's Contacts (forces on the body). node_offsets: the
    bodies' first nodes and the total (B+1,). body_friction (B,), collider_friction (C,), collider_spin (C,3): the
    bodies' and colliders' μ and the colliders' angular velocities. Returns whether any velocity changed."""
    fn = np.einsum("cd,cd->c", contacts.forces, contacts.normals)
    touching = fn > 0.0
    if eta <= 0.0 or not touching.any():
        return False
    touching &= contacts.other_body < 0     # patches on colliders only (see the module docstring)
    if not touching.any():
        return False
    body, collider = contacts.body[touching], contacts.collider[touching]
    points, normals, fn = contacts.points[touching], contacts.normals[touching], fn[touching]
    forces = contacts.forces[touching]
    num_colliders = len(collider_friction)
    keys, patch = np.unique(body * num_colliders + collider, return_inverse=True)   # (body, collider) pairs, sorted
    changed = False
    for k, key in enumerate(keys):
        b, c = divmod(int(key), num_colliders)
        sel = patch == k
        w = fn[sel]
        force = w.sum()
        centre = (points[sel] * w[:, None]).sum(axis=0) / force
        n = (normals[sel] * w[:, None]).sum(axis=0)
        n /= np.linalg.norm(n)
        d = points[sel] - centre
        d -= np.outer(d @ n, n)
        radius = np.sqrt((w * np.einsum("cd,cd->c", d, d)).sum() / force)
        pull = forces[sel].sum(axis=0)
        mu = np.sqrt(body_friction[b] * collider_friction[c])
        reserve = max(mu * force - np.linalg.norm(pull - (pull @ n) * n), 0.0) * dt   # friction impulse to spare
        n0, n1 = node_offsets[b], node_offsets[b + 1]
        for pivot in (centre, None):
            frame = rigid_frame(x, v, inv_mass, n0, n1, pivot)
            if frame is None:
                break
            rolling = frame.spin - collider_spin[c]
            rolling -= (rolling @ n) * n
            rate = np.linalg.norm(rolling)
            if rate == 0.0 or radius == 0.0:
                break
            u = rolling / rate
            impulse = min(eta * radius * force * dt, rate / (u @ frame.turn @ u))
            delta = -impulse * (frame.turn @ u)
            # turning about the patch's centre brakes the centre of mass too: the patch's friction must supply that
            if pivot is not None and frame.mass * np.linalg.norm(np.cross(delta, frame.centre - centre)) > reserve:
                continue
            v[n0:n1] += np.cross(delta, x[n0:n1] - frame.pivot)
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
