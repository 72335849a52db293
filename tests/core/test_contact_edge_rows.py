"""Edge–edge rows in the contact stage: a coarse cube rests on bars thinner than its render edges' spacing, a
coarse Suzanne lands across a box edge without it cutting in."""
import os

import numpy as np
import pytest

import core
from contact_scenes import box_surface
from core.contact.edge_rows import rigid_misfit
from core.contact.edges import unique_edges
from core.geometry.obj import load_obj
from test_contact_edges import brute_closest_many
from test_shape_recovery import MODELS, SUZANNE, box, rotation, subdivide

BAR_TOP = 0.29
RIMS = (-0.07, -0.05, 0.05, 0.07)      # the two bars' long top edges (x), bars 2 cm wide along y
MASS = 500.0 * 0.2 ** 3                 # kg: the 20 cm cube of density 500


def grill():
    """Two closed 2 cm x 2 m bars along y, tops at BAR_TOP, as one collider."""
    a, t = box_surface((RIMS[0], -1.0, 0.0), (RIMS[1], 1.0, BAR_TOP))
    b, _ = box_surface((RIMS[2], -1.0, 0.0), (RIMS[3], 1.0, BAR_TOP))
    return np.vstack([a, b]), np.concatenate([t, t + len(a)])


def drop_cube_on_grill(edge_contacts, steps, collider=None, reshaped=None):
    """A 20 cm cube whose render surface is its 12 triangles (8 vertices, 10 cm off both bars), embedded in a
    finer cage, dropped from 1 cm above the bars (or onto `collider`, (vertices, triangles), moved to the
    vertices `reshaped` over the first step if given); returns the cage, the body and the world."""
    cv, ct = box_surface((-0.1, -0.1, BAR_TOP + 0.01), (0.1, 0.1, BAR_TOP + 0.21))
    tm = core.tetrahedralize(cv, ct, resolution=6, mode="cage")
    tm.embedding.triangles = ct
    world = core.World()
    world.contact_settings.edge_contacts = edge_contacts
    body = world.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.4, density=500.0, friction=0.5))
    c = world.add_collider(*(grill() if collider is None else collider), friction=0.5)
    if reshaped is not None:
        world.move_collider(c, reshaped)
    for _ in range(steps):
        world.step(1.0 / 96.0)
    return tm, body, world


def depth_below_rims(points, edges, rims=RIMS):
    """How far each render edge passes below a bar's top edge where it crosses it (plane x = rim), by
    interpolating its two end points: (k,) for the k crossings (positive: below the bar's top)."""
    a, b = points[edges[:, 0]], points[edges[:, 1]]
    depths = []
    for x in rims:
        cross = (a[:, 0] - x) * (b[:, 0] - x) < 0.0
        s = (x - a[cross, 0]) / (b[cross, 0] - a[cross, 0])
        depths.append(BAR_TOP - (a[cross, 2] + s * (b[cross, 2] - a[cross, 2])))
    return np.concatenate(depths)


def test_coarse_cube_rests_on_bars_between_its_vertices():
    tm, body, world = drop_cube_on_grill(True, 96)
    p = tm.embedding.positions(body.x)
    edges = unique_edges(tm.embedding.triangles)
    bottom = tm.embedding.positions(tm.nodes)[:, 2] < BAR_TOP + 0.02
    depth = depth_below_rims(p, edges[bottom[edges].all(axis=1)])
    assert len(depth) == 12          # the bottom face's two sides and diagonal cross each of the 4 rims
    assert depth.max() < 0.003, f"render edges {depth.max() * 1e3:.1f} mm below a bar's top"
    assert p[:, 2].min() > BAR_TOP - 0.01                  # the corners sag a little beyond the bars, no more
    assert np.all(np.linalg.norm(body.v, axis=1) < 0.05)   # at rest
    assert np.all(tm.volumes(body.x) > 0.0)
    # the contacts lie on the bars (the bottom face's samples on their tops, its edges across their rims) and
    # carry the cube's weight, with no net sideways push
    c = world.contacts
    assert len(c) and np.all((np.abs(c.points[:, 0]) > RIMS[2] - 0.005) & (np.abs(c.points[:, 0]) < RIMS[3] + 0.005))
    assert c.forces[:, 2].sum() == pytest.approx(MASS * 9.81, rel=0.1)
    assert np.linalg.norm(c.forces[:, :2].sum(axis=0)) < 0.05 * MASS * 9.81


