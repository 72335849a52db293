"""Dynamic agreement (issue 50): the cage at the add-on's defaults against a conforming neo-Hookean mesh as the
reference, for Blender's 2 m default cube pinned under gravity tilted 30° and a 50 cm Jelly ball dropped 50 cm."""
import numpy as np
import pytest

import core
from contact_scenes import box_surface, enclosed_volume, icosphere, plane
from core.geometry import embed_points
from fem_testmeshes import bcc_ball, bcc_box
from test_scenes_defaults import DT, G, defaults


def pinned_block(mode, resolution, seconds, model):
    """Blender's 2 m default cube (8 vertices) at the defaults with the constitutive `model`, gravity tilted 30° (the
    load on a sticking slope), no contact, its base pinned: a conforming mesh's base nodes; a cage as a pin group on
    the base pins it (every node of the tets holding the base's points: the cage's nodes below the base alone leave
    the tet layer under the body as a hinge, docs/method.md). Returns the mean displacement of the top face's points
    per step, at rest (World.solve_static), and the volume kept at rest."""
    th = np.radians(30.0)
    v, t = box_surface((-1.0, -1.0, 0.0), (1.0, 1.0, 2.0))
    tm = core.tetrahedralize(v, t, resolution=resolution) if mode == "cage" else bcc_box(v.min(0), v.max(0), resolution)
    grid = np.linspace(-1.0, 1.0, 21)
    face = np.array([[a, b, 0.0] for a in grid for b in grid])
    top = face + [0.0, 0.0, 2.0]
    if mode == "cage":
        tet, _ = embed_points(tm.nodes, tm.tets, face)
        pinned = np.unique(tm.tets[tet])
    else:
        pinned = np.flatnonzero(tm.nodes[:, 2] <= 1e-9)
    tet, weights = embed_points(tm.nodes, tm.tets, top)

    def top_displacement(x):
        return np.einsum("kc,kcd->d", weights, x[tm.tets[tet]] - tm.nodes[tm.tets[tet]]) / len(top)

    gravity = (G * np.sin(th), 0.0, -G * np.cos(th))
    world = core.World(gravity=gravity, settings=core.SolverSettings(cg_iterations=50))
    world.sleeping = False
    body = world.add_body(tm, defaults(model=model), pinned=pinned)
    path = []
    for _ in range(int(round(seconds / DT))):
        world.step(DT)
        path.append(top_displacement(body.x))
    rest = core.World(gravity=gravity, settings=core.SolverSettings(static_iterations=200))
    still = rest.add_body(tm, defaults(model=model), pinned=pinned)
    assert rest.solve_static()["static_converged"]
    return np.array(path), top_displacement(still.x), tm.volumes(still.x).sum() / tm.volumes().sum()


@pytest.mark.parametrize("model", ["corotated", "neo_hookean"])
def test_the_2m_default_cube_pinned_under_gravity_tilted_30_degrees_peaks_and_rests_as_the_conforming_mesh_does(model):
    """The cage at the add-on's defaults (resolution 12) with the default model (corotated) and the presets'
    (neo-Hookean) against exact BCC boxes, neo-Hookean (the top face's mean displacement; scenes: pinned_block).
    Measured (down the incline x, down z): the corotated cage's top peaks at x 1.301 m (1.41 s) and rests at
    (0.758, −0.262), keeping 96.6 % of its volume; the neo-Hookean cage's peaks at 1.096 m (0.95 s) and rests at
    (0.589, −0.164), keeping 99.1 %. The conforming mesh peaks at 1.234 m (1.05 s) at 8 cells (6,912 tets) and
    1.307 m (1.27 s) at 12 cells (22,464 tets): the peak's gap 5.4 % (0.5 %) corotated, 11.2 % (16.1 %)
    neo-Hookean. Its rest, |u| 0.691, 0.706, 0.718 m at 8, 10, 12 cells ((0.680, −0.190) at 10; scikit-fem's P2
    tets: 0.667, 0.697, 0.714 m at 4, 6, 8 cells), so the rest's gap is 15.0 % (13.2 % at 12 cells) corotated and
    13.4 % (14.9 %) neo-Hookean. The suite affords 10 cells (6 s; 12 cells took 67 s): the bound on the rest is the
    corotated 15.0 %, rounded up to 16 %; the issue's 15 % holds against the finer references."""
    cage, cage_rest, cage_volume = pinned_block("cage", 12, 2.0, model)
    mesh, _, _ = pinned_block("conforming", 8, 1.6, "neo_hookean")
    _, mesh_rest, mesh_volume = pinned_block("conforming", 10, 0.0, "neo_hookean")   # its rest alone
    for path in (cage, mesh):
        assert 0 < np.argmax(path[:, 0]) < len(path) - 5                  # a peak, not the end of the run
        assert np.all(path[:, 2] > -1.0)               # no fold (a folding cage's top sank 1.5-3 m, docs/method.md)
    assert cage[:, 0].max() == pytest.approx(mesh[:, 0].max(), rel=0.15)
    assert np.linalg.norm(cage_rest - mesh_rest) < 0.16 * np.linalg.norm(mesh_rest)   # 15.0 % (see above)
    assert min(cage_volume, mesh_volume) > 0.95


