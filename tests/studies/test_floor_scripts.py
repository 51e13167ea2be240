"""benchmarks/studies/floor/run.py's section order (--first) and run_studies.py's plan, without a GPU; the placement
section's text names every chain's buffers with their 2 MiB page offsets."""
from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

from fake_driver import patch_driver

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load(name):
    key = f"{name}_script"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, ROOT / "benchmarks" / "studies" / "floor" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


def test_floor_runs_the_graph_table_first_by_default():
    s = _load("run")
    assert s.section_order("graphs") == ["graphs", "checks", "update", "floor"]
    assert s.section_order("floor") == ["floor", "graphs", "checks", "update"]
    assert s.section_order("update") == ["update", "graphs", "checks", "floor"]
    with pytest.raises(ValueError):
        s.section_order("roofs")


def test_floor_studies_plans_every_section_full_and_quick():
    from studies.floor.record import SECTIONS

    s = _load("run_studies")
    assert tuple(s.PLAN) == SECTIONS
    for full, quick in s.PLAN.values():
        assert set(full) == set(quick)
        assert all(quick[k] <= full[k] for k in full)


def test_placement_text_lists_addresses():
    from studies.floor.placement import placement_spread
    from studies.floor.record import FloorStudiesResult
    from studies.floor.report_studies import render_section

    r = FloorStudiesResult()
    samples = [[10.0, 10.1, 10.0, 10.05, 9.95, 10.0], [11.0, 11.1, 11.0, 11.05, 10.95, 11.0]]
    for i, values in enumerate(samples):
        addrs = {"x": 0x7F0000200000 + i * 0x400000 + 0x1000, "y": 0x7F0000600000}
        r.add("placement", f"chain{i}_1024", f"chain {i}: graph per iteration", values, size=1024, verified=True,
              chain=i, addresses={k: hex(v) for k, v in addrs.items()},
              page_offsets={k: v % (2 << 20) for k, v in addrs.items()})
    r.sections["placement"] = {"1024": {"spread": placement_spread(samples), "chains": 2, "rounds": 6}}
    text = render_section(r, "placement")
    assert "between chains 1.000 us" in text and "slowest apart from fastest: True" in text
    assert "chain 1: 11.000 us | x 0x7f0000601000 (+0x001000), y 0x7f0000600000 (+0x000000)" in text


def test_floor_studies_script_end_to_end_on_the_fake_driver(monkeypatch, tmp_path):
    """--quick on the fake driver: every section runs, the log and the JSON are written with the environment, and
    the exit code says a check failed (the fake's memory holds no data, so no output can match NumPy)."""
    import json
    from types import SimpleNamespace

    from fake_shapes import ShapeFakeDriver

    fake = ShapeFakeDriver(l2_bytes=4 << 20)
    patch_driver(monkeypatch, fake)
    monkeypatch.setattr("cugraphlab.core.sources.kernel_dir", lambda: ROOT / "kernels")

    def timeline(device, *, ops, size, iters, modes, probe=False, launch_config=None):
        events = [{"kernel": "k", "start_ns": 1000 * i, "end_ns": 1000 * i + 500} for i in range(4 * iters)]
        mode = SimpleNamespace(events=events, verified=True)
        return SimpleNamespace(mode=lambda name: mode)

    monkeypatch.setattr("cugraphlab.bench.measure.timeline.measure_timeline", timeline)
    s = _load("run_studies")
    monkeypatch.setattr(sys, "argv", ["floor_studies.py", str(tmp_path), "--quick", "--only", "placement",
                                      "boundary", "gap_grid", "fused_shapes"])
    code = s.main()
    d = json.loads((tmp_path / "floor_studies.json").read_text())
    log = (tmp_path / "floor_studies.log").read_text()
    assert d["kind"] == "cugraphlab.study.floor.studies" and "commit" in d["env"] and d["env"]["gpu"]["sm_count"] == 132
    assert "errors" not in d["sections"], d["sections"].get("errors")
    assert {r["section"] for r in d["rows"]} == {"placement", "boundary", "gap_grid", "fused_shapes"}
    assert set(d["config"]["seconds"]) >= {"compile", "placement", "fused_shapes", "total"}
    assert "[placement] start" in log and "== fused_shapes ==" in log and "roofs: DRAM copy" in log
    assert code == 1 and d["verified"] is False
    assert fake.live("memory") == [] and fake.released_twice() == []
