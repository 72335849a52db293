"""First use on a cold numba cache, with the UI's policy (nothing waits for the solver): Add Soft Body returns at
once saying the solver is being prepared, frames show the unsimulated mesh until it is ready, then simulate; the
kernels are compiled in child processes and loaded by Blender's; a child that fails costs one line, no crash."""
import sys
import types

import pytest


def test_add_soft_body_returns_at_once_saying_the_solver_is_prepared(cold_first_use):
    r = cold_first_use
    assert r["add_result"] == ["FINISHED"] and r["soft_body_enabled"]
    assert not r["ready_after_add"], "the cold solver was ready before Add Soft Body: nothing was tested"
    assert r["add_call_s"] < 5.0
    assert "preparing the solver" in r["add_report"], r["add_report"]
    assert "first run after install" in r["message_preparing"], r["message_preparing"]


def test_frames_show_the_unsimulated_mesh_while_preparing(cold_first_use):
    r = cold_first_use
    shown = [f for f in r["frames_while_preparing"] if not f[1]]
    assert shown, "the solver was ready before any frame was shown"
    for frame, _ready, moved, written in shown:
        assert moved == 0.0 and not written, f"frame {frame} was not the modelled mesh"


def test_simulates_once_ready(cold_first_use):
    r = cold_first_use
    assert r["ready"] and r["error"] is None
    assert r["session_error"] is None
    assert r["first_frame_written"] and r["first_frame_moved_m"] > 1e-4   # frame 2 fell under gravity
    assert r["cage_tets"] > 0 and r["frames_cached"] == 12


def test_kernels_compiled_in_child_processes_load_in_blender(cold_first_use):
    r = cold_first_use
    assert r["progress"] and r["progress"][-1][1] > 0, "no progress was reported from the child processes"
    assert r["kernels_compiled_in_blender"] == 0   # every kernel Blender's process uses came from numba's cache


@pytest.mark.parametrize("breakage", ["no such script", "no such interpreter"])
def test_a_child_process_that_fails_costs_one_line(softfem, capfd, tmp_path, monkeypatch, breakage):
    readiness = softfem.addon.readiness
    if breakage == "no such interpreter":
        monkeypatch.setattr(sys, "executable", str(tmp_path / "python-missing"))
    no_core = types.SimpleNamespace(__name__="core", __file__=str(tmp_path / "__init__.py"))   # no warmup_child.py
    readiness._compile_in_children(no_core, ["all"])
    lines = capfd.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("SoftFEM: compiling the solver in Blender instead"), lines
