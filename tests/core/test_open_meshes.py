"""Open meshes from the wild: boxes with holes and car-like shells are solid; a sheet, plane, bowl, ribbon are not."""
import numpy as np
import pytest

import core
from core.errors import InvalidInputError
from core.geometry.primitives import box_surface
import open_shapes


@pytest.mark.parametrize("name", ["open_box", "box_with_hole", "car_shell"])
def test_open_boxes_and_a_car_shell_are_solid(name):
    v, t = getattr(open_shapes, name)()
    tm = core.tetrahedralize(v, t, resolution=12)
    box = float(np.prod(v.max(axis=0) - v.min(axis=0)))
    assert not tm.report["closed"]
    # the winding number shows their inside: their holes are not capped
    assert 0.9 * box < tm.report["mesh_volume"] < 1.15 * box
    assert tm.report["holes_capped"] == 0
    assert np.all(tm.embedding.weights > -1e-6)


def test_a_car_body_open_on_every_side_gets_its_holes_capped_and_is_as_solid_as_its_body():
    """Windows on all four sides, wheel arches and a slot in the floor: the winding number alone shows no inside
    (~0.58 at the centre), the capped holes do, and the capped mesh is closed, so its volume is exact: the box less
    the wheel arches' notches, which the arches' caps cut across."""
    from core.geometry.winding import WindingNumber
    v, t = open_shapes.car_body()
    centre = 0.5 * (v.min(axis=0) + v.max(axis=0))
    assert abs(WindingNumber(v, t)(centre[None])[0]) < 0.85
    box = float(np.prod(v.max(axis=0) - v.min(axis=0)))
    body = box - 4 * (0.16 * 4.0) * (0.25 * 1.4) * (0.3 * 1.8)        # the box less the four arches' notches
    for resolution in (6, 12):
        tm = core.tetrahedralize(v, t, resolution=resolution)
        assert tm.report["holes_capped"] == 9    # 4 windows, 4 arches, the slot
        assert body < tm.report["mesh_volume"] < 1.1 * body
        np.testing.assert_allclose((tm.volumes() * tm.mass_weights).sum(), tm.report["mesh_volume"], rtol=1e-9)
        assert np.all(tm.embedding.weights > -1e-6)
        # the cage fills the body: nodes deep inside (the centre's cell) are in it, not only a shell of tets
        inside = np.all(np.abs(tm.nodes - centre) < [1.2, 0.5, 0.4], axis=1)
        assert inside.sum() >= 4


def test_capping_is_confined_to_holes_narrower_than_a_quarter_of_the_size():
    """A loop is capped when it is a hole (narrower than 0.24 x the longest side, its cap under a quarter of the
    area): the car's nine holes; not a bowl's mouth, a sheet's or a ribbon's outline, an open box's lid."""
    from core.geometry.holes import HoleCaps
    for name, loops, capped in [("car_body", 9, 9), ("bowl", 1, 0), ("sheet", 1, 0), ("ribbon", 1, 0),
                                ("open_box", 1, 0), ("plane", 1, 0)]:
        v, t = getattr(open_shapes, name)()
        caps = HoleCaps((v - v.min(axis=0)) / np.ptp(v, axis=0).max(), t)
        assert (caps.loops, caps.capped) == (loops, capped), name
        assert caps.closed == (capped == loops > 0), name


@pytest.mark.parametrize("name", ["sheet", "plane", "bowl", "ribbon"])
def test_a_sheet_a_plane_a_thin_bowl_and_a_ribbon_have_no_volume_naming_what_was_measured(name):
    v, t = getattr(open_shapes, name)()
    with pytest.raises(InvalidInputError, match="no volume") as err:
        core.tetrahedralize(v, t, resolution=12)
    if name != "plane" or "winding" in str(err.value):
        assert "winding number| above 0.85 in" in str(err.value)
        assert "boundary loops is a hole narrower than 0.24" in str(err.value)


def test_a_closed_mesh_is_unchanged_by_the_hole_closing():
    v, t = box_surface([0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
    tm = core.tetrahedralize(v, t, resolution=8)
    assert tm.report["closed"] and "holes_capped" not in tm.report
    np.testing.assert_allclose((tm.volumes() * tm.mass_weights).sum(), 6.0, rtol=1e-9)


@pytest.mark.parametrize("name", ["car_shell", "car_body"])
def test_the_car_shells_fall_onto_a_plane_and_keep_their_volume(name):
    """A toy car (1 m x 0.45 m x 0.35 m, its windows open; car_body with its holes capped) at the add-on's default
    material dropped 5 cm onto a plane: it lands keeping its (filled) volume and rests on the plane."""
    from contact_scenes import plane
    v, t = getattr(open_shapes, name)()
    v = v * 0.25 + [-0.5, -0.225, 0.05]
    tm = core.tetrahedralize(v, t, resolution=6)
    w = core.World(gravity=(0.0, 0.0, -9.81), settings=core.SolverSettings(cg_iterations=50))
    w.add_collider(*plane(5.0), friction=0.5)
    body = w.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0,
                                        damping_stiffness=0.01, friction=0.5))
    rest = float((tm.volumes() * tm.mass_weights).sum())
    least = 1.0
    for _ in range(48):
        w.step(1.0 / 96.0)
        least = min(least, float((tm.volumes(body.x) * tm.mass_weights).sum()) / rest)
    surface = tm.embedding.positions(body.x)
    print(f"volume kept: least {least:.4f}, at 0.5 s {(tm.volumes(body.x) * tm.mass_weights).sum() / rest:.4f}; "
          f"lowest point {surface[:, 2].min() * 1000:.1f} mm")
    assert least >= 0.97
    assert -0.01 < surface[:, 2].min() < 0.01                   # on the plane, not through it
    assert np.abs(body.v).max() < 0.5                           # landed
