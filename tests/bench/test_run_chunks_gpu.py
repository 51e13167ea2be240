"""On the GPU: `run` keeps 10 chunk samples per timed loop while its printed figures stay the whole loops', diff
judges a run against itself SAME, and a run made with CUGRAPHLAB_LAUNCH_DELAY_NS says so in its environment and is
compared (not refused). Whether diff calls the delayed run SLOWER is a timing, measured in benchmarks/diff_judges.py."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


def test_run_keeps_chunk_samples_and_a_delayed_run_is_compared(device, monkeypatch):
    from cugraphlab.bench.diff import diff_records
    from cugraphlab.bench.run import measure_run

    base = measure_run(iters=1000, repeats=3, seed=1, device=device.ordinal)
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
    assert {r.verdict for r in same.rows} == {"SAME"} and same.judged == 6
    monkeypatch.setenv("CUGRAPHLAB_LAUNCH_DELAY_NS", "1000")
    slow = measure_run(iters=1000, repeats=3, seed=1, device=device.ordinal)
    s = slow.to_dict()
    assert s["env"]["injected"]["launch_delay_ns"] == 1000 and all(m.verified for m in slow.modes)
    r = diff_records(d, s, env={})
    assert [x.label for x in r.rows] == list(d["samples"]) and r.config_changes == []
    injected = next(e for e in r.environment if e.name == "injected delay (ns)")
    assert injected.b == 1000 and injected.differs
