"""Contact stage timings: 100k render vertices on a 10k-triangle collider, and two 70k-vertex bodies touching.

Prints the median time per substep of the contact stage's work outside the implicit solve: a World substep's
detection (the step's contact rows as one problem, ContactStage.problem) and its report (finish_problem); with the
numba compile (first calls) reported separately, the median CPU time of that work (all threads; less sensitive to
other processes on a shared machine) and the load average. (The contact solve runs inside the implicit solve:
benchmarks/drop_steps.py and bunny_step.py time it.)
Run: NUMBA_CACHE_DIR=.numba_cache .venv/bin/python benchmarks/contact.py
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import core  # noqa: E402
from core.contact import ContactStage  # noqa: E402

REPEATS = 15


def latlong_sphere(n_lat, n_lon, radius, centre):
    """Closed sphere with n_lat * n_lon + 2 vertices."""
    theta = np.linspace(0, np.pi, n_lat + 2)[1:-1]
    phi = np.linspace(0, 2 * np.pi, n_lon, endpoint=False)
    T, P = np.meshgrid(theta, phi, indexing="ij")
    v = np.stack([np.sin(T) * np.cos(P), np.sin(T) * np.sin(P), np.cos(T)], -1).reshape(-1, 3)
    v = np.vstack([[0, 0, 1], v, [0, 0, -1]]) * radius + centre
    idx = 1 + np.arange(n_lat * n_lon).reshape(n_lat, n_lon)
    nxt = np.roll(idx, -1, axis=1)
    quads_a = np.stack([idx[:-1], idx[1:], nxt[1:]], -1).reshape(-1, 3)
    quads_b = np.stack([idx[:-1], nxt[1:], nxt[:-1]], -1).reshape(-1, 3)
    top = np.stack([np.zeros(n_lon, int), idx[0], nxt[0]], -1)
    bottom = np.stack([np.full(n_lon, len(v) - 1), nxt[-1], idx[-1]], -1)
    return v, np.concatenate([top, quads_a, quads_b, bottom])


def terrain(n, half):
    """A gently wavy (n-1)^2 * 2-triangle height field around z = 0."""
    g = np.linspace(-half, half, n)
    X, Y = np.meshgrid(g, g, indexing="ij")
    Z = 0.01 * np.sin(3 * X) * np.cos(3 * Y)
    v = np.stack([X.ravel(), Y.ravel(), Z.ravel()], 1)
    i = np.arange(n * n).reshape(n, n)
    a, b, c, d = i[:-1, :-1].ravel(), i[1:, :-1].ravel(), i[1:, 1:].ravel(), i[:-1, 1:].ravel()
    return v, np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])


def body(n_lat, n_lon, radius, centre, resolution):
    v, f = latlong_sphere(n_lat, n_lon, radius, centre)
    tm = core.tetrahedralize(v, f, resolution=resolution)
    tm.embedding.triangles = f
    return tm


def time_stage(stage, x, v, counts, dt):
    """Median ms of a World substep's detection (stage.problem) and report (stage.finish_problem), and their median
    CPU ms."""
    margin = stage.settings.margin
    first = time.perf_counter()
    stage.finish_problem(stage.problem(x, v, dt, counts, margin), x, x + dt * v, dt)
    compile_s = time.perf_counter() - first
    detect, finish, cpu = [], [], []
    rows = 0
    for _ in range(REPEATS):
        c0 = time.process_time()
        t0 = time.perf_counter()
        problem = stage.problem(x, v, dt, counts, margin)
        t1 = time.perf_counter()
        stage.finish_problem(problem, x, x + dt * v, dt)
        t2 = time.perf_counter()
        cpu.append(time.process_time() - c0)
        detect.append(t1 - t0)
        finish.append(t2 - t1)
        rows = 0 if problem is None else len(problem)
    ms = lambda a: np.median(a) * 1e3  # noqa: E731
    return dict(compile=compile_s, detect=ms(detect), finish=ms(finish), cpu=ms(cpu), rows=rows)


def report(label, r):
    print(f"{label}: detection {r['detect']:.1f} ms + report {r['finish']:.1f} ms, CPU {r['cpu']:.1f} ms "
          f"({r['rows']} rows; first calls incl. compile {r['compile']:.1f} s)")


def main():
    dt = 1 / 120
    print("SoftFEM contact benchmark (median of %d, ms per substep; load average %.1f)" % (REPEATS, os.getloadavg()[0]))

    # 100,002 render vertices (E = 10 MPa) resting on the terrain: dropped from 1 mm and settled for 0.25 s in a World
    # (a frozen overlapping start would be an initial overlap waiting, every repeat, to be pushed out)
    tm = body(250, 400, 0.5, (0.0, 0.0, 0.5), 12)
    cv, ct = terrain(71, 1.5)                                  # 9,800 triangles
    p = tm.embedding.positions(tm.nodes)
    ground = 0.01 * np.sin(3 * p[:, 0]) * np.cos(3 * p[:, 1])
    tm = core.TetMesh(tm.nodes + [0.0, 0.0, 0.001 - (p[:, 2] - ground).min()], tm.tets, embedding=tm.embedding,
                      mass_weights=tm.mass_weights)
    world = core.World()
    sphere = world.add_body(tm, core.Material(youngs_modulus=1e7, poisson_ratio=0.45, density=1000.0))
    world.add_collider(cv, ct, friction=0.5, thickness=0.0)
    for _ in range(30):
        world.step(dt)
    stage = ContactStage()
    stage.add_collider(cv, ct, friction=0.5, thickness=0.0)
    stage.add_body(tm, 0.5, "sphere")
    x = sphere.x.copy()
    v = sphere.v + dt * np.array([0.0, 0.0, -9.81])
    report(f"1) {len(tm.embedding.tet)} render vertices ({tm.num_nodes} cage nodes) vs {len(ct)}-triangle collider",
           time_stage(stage, x, v, [len(x)], dt))

    a = body(175, 400, 0.5, (-0.5, 0.0, 0.0), 12)              # 70,002 render vertices each
    b = body(175, 400, 0.5, (0.5 + 0.0005, 0.0, 0.0), 12)
    stage = ContactStage()
    stage.add_body(a, 0.5, "a")
    stage.add_body(b, 0.5, "b")
    x = np.vstack([a.nodes, b.nodes])
    v = np.zeros_like(x)
    v[:a.num_nodes, 0] = 0.1
    v[a.num_nodes:, 0] = -0.1
    report(f"2) two {len(a.embedding.tet)}-vertex bodies touching",
           time_stage(stage, x, v, [a.num_nodes, b.num_nodes], dt))


if __name__ == "__main__":
    main()
