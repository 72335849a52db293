"""The contact stage's broad phase finds the same contacts as every point tested against every triangle."""
import numpy as np

from contact_scenes import box_surface, icosphere, plane, soft_ball, tet_box
from core.contact import ContactStage
from core.contact.bvh import BVH
from core.contact.detect import detect
from core.contact.surface import point_positions
from core.geometry.embedding import Embedding, barycentric_in_tets
from core.tetmesh import TetMesh

DT = 1 / 60


def _all_against_all(stage, x0, v, dt, margin):
    """(point, collider triangle or -1, other body's triangle or -1) of every candidate contact: the detect
    kernel run on every point against a fresh BVH, exactly refit, of all colliders' and of each body's triangles."""
    lay, s = stage._layout, stage.settings
    p0 = point_positions(x0, lay["nodes"], lay["weights"], 0.0, v)
    p1 = point_positions(x0, lay["nodes"], lay["weights"], dt, v)
    below_open = stage._sides.below_open(s)
    reach = lambda thick, onesided: thick + margin + np.where(onesided, s.search_depth, below_open)  # noqa
    sets = []
    live = [c for c in stage.colliders if len(c.triangles)]
    if live:
        offs = np.cumsum([0] + [len(c.start) for c in live])
        tris = np.concatenate([c.triangles + o for c, o in zip(live, offs)])
        c0 = np.concatenate([c.start for c in live])
        c1 = np.concatenate([c.end for c in live])
        thick = np.concatenate([np.full(len(c.triangles), c.thickness) for c in live])
        onesided = np.concatenate([np.full(len(c.triangles), c.closed) for c in live])
        source = np.concatenate([np.full(len(c.triangles), c.index) for c in live])
        sets.append((tris, c0, c1, np.full(len(tris), -1), source, thick, onesided, "collider"))
    poffs = np.cumsum([0] + [len(sf) for sf in stage.surfaces])
    for j, sf in enumerate(stage.surfaces):
        if len(sf.triangles):
            m = len(sf.triangles)
            sets.append((sf.triangles + poffs[j], p0, p1, np.full(m, j), np.full(m, -2 - j),
                         np.full(m, s.body_thickness), np.full(m, sf.closed), "body"))
    found = set()
    K = s.max_contacts_per_point
    n = len(p0)
    for tris, v0, v1, group, source, thick, onesided, kind in sets:
        bvh = BVH(v0, tris)
        bvh.refit(v0, v1, reach(thick, onesided))
        slot_tri = np.empty((n, K), np.int64)
        detect(p0, p1, np.arange(n), lay["group"], v0, v1, tris, np.zeros((0, 3)), group, thick, onesided,
               stage._held_inside(), bvh.left,
               bvh.right, bvh.start, bvh.count, bvh.order, bvh.lo, bvh.hi, margin, s.search_depth,
               max(s.search_depth, stage._sides.below_open(s)), stage._sides.hint,
               stage._sides.source, source, slot_tri, np.empty((n, K, 3)), np.empty((n, K, 3)), np.empty((n, K)))
        for i, t in zip(*np.nonzero(slot_tri >= 0)):
            tri = slot_tri[i, t]
            found.add((i, tri, -1) if kind == "collider" else (i, -1, tri))
    return found


def _stage_contacts(stage, x0, v, dt, margin):
    rows, _ = stage._gather(x0, v, dt, 0.0, 1.0, margin)
    found = set()
    for cand, _, _, _, _, collider, other in rows:
        lay = stage._layout
        tri_start = 0 if not len(other) or other[0] < 0 else \
            sum(len(sf.triangles) for sf in stage.surfaces[:other[0]])
        for i, t, c in zip(cand.point, cand.tri, collider):
            found.add((i, t, -1) if c >= 0 else (i, -1, t - tri_start))
        assert np.all(lay["group"][cand.point] != np.where(other >= 0, other, -2))
    return found


