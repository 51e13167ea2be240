"""Lesson 16 end to end without a GPU: the kernels of examples/saxpy.cu run on the CPU (tests/helpers/sim_driver.py),
reading their parameters the way the GPU does, so every check of the lesson passes or fails on the packing, the
graph nodes and the struct layout themselves."""
from __future__ import annotations

import gc
import runpy
from pathlib import Path

import pytest

from fake_driver import patch_driver

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "16_own_kernel.py"


@pytest.fixture
def sim(monkeypatch):
    """The simulated driver, and no CuPy (the cu12 CI environment has it, but no GPU for it to use)."""
    import sys

    from sim_driver import SimDriver, saxpy_kernels

    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy -> ImportError: the lesson skips that part
    fake = SimDriver()
    saxpy_kernels(fake)
    patch_driver(monkeypatch, fake)
    yield fake
    gc.collect()


def test_lesson_16_checks_pass_on_the_simulated_driver(sim, capsys):
    main = runpy.run_path(str(EXAMPLE), run_name="lesson16")["main"]
    assert main() == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "compiled saxpy.cu for sm_90 (cubin): the current device's arch"
    assert [line.split(":")[0] for line in out[1:5]] == [
        "eager", "graph (captured)", "graph (built from a launch prepared without a stream)",
        "struct argument (16 bytes, align 8)"]
    assert all("bit-exact (1,048,576 elements)" in line for line in out[1:5])
    assert out[5] == "cupy arrays on a cupy stream: skipped (CuPy is not installed)"
    assert sim.launches == ["saxpy"] * 3 + ["saxpy_struct"]


def test_the_simulation_catches_a_wrong_packing(sim, monkeypatch, capsys):
    """The same lesson with the struct's count packed as 4 bytes: the simulated kernel reads garbage, the check
    fails (the simulation is not a rubber stamp)."""
    import numpy as np

    main = runpy.run_path(str(EXAMPLE), run_name="lesson16")["main"]
    monkeypatch.setitem(main.__globals__, "PARAMS", np.dtype([("a", "f4"), ("n", "u4")], align=True))
    assert main() == 1
    assert "struct argument (8 bytes, align 4): 1,048,576 of 1,048,576 elements differ" in capsys.readouterr().out
