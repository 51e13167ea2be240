"""Without a GPU every example says so in one line and exits 2 (examples/09_nodes.py ended in a 35-line traceback).
Run in-process with the driver refusing, as on a machine without one, so that the check holds on every machine."""
from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

from fake_driver import refuse_device

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_an_example_without_a_gpu_is_one_line_and_exit_2(path, monkeypatch, capsys):
    refuse_device(monkeypatch)
    monkeypatch.setattr(sys, "argv", [str(path)])
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(path), run_name="__main__")
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "no usable GPU" in lines[0] and "Traceback" not in err, err