def _compare(stage, x0, v, counts, expect_body=False, expect_collider=False):
    """The stage's contacts equal the all-against-all ones for the motion and for still positions, over a few steps
    (side hints, initial overlap sides)."""
    x0 = np.ascontiguousarray(x0, float)
    for step in range(3):
        # as a World step: on the first, sides of an initial overlap
        problem = stage.problem(x0, v, DT, counts, stage.settings.margin)
        for dt, vel, margin in ((DT, v, stage.settings.margin), (0.0, np.zeros_like(v), 0.0)):
            got = _stage_contacts(stage, x0, vel, dt, margin)
            want = _all_against_all(stage, x0, vel, dt, margin)
            assert got == want
            if dt > 0.0:
                assert any(c >= 0 for _, c, _ in want) == expect_collider
                assert any(o >= 0 for _, _, o in want) == expect_body
        stage.finish_problem(problem, x0, x0 + DT * v, DT)
        x0 = x0 + 0.3 * DT * v
    return got


def _points_read(stage):
    """How many points the body BVHs' fitted leaves read, and how many points there are."""
    lay = stage._layout
    read = set()
    for part, _, _ in lay["bodies"]:
        bvh = part.bvh
        if bvh._fitted is not None:
            read.update(bvh.leaf_vertices(bvh._fitted).tolist())
    return len(read), len(lay["nodes"])


def test_two_bodies_touching_at_an_angle_find_every_contact():
    a, _ = soft_ball(3, 0.3, (0.0, 0.0, 0.0), 10)
    direction = np.array([1.0, 0.6, -0.4]) / np.linalg.norm([1.0, 0.6, -0.4])
    b, _ = soft_ball(3, 0.25, 0.545 * direction, 10)        # overlapping a little: some points start inside
    stage = ContactStage()
    stage.add_body(a, 0.5, "a")
    stage.add_body(b, 0.5, "b")
    x0 = np.vstack([a.nodes, b.nodes])
    v = np.vstack([np.tile(0.5 * direction, (a.num_nodes, 1)), np.tile(-0.5 * direction, (b.num_nodes, 1))])
    got = _compare(stage, x0, v, [a.num_nodes, b.num_nodes], expect_body=True)
    assert len({i for i, _, _ in got}) > 10
    read, total = _points_read(stage)
    assert 0 < read < total / 3      # only triangles near the other body are positioned


def test_body_resting_on_colliders_finds_every_contact():
    ball, _ = soft_ball(3, 0.3, (0.0, 0.0, 0.298), 6)
    stage = ContactStage()
    stage.add_collider(*plane(2.0, 0.0), friction=0.5, thickness=0.002)
    box_v, box_t = box_surface((0.25, -0.5, -0.5), (1.0, 0.5, 0.1))      # a closed box the ball leans on
    stage.add_collider(box_v, box_t, friction=0.3)
    stage.add_body(ball, 0.5, "ball")
    x0 = ball.nodes
    v = np.tile([0.05, 0.0, -9.81 * DT], (len(x0), 1))
    _compare(stage, x0, v, [ball.num_nodes], expect_collider=True)
    # the ball started 2 mm into the open plane
    assert stage._sides.below_open(stage.settings) == stage.settings.search_depth


def test_bodies_with_negative_embedding_weights_find_every_contact():
    # Render spheres on coarse box cages they stick out of: the points outside lie outside their tets
    # (negative weights), beyond the tets' node boxes.
    def caged(centre, radius, subdivisions):
        v, f = icosphere(subdivisions, radius, centre)
        cage = tet_box(2, 1.4 * radius, np.asarray(centre) - 0.7 * radius)
        centroid = cage.nodes[cage.tets].mean(axis=1)
        tet = np.argmin(((v[:, None] - centroid[None]) ** 2).sum(axis=2), axis=1)
        w = barycentric_in_tets(v, tet, cage.nodes, cage.tets)
        return TetMesh(cage.nodes, cage.tets, embedding=Embedding(cage.tets, tet, w, f)), w

    a, wa = caged((0.0, 0.0, 0.0), 0.3, 3)
    b, _ = caged((0.35, 0.42, 0.05), 0.3, 2)
    assert wa.min() < -0.2
    stage = ContactStage()
    stage.add_body(a, 0.5, "a")
    stage.add_body(b, 0.5, "b")
    stage.add_collider(*plane(2.0, -0.28), friction=0.5)
    x0 = np.vstack([a.nodes, b.nodes])
    v = np.vstack([np.tile([0.2, 0.3, -0.5], (a.num_nodes, 1)), np.tile([-0.2, -0.3, -0.5], (b.num_nodes, 1))])
    _compare(stage, x0, v, [a.num_nodes, b.num_nodes], expect_body=True, expect_collider=True)
