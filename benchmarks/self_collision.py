"""Benchmark of self collision's cost: the step with self_collision on against off, on a body far from folding and on
folding scenes.

Far from folding: a 642-vertex ball resting on a plane, and the live bunny (benchmarks/bunny_step.py's scene: cage resolution 12, the add-on's default
material, on a floor plane, Δt = 1/96 s), sleeping off so that every step is solved; after --settle steps, --steps
steps are timed, and the self detection's own time (SelfSurface.rows and edge_rows) per step; and the same bunny dropped 30 cm (the
live playback scene), one second from its release, in total. Folding: the soft bar (1 × 0.1 ×
0.1 m, E = 1e4) dropped across a 1 cm rod, and the U squeezed shut by a plate (tests/core/test_self_collision.py's
scenes): the median step, the self contacts, and the render vertices that passed into the body's own surface
(generalized winding number) at worst. Each figure is the median of --runs runs (each a fresh World).
Usage: .venv/bin/python benchmarks/self_collision.py [--runs 3] [--settle 48] [--steps 48] [--bunny PATH]
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "core"))

import core  # noqa: E402
import core.contact.self_contact as self_contact  # noqa: E402
from bunny_step import BUNNY, DT  # noqa: E402
from contact_scenes import plane  # noqa: E402
from core.geometry.obj import load_obj  # noqa: E402
from core.geometry.primitives import icosphere  # noqa: E402
from self_scenes import bar, cage_body, passed_inside, rod, squeezed_u_world  # noqa: E402

SELF_SECONDS = []   # the self detection's seconds (its vertex rows' and edge rows' together), per detection


def _timed_self_rows():
    rows, edge_rows = self_contact.SelfSurface.rows, self_contact.SelfSurface.edge_rows

    def timed_rows(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return rows(self, *args, **kwargs)
        finally:
            SELF_SECONDS.append(time.perf_counter() - t0)

    def timed_edge_rows(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return edge_rows(self, *args, **kwargs)
        finally:
            SELF_SECONDS[-1] += time.perf_counter() - t0
    self_contact.SelfSurface.rows = timed_rows
    self_contact.SelfSurface.edge_rows = timed_edge_rows


def bunny_world(path, self_collision, height):
    """The live bunny (cage resolution 12, the add-on's default material, sleeping off) `height` above a floor
    plane: (world, render vertices)."""
    v, f = load_obj(path)[:2]
    v = np.asarray(v, float)
    v = np.stack([v[:, 0], -v[:, 2], v[:, 1]], axis=1)
    lo, hi = v.min(axis=0), v.max(axis=0)
    v = (v - 0.5 * (lo + hi)) * (0.5 / (hi - lo).max())
    v[:, 2] -= v[:, 2].min() - height
    tm = core.tetrahedralize(v, np.asarray(f), resolution=12)
    world = core.World(settings=core.SolverSettings(newton_iterations=1, cg_iterations=50))
    world.sleeping = False
    world.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0, damping_mass=0.0,
                                     damping_stiffness=0.01, friction=0.5), self_collision=self_collision)
    floor = np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], float)
    world.add_collider(floor, np.array([[0, 1, 2], [0, 2, 3]]), friction=0.5, thickness=0.02)
    return world, len(v)


def bunny(path, self_collision, settle, steps):
    """The bunny resting after a 5 cm drop and `settle` steps: the median of `steps` steps (s), the median self
    detection (s), the self contacts found, its render vertices."""
    world, n = bunny_world(path, self_collision, 0.05)
    for _ in range(settle):
        world.step(DT)
    SELF_SECONDS.clear()
    times, self_contacts = [], 0
    for _ in range(steps):
        t0 = time.perf_counter()
        world.step(DT)
        times.append(time.perf_counter() - t0)
        self_contacts += int(np.sum(world.contacts.other_body == 0))
    detect = np.median(SELF_SECONDS) if SELF_SECONDS else 0.0
    return np.median(times), detect, self_contacts, n


def bunny_landing(path, self_collision, steps=96):
    """The bunny dropped 30 cm (the live playback scene), one second from its release: the total time of the steps
    and of the self detection (s), and the self contacts found."""
    world, _ = bunny_world(path, self_collision, 0.3)
    world.step(DT)   # (compiles what is left)
    SELF_SECONDS.clear()
    t0 = time.perf_counter()
    contacts = 0
    for _ in range(steps):
        world.step(DT)
        contacts += int(np.sum(world.contacts.other_body == 0))
    return time.perf_counter() - t0, sum(SELF_SECONDS), contacts


def resting_ball(self_collision, settle=96, steps=48):
    """A 10 cm icosphere (642 vertices, cage resolution 8) resting on a plane, sleeping off: the median step (s) of
    `steps` after `settle` at Δt = 1/96 s, and whether the self contact holds a reference (core.contact.self_contact)."""
    v, f = icosphere(3, 0.1, (0.0, 0.0, 0.102))
    tm = cage_body(v, f, 8)
    world = core.World()
    world.sleeping = False
    world.add_body(tm, core.Material(youngs_modulus=1e5, poisson_ratio=0.45, density=1000.0),
                   self_collision=self_collision)
    world.add_collider(*plane(1.0, 0.0))
    for _ in range(settle):
        world.step(DT)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        world.step(DT)
        times.append(time.perf_counter() - t0)
    own = world._contact._layout["self"]
    return np.median(times), bool(own and own[0].reference is not None)


def folding_bar(self_collision, steps=90):
    v, f = bar(0.05, (20, 2, 2), origin=(-0.5, -0.05, 0.3))
    tm = cage_body(v, f, 20)
    world = core.World()
    world.add_body(tm, core.Material(youngs_modulus=1e4, poisson_ratio=0.3, density=1000, friction=0.5),
                   self_collision=self_collision)
    world.add_collider(*rod(0.01, 0.6, (0.0, 0.0, 0.288)))
    return _run(world, tm, f, steps, lambda k: None)


def squeezed_u(self_collision, steps=120):
    world, tm, _, f, press = squeezed_u_world(self_collision, 1 / 120)
    return _run(world, tm, f, steps, press)


def _run(world, tm, f, steps, move):
    """Median step (s), most self contacts in a step, most render vertices inside the body in a step, and the deepest
    self contact reported (m)."""
    times, most, inside, depth = [], 0, 0, 0.0
    tau = world.contact_settings.body_thickness
    for k in range(steps):
        move(k)
        t0 = time.perf_counter()
        world.step(1 / 120)
        times.append(time.perf_counter() - t0)
        c = world.contacts
        own = c.other_body == c.body
        most = max(most, int(own.sum()))
        depth = max(depth, float(c.depths[own].max(initial=0.0)))
        inside = max(inside, int(passed_inside(tm.embedding.positions(world.state.x), f, tau).sum()))
    return np.median(times), most, inside, depth


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--settle", type=int, default=48)
    parser.add_argument("--steps", type=int, default=48)
    parser.add_argument("--bunny", default=BUNNY, help="the Stanford bunny's OBJ (default: ../shared/models/)")
    args = parser.parse_args()
    _timed_self_rows()
    print(f"load average {os.getloadavg()[0]:.1f}; medians of {args.runs} runs")
    folding_bar(True, 2), squeezed_u(True, 2)   # (compiles the kernels)
    results = {}
    for on in (False, True):
        runs = [bunny(args.bunny, on, args.settle, args.steps) for _ in range(args.runs)]
        step = np.median([r[0] for r in runs])
        detect = np.median([r[1] for r in runs])
        results[on] = step
        print(f"bunny resting ({runs[0][3]} render vertices), self_collision={on}: step {1e3 * step:.2f} ms"
              + (f", self detection {1e3 * detect:.2f} ms, self contacts {runs[0][2]}" if on else ""))
    print(f"  self collision's share of the step with it on: {100 * (1 - results[False] / results[True]):.1f} %")
    for on in (False, True):
        runs = [bunny_landing(args.bunny, on) for _ in range(args.runs)]
        total = np.median([r[0] for r in runs])
        results[on] = total
        print(f"bunny dropped 30 cm, 1 s, self_collision={on}: {total:.2f} s"
              + (f", self detection {np.median([r[1] for r in runs]):.2f} s, self contacts {runs[0][2]}" if on else ""))
    print(f"  self collision's share of the landing with it on: {100 * (1 - results[False] / results[True]):.1f} %")
    for on in (False, True):
        runs = [resting_ball(on) for _ in range(args.runs)]
        print(f"ball resting (642 render vertices), self_collision={on}: step "
              f"{1e3 * np.median([r[0] for r in runs]):.2f} ms" + (f", reference: {runs[0][1]}" if on else ""))
    for name, scene in (("bar folded over a rod", folding_bar), ("U squeezed shut", squeezed_u)):
        for on in (False, True):
            runs = [scene(on) for _ in range(args.runs)]
            print(f"{name}, self_collision={on}: step {1e3 * np.median([r[0] for r in runs]):.2f} ms, "
                  f"self contacts at most {runs[0][1]}, deepest self contact {1e3 * runs[0][3]:.2f} mm, "
                  f"vertices inside its own surface at worst {runs[0][2]}")


if __name__ == "__main__":
    main()