JELLY = dict(youngs_modulus=5.0e3, poisson_ratio=0.45, density=1030.0, damping_stiffness=0.002, friction=0.3,
             model="neo_hookean")     # addon/presets.py's Jelly
RADIUS, DROP = 0.25, 0.5


def jelly_ball_drop(mode, seconds):
    """A 50 cm Jelly ball dropped 50 cm onto a floor (its bottom 0.5 m up, at rest): a cage at resolution 12 of a
    2,562-vertex icosphere, or a conforming ball (fem_testmeshes.bcc_ball, 13,200 tets). Per step: the top's height,
    the bottom's height, the width along x and the volume kept (the render surface's, or the conforming tets')."""
    world = core.World(settings=core.SolverSettings(cg_iterations=50))
    world.add_collider(*plane(20.0), friction=0.3)
    centre = (0.0, 0.0, DROP + RADIUS + 0.0005)
    if mode == "cage":
        v, f = icosphere(4, RADIUS, centre)
        tm = core.tetrahedralize(v, f, resolution=12, mode="cage")
        tm.embedding.triangles = f
        surface = tm.embedding.positions

        def volume(x):
            return enclosed_volume(tm.embedding.positions(x), f)
    else:
        tm = bcc_ball(centre, RADIUS, 10)

        def surface(x):
            return x

        def volume(x):
            return tm.volumes(x).sum()
    body = world.add_body(tm, core.Material(**JELLY))
    v0 = volume(tm.nodes)
    rows = []
    for _ in range(int(round(seconds / DT))):
        world.step(DT)
        p = surface(body.x)
        rows.append((p[:, 2].max(), p[:, 2].min(), np.ptp(p[:, 0]), volume(body.x) / v0))
    return np.array(rows)


def test_a_50cm_jelly_ball_dropped_50cm_squashes_and_rests_as_the_conforming_mesh_does():
    """ρgH/G = 2.9: over the too-soft warning's bound. Measured (5 s runs; at rest: the mean over 2.0–2.25 s, within
    2 % of the 5 s figures): the cage's top drops 0.434 m at the landing's peak (to 0.066 m, 0.46 s), rests at
    0.291 m, 0.611 m wide, keeping 93.0 % of its volume; the conforming ball's top drops 0.457 m (to 0.043 m, 0.46 s),
    rests at 0.284 m, 0.618 m wide, keeping 91.9 %. Gaps: peak drop 5 %, rest height 2.5 %, width 1.1 %.
    Neither keeps the issue's 95 %: the reference's own rest loses 8 % (the compressible neo-Hookean at ν = 0.45 under
    a mean pressure about ρg·0.14 m = 1.4 kPa against the bulk modulus of 16.7 kPa: 8.5 %). The landing crushes both:
    at the peak the cage keeps 29 % of its volume with 3,082 of its 5,933 tets degenerate, the conforming ball 10 %
    with 7,120 of 13,200, its bottom 16 cm through the floor; at rest 528 and 1,046 stay degenerate. fTetWild's
    conforming ball (core.tetrahedralize, resolution 10, 9,734 tets, 22 s to mesh) does the same: its top drops
    0.453 m, its bottom 15 cm through the floor, 13 % of its volume left at the peak; at 2.25 s 0.285 m high, 0.615 m
    wide, 92 %. The peak's agreement is between two crushed meshes, not with a sound reference."""
    seconds, rest = 2.25, slice(int(round(2.0 / DT)), None)
    cage, mesh = jelly_ball_drop("cage", seconds), jelly_ball_drop("conforming", seconds)
    drop = [DROP + 2 * RADIUS - run[:, 0].min() for run in (cage, mesh)]
    assert drop[0] == pytest.approx(drop[1], rel=0.15)
    for column in (0, 2):                                                   # the rest's height and width
        assert cage[rest, column].mean() == pytest.approx(mesh[rest, column].mean(), rel=0.15)
    assert cage[rest, 1].min() > -0.002                                     # resting on the floor
    volumes = cage[rest, 3].mean(), mesh[rest, 3].mean()
    assert min(volumes) > 0.9 and abs(volumes[0] - volumes[1]) < 0.03
