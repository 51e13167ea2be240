"""benchmarks/plugin_false_alarms.py's bookkeeping without a GPU: the sessions replaced by synthetic records (six
processes each, a way and the reference timed in the same rounds; the delayed test 25% slower in odd runs), the
pairs, the counts and the JSON."""
from __future__ import annotations

import json

import numpy as np

import plugin_false_alarms as bench


def _write(out, k, delayed):
    from cugraphlab.bench.measure.result import build_result
    from cugraphlab.core.files import write_json
    from cugraphlab.testing.store import record_name

    rng = np.random.default_rng(k)

    def part(test, scale):
        mode = 1 + 0.02 * rng.standard_normal()  # the process's launch-cost mode, shared by the way and the reference
        values = {way: {c: list(f * rng.normal(us * mode, 0.02, 20)) for c in ("host", "wall", "device")}
                  for way, us, f in (("eager", 4.5, scale), ("reference", 4.3, 1.0))}
        return {"work": test, "ways": [{"name": "eager", "what": ""}, {"name": "reference", "what": ""}],
                "calls": 100, "stop_reason": "spread", "values": values}

    for test in (*bench.STABLE, bench.DELAYED):
        scale = 1.25 if (delayed and test == bench.DELAYED) else 1.0
        parts = [part(test, scale) for _ in range(6)]
        write_json(out / f"run_{k}" / record_name(f"test_launch_costs.py::{test}"),
                   build_result(parts, config={"work": test}, env={}))


def test_the_pairs_are_counted_and_written(tmp_path, monkeypatch, capsys):
    def session(out, k, delayed, processes, budget, extra=()):
        if extra:
            return 1, 0.1, "FAILED test_launch_costs.py::test_delayed - cgl_measure: against run_0"
        _write(out, k, delayed)
        return 0, 0.1, ""

    monkeypatch.setattr(bench, "_session", session)
    monkeypatch.setattr(bench, "require_gpu", lambda *a, **k: None)  # the sessions are stood in for: no GPU used
    assert bench.main([str(tmp_path), "--pairs", "2"]) == 0
    d = json.loads((tmp_path / "plugin_false_alarms.json").read_text())
    assert d["false_alarms"]["with_a_changed_row"] == 0 and d["false_alarms"]["test_comparisons"] == 4
    assert d["delay_1us"]["flagged_slower"] == 2 and d["ci_session"]["only_the_delayed_test_failed"]
    assert [p["runs"] for p in d["verdicts"]] == [[0, 1], [2, 1]]
    assert "flagged SLOWER in 2 of 2" in capsys.readouterr().out
