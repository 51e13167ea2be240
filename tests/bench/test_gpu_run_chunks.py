"""On the GPU: `run` keeps 10 chunk samples per timed loop (its printed figures still the whole loops'), diff judges
a run against itself SAME, and a run with CUGRAPHLAB_LAUNCH_DELAY_NS=1000 makes the eager rows SLOWER while the
device-bound rows (graph, fused at 2^20 floats) stay SAME."""
from __future__ import annotations

import pytest


@pytest.mark.gpu
def test_run_keeps_chunk_samples_and_diff_finds_the_delay(device, monkeypatch):
    from cugraphlab.bench.diff import diff_records
    from cugraphlab.bench.run import run_experiment

    base = run_experiment(iters=1000, repeats=3, seed=1, device=device.ordinal)
    d = base.to_dict()
    assert d["config"]["chunks"] == 10
    for mode in base.modes:
        dev = d["samples"][f"{mode.mode}: device"]["values"]
        assert len(dev) == 30 and len(d["samples"][f"{mode.mode}: wall"]["values"]) == 30
        assert mode.verified
        # the printed figure is the loops' own: the median of three loops, each the mean of its equal chunks
        loops = sorted(sum(dev[10 * r:10 * r + 10]) / 10 for r in range(3))
        assert mode.device_us_per_iter.median == pytest.approx(loops[1], rel=1e-3)
    same = diff_records(d, d, env={})
    assert {r.verdict for r in same.rows} == {"SAME"}
    monkeypatch.setenv("CUGRAPHLAB_LAUNCH_DELAY_NS", "1000")
    slow = run_experiment(iters=1000, repeats=3, seed=1, device=device.ordinal).to_dict()
    assert slow["env"]["injected"]["launch_delay_ns"] == 1000
    by = {r.label: r for r in diff_records(d, slow, env={}).rows}
    assert by["eager: wall"].verdict == "SLOWER" and by["eager: wall"].ratio > 1.08, by["eager: wall"].reason
    for label in ("graph: device", "fused: device"):
        assert by[label].verdict == "SAME", (label, by[label].reason)