def sheet(peak):
    """An open 1 m x 2 m sheet along y, its vertex rows at x = ±0.5, ±0.12, ±0.06, 0: flat at BAR_TOP − 0.03, the
    rows at x = ±0.06 raised by `peak` (two ridges under the cube's bottom face, 10 cm inside its corners)."""
    xs = np.array([-0.5, -0.12, -0.06, 0.0, 0.06, 0.12, 0.5])
    z = BAR_TOP - 0.03 + np.where(np.abs(np.abs(xs) - 0.06) < 1e-9, peak, 0.0)
    v = np.array([(x, y, h) for x, h in zip(xs, z) for y in (-1.0, 1.0)])
    quads = [(2 * i, 2 * i + 2, 2 * i + 3, 2 * i + 1) for i in range(len(xs) - 1)]
    t = np.array([tri for a, b, c, d in quads for tri in ((a, b, c), (a, c, d))])
    return v, t


def test_a_collider_deformed_into_ridges_gets_their_edges():
    # flat when added: no sharp edge under the cube; raised into two ridges (53° turns) over the first step
    flat, t = sheet(0.0)
    tm, body, world = drop_cube_on_grill(True, 96, collider=(flat, t), reshaped=sheet(0.03)[0])
    p = tm.embedding.positions(body.x)
    edges = unique_edges(tm.embedding.triangles)
    bottom = tm.embedding.positions(tm.nodes)[:, 2] < BAR_TOP + 0.02
    depth = depth_below_rims(p, edges[bottom[edges].all(axis=1)], rims=(-0.06, 0.06))
    assert len(depth) == 6           # the bottom face's two sides and diagonal cross each ridge
    # with the flat sheet's edges kept the ridges cut 2 cm into the face, until its corners met the slopes
    assert depth.max() < 0.003, f"render edges {depth.max() * 1e3:.1f} mm below a ridge"


def test_without_edge_contacts_the_cube_falls_between_the_bars():
    # its face samples (core.contact.refine) are as far apart as its cage's edges, wider than the 2 cm bars: a
    # bar cuts between them and the cube tips in between the bars
    tm, body, _ = drop_cube_on_grill(False, 48)
    p = tm.embedding.positions(body.x)
    edges = unique_edges(tm.embedding.triangles)
    bottom = tm.embedding.positions(tm.nodes)[:, 2] < BAR_TOP + 0.02
    # the bars cut 6.0 mm into its bottom face (3.9 cm while the cage's outer tets were as stiff as full ones, 8.3 cm
    # before rows whose points rest just clear of a surface started released); with edge rows 0.9 mm (above)
    assert depth_below_rims(p, edges[bottom[edges].all(axis=1)]).max() > 0.004


@pytest.mark.skipif(not os.path.isdir(MODELS), reason="shared models folder absent")
def test_unsubdivided_suzanne_across_a_box_edge_stays_off_the_edge():
    """Suzanne at her original 968 triangles (test_shape_recovery's scene, not subdivided) lands with her cheek
    across a box's top edge: with edge rows her surface's edges (her render edges, those longer than the cage's
    edges cut into pieces that follow the cage) stay clear of the edge (measured 9–13 mm over runs, inside the
    box's 2 cm thickness: an edge turning within a step brings another of its points closer than the row's); without, the box edge cuts in between her
    vertices (0.1 mm). Her render edges are drawn straight where her cheek bends round the box's edge: they cut
    7.8 mm into it (measured; her vertices stay out), where rows on the render edges themselves held them 9 mm off
    but her cheek could not bend round the edge (see core.contact.surface.BodySurface)."""
    from core.contact.surface import BodySurface, point_positions
    v, t = load_obj(SUZANNE)
    v = v[:, [0, 2, 1]] * np.array([1.0, -1.0, 1.0])
    v = (v - v.mean(axis=0)) * (0.76 / np.ptp(v, axis=0).max())
    v = v @ (rotation(2, -12.0) @ rotation(0, -10.0)).T + np.array([0.15, 0.25, 1.35])
    tm = core.tetrahedralize(v, t, resolution=12)
    surface = BodySurface(tm, 0.7, "Suzanne")
    edges = surface.edges[surface.collider_edges]
    render = unique_edges(t)
    step_edge = np.array([[0.2, -0.7, 0.4], [0.2, 1.3, 0.4]])    # the box's top edge under her cheek
    along = np.linspace(0.0, 1.0, 9)[:, None, None]
    nearest = {}
    for edge_contacts in (True, False):
        world = core.World(settings=core.SolverSettings(cg_iterations=50))
        world.contact_settings.edge_contacts = edge_contacts
        body = world.add_body(tm, core.Material(youngs_modulus=1.0e5, poisson_ratio=0.45, density=1070.0,
                                                damping_mass=0.0, damping_stiffness=0.001, friction=0.7))
        world.add_collider(*box((0.2, -0.7, 0.0), (1.8, 1.3, 0.4)), friction=0.5, thickness=0.02)
        closest, into_box = np.inf, 0.0
        for _ in range(56):    # she reaches the edge at step 34 and slides off it by step 56
            world.step(1.0 / 96.0)
            p = point_positions(body.x, surface.nodes, surface.weights, 0.0, body.x)
            a, b = p[edges[:, 0]], p[edges[:, 1]]
            n = len(edges)
            closest = min(closest, brute_closest_many(a, b, np.tile(step_edge[0], (n, 1)),
                                                      np.tile(step_edge[1], (n, 1)))[2].min())
            q = p[render[:, 0]] + along * (p[render[:, 1]] - p[render[:, 0]])    # along her render edges
            into_box = max(into_box, np.minimum(q[..., 0] - 0.2, 0.4 - q[..., 2]).max())
        nearest[edge_contacts] = closest
        if edge_contacts:
            assert into_box < 0.01, f"a render edge {into_box * 1e3:.1f} mm into the box"
    assert nearest[True] > 0.005, f"surface edges {nearest[True] * 1e3:.1f} mm from the box edge"
    assert nearest[False] < 0.002


