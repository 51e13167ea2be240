"""benchmarks/switch.py end to end on the cost-charging fake driver (no GPU): a folder argument receives switch.json
and switch.log, the log ends with the short table, the contrasts and each goal's verdict, and a run whose checks
cannot pass (the fake runs no kernel) says so and exits 1."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from fake_driver import patch_driver
from switch_fixtures import own_kernels  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("switch_script_under_test", ROOT / "benchmarks" / "switch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def cost_driver(monkeypatch, own_kernels):
    from fake_switch_costs import FakeCostDriver

    fake = FakeCostDriver()
    patch_driver(monkeypatch, fake)
    return fake


def test_quick_run_writes_its_log_and_records_into_a_folder(cost_driver, tmp_path, monkeypatch):
    out = tmp_path / "round5"
    monkeypatch.setattr(sys, "argv", ["switch.py", str(out), "--quick", "--sizes", "1024,4096"])
    code = _script().main()
    assert code == 1  # no kernel ran on the fake: the bit-exact checks fail, and the script says so
    log = (out / "switch.log").read_text()
    assert log.rstrip().splitlines()[-1].startswith("SOME CHECK FAILED;")
    assert "why SWITCH costs what it costs: A - B, device us per launch, paired per round" in log
    assert "1,024 floats, goal switch_vs_one_if: " in log and "4,096 floats, goal sizes_memory: " in log
    d = json.loads((out / "switch.json").read_text())
    assert [r["config"]["size"] for r in d["records"]] == [1024, 4096]
    assert all(r["config"]["sweep"] == [1, 2, 3, 4, 8] and r["contrasts"] for r in d["records"])
