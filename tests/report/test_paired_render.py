"""report.paired renders a paired record: every way, intervals, the C floor, stop reasons and clock flags."""
from __future__ import annotations

import json

from cugraphlab.bench.paired.harness import result_from_run, run_paired
from cugraphlab.report.paired import render_paired
from paired_fakes import FakeClock, FakeRig, fake_ways


def _record(mhz=1980.0, skipped=None):
    clock = FakeClock()
    costs = {"bindings": 1.0, "cugraphlab": 1.04, "c": 0.72}

    def ways_for(rig):
        ways, _ = fake_ways(rig, costs, clock, noise=0.003)
        return ways, dict(skipped or {})

    run = run_paired(lambda c: FakeRig(c, (3.6, 5.5)[c % 2], mhz=mhz), ways_for, contexts=2, rounds=4,
                     launches=1000, held_launches=100, warmup=1, clock=clock)
    cfg = {"size": 1024, "kernel": "add", "mode": "launch", "context_kind": "primary", "launches": 1000,
           "held_launches": 100, "target": 0.01, "interval": "95% hierarchical bootstrap", "l2": "warm"}
    return result_from_run(run, cfg, {})


def test_render_shows_every_way_and_the_floor():
    rec = _record(skipped={"cupy_raw": "not installed: cupy (ModuleNotFoundError)"})
    text = render_paired(rec)
    for needle in ("bindings", "cugraphlab", "1 (reference)", "C: ", "Python adds", "cupy_raw: not installed",
                   "held us/launch", "rated 1980 MHz", "hierarchical bootstrap"):
        assert needle in text, needle
    ratio = rec.way("cugraphlab").ratio
    assert f"{ratio.median:.4f} [{ratio.lo:.4f}, {ratio.hi:.4f}]" in text
    assert render_paired(json.loads(json.dumps(rec.to_dict()))) == text  # the JSON renders the same


def test_render_flags_low_clocks_and_missing_c():
    rec = _record(mhz=900.0)
    text = render_paired(rec)
    assert "low" in text and "below 75%" in text
    d = rec.to_dict()
    d["ways"] = [w for w in d["ways"] if w["name"] != "c"]
    for w in d["ways"]:
        w["vs_c_us"] = None
    d["skipped"] = {"c": "native code (launch_loop): no C compiler (none of cc, gcc, clang is on PATH)"}
    assert "C: not measured (native code" in render_paired(d)