def test_an_edge_held_on_a_face_by_its_points_gets_no_edge_row_at_the_rim():
    """A body edge resting on a box's top face, 3 mm from and along its top edge, sunk 0.3 mm: it is behind both of
    the edge's planes, but its two points' face rows already hold it; an edge row would push it sideways over the rim
    by 3 mm. The step's rows: the bottom face's nine points, all pushed up."""
    from contact_scenes import tet_box
    from core.contact import ContactStage
    stage = ContactStage()
    stage.add_collider(*box((0.0, -1.0, 0.0), (1.0, 1.0, 0.4)), friction=0.5)
    mesh = tet_box((2, 2, 1), (0.1, 0.1, 0.05), (0.897, -0.05, 0.4 - 0.0003))
    stage.add_body(mesh, 0.5, "block")
    x = mesh.nodes
    v = np.tile([0.0, 0.0, -0.05], (len(x), 1))
    problem = stage.problem(x, v, 1.0 / 96.0, [len(x)], stage.settings.margin)
    assert len(np.unique(problem.point)) == 9                  # the bottom face's nine nodes
    assert np.allclose(problem.rows.frame[:, 0], [0.0, 0.0, 1.0])   # none towards the rim


def test_rigid_misfit_is_zero_for_a_rigid_motion_and_the_bend_for_a_bent_sheet():
    flat, _ = sheet(0.0)
    turned = flat @ (rotation(2, 50.0) @ rotation(0, 20.0)).T + (0.4, -2.0, 1.5)
    assert rigid_misfit(flat, turned) < 1e-12
    bent, _ = sheet(0.03)
    assert 0.01 < rigid_misfit(flat, bent) < 0.03     # the 3 cm rise, less what a best rigid fit takes up


def test_an_eight_vertex_bar_bends_over_a_box_edge_like_a_subdivided_one():
    """A 1 m × 10 cm × 10 cm bar (E = 1 MPa) laid across a 30 cm box collider, its ends overhanging 35 cm: the
    8-vertex bar's cage bends over the box's edges as much as the subdivided bar's (386 vertices), its long
    render edges cut into pieces that follow the cage. Measured after 2 s: 15.2 and 12.1 mm from the middle to
    the ends; a cantilever clamped at the box's edge would sag 22 mm (Euler–Bernoulli). Before, −0.8 and 4.5 mm:
    the 8-vertex bar's render edges, straight from end to end, were held off the box's edges, and both cages were
    as stiff as full tets (core.geometry.cage)."""
    from contact_scenes import plane
    droop = []
    for levels in (0, 3):
        world = core.World(settings=core.SolverSettings(cg_iterations=50))
        world.add_collider(*plane(20.0), friction=0.5)
        world.add_collider(*box_surface((-0.15, -0.15, 0.0), (0.15, 0.15, 0.3)), friction=0.5)
        v, t = box_surface((-0.5, -0.05, 0.3005), (0.5, 0.05, 0.4005))
        for _ in range(levels):
            v, t = subdivide(v, t)
        tm = core.tetrahedralize(v, t, resolution=12)
        tm.embedding.triangles = t
        body = world.add_body(tm, core.Material(1e6, 0.45, 1000.0, damping_stiffness=0.001, friction=0.5))
        for _ in range(192):
            world.step(1.0 / 96.0)
        x, rest = body.x, tm.nodes
        droop.append(x[np.abs(rest[:, 0]) < 0.1, 2].mean() - x[np.abs(rest[:, 0]) > 0.45, 2].mean())
    assert droop[0] > 0.01 and droop[0] == pytest.approx(droop[1], rel=0.3), droop
