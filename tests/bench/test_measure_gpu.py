"""Timeline stamps, the latency table and a small sweep on a real GPU."""
from __future__ import annotations

import math

import pytest

from cugraphlab.bench.measure.latency import measure_latency
from cugraphlab.bench.measure.sweep import measure_sweep
from cugraphlab.bench.measure.timeline import TIMELINE_MODES, measure_timeline

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("n", [1000, (1 << 20) + 3])
def test_timeline_stamps_are_monotonic_and_ordered(device, n):
    result = measure_timeline(device, size=n, iters=6)
    assert [m.mode for m in result.modes] == list(TIMELINE_MODES)
    for m in result.modes:
        assert m.verified, m.mode
        assert len(m.events) == 6 * 4
        assert [e["kernel"] for e in m.events[:4]] == ["add", "mul", "sub", "relu"]
        for e in m.events:
            assert 0 < e["start_ns"] <= e["end_ns"] < 2**63, (m.mode, e)  # every slot was written
        for a, b in zip(m.events, m.events[1:]):
            assert b["start_ns"] >= a["end_ns"], (m.mode, a, b)  # one stream: no overlap, in launch order
        # the figures exist (their sign: benchmarks/ratio_figures.py --only signs, with intervals)
        assert m.gap_us.n > 0 and m.kernel_us.n > 0 and math.isfinite(m.gap_us.median + m.kernel_us.median)
    # Python-fed kernels wait for the host; a graph feeds the GPU itself
    assert result.mode("eager").gap_us.n > 0 and result.mode("graph (all)").gap_us.n > 0


def test_latency_table_is_complete(device):
    r = measure_latency(device, size=1 << 16, time_cap_s=0.2, timeline_iters=5)
    keys = {row.key for row in r.rows}
    for k in ("python_loop", "binding_call", "launch_empty", "launch_add", "launch_mul", "launch_sub", "launch_relu",
              "launch_fused", "graph_launch", "instantiate", "exec_update", "e2e_eager", "e2e_graph", "gap_eager",
              "gap_graph", "gap_graph (all)"):
        assert k in keys, k
    for row in r.rows:
        assert math.isfinite(row.us.median) and row.us.n >= 1, row.key
    d = r.decomposition
    assert d["python_us"] + d["binding_us"] + d["driver_us"] == pytest.approx(d["total_us"], rel=0.05)


def test_small_sweep_rows_are_verified(device):
    r = measure_sweep(device, sizes=[1024, 4099], lengths=[1, 4, 5], repeats=2, target_ms=1.0)
    assert len(r.rows) == 2 * 3 * 4
    assert all(row["verified"] is True for row in r.rows)
    assert all(row["us_per_iter"] > 0 and row["gbps"] > 0 for row in r.rows)
    assert r.copy_gbps > 100


def test_timeline_cli_draws(tmp_path, capsys):
    from cugraphlab import cli

    stem = tmp_path / "tl"
    assert cli.main(["timeline", "--size", "4096", "--iters", "4", "--out", str(stem),
                     "--json", str(tmp_path / "tl.json")]) == 0
    for suffix in ("_timeline.png", "_timeline.svg", "_gaps.png", "_gaps.svg"):
        f = tmp_path / f"tl{suffix}"
        assert f.stat().st_size > 1000, f
    assert "bit-exact" in capsys.readouterr().out
