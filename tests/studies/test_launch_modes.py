"""bench.launch_modes: the grid summary on synthetic data, and a child that fails says why."""
from __future__ import annotations

import pytest

from studies.launch_modes.measure import run_child, summarize_grid


def _grid(modes_per_context):
    ctxs = []
    for i, streams in enumerate(modes_per_context):
        ctxs.append({"index": i, "kind": "primary", "fresh": True, "streams": [
            {"index": s, "ways": {
                "bindings": {"us": [m] * 3, "held_us": [m * 0.9] * 3, "sm_mhz": [1980.0] * 3, "clock_low": 0},
                "c": {"us": [m * 0.7] * 3, "held_us": [m * 0.6] * 3, "sm_mhz": [1000.0] * 3, "clock_low": 3}}}
            for s, m in enumerate(streams)]})
    return {"contexts": ctxs, "ways": ["bindings", "c"], "rated_mhz": 1980.0}


def test_a_context_mode_shows_as_spread_across_not_within():
    s = summarize_grid(_grid([[3.6, 3.6, 3.6], [5.4, 5.4, 5.4]]))
    assert s["within_context_spread"]["bindings"] == pytest.approx(1.0)
    assert s["across_context_spread"]["bindings"] == pytest.approx(1.5)
    assert s["per_context"]["c"] == pytest.approx([3.6 * 0.7, 5.4 * 0.7])
    assert s["rows"][0]["ratio"] == pytest.approx(1 / 0.7)
    assert s["sm_mhz"]["low_samples"] == 18 and s["sm_mhz"]["min"] == 1000.0


def test_a_stream_mode_shows_within_contexts():
    s = summarize_grid(_grid([[3.6, 5.4], [3.6, 5.4]]))
    assert s["within_context_spread"]["bindings"] == pytest.approx(1.5)
    assert s["across_context_spread"]["bindings"] == pytest.approx(1.0)
    assert s["held_median"]["bindings"] == pytest.approx(0.9 * 4.5)


def test_a_failing_child_reports_its_error(tmp_path):
    r = run_child(tmp_path / "x.json", ["--experiment", "no-such-experiment"], timeout_s=60)
    assert r["error"].startswith("exit") and "invalid choice" in r["stderr"]
