"""The switch record (bench.switch.SwitchResult) and its rendering, from made-up figures: no GPU."""
from __future__ import annotations

import json

from cugraphlab.bench.records import load_record
from cugraphlab.bench.stats import summarize
from cugraphlab.bench.switch import ExecCost, SwitchResult, SwitchRow
from cugraphlab.report.switch import render_switch


def _row(name, group, device, host, ok=True):
    return SwitchRow(name, group, "switch", 0, "cond_switch -> SWITCH (4 bodies)",
                     summarize(device, unit="us", clock="device"), summarize(host, unit="us", clock="host_call"),
                     ok, 0 if ok else 12)


def _result(switch_us=5.1, if_us=5.3, ok=True):
    r = SwitchResult(config={"size": 1024, "branches": 4, "iters": 100, "repeats": 3, "holding_repeats": 5,
                             "chain": "add -> mul 2 -> sub -> relu on 1,024 float32",
                             "variants": ["add -> mul -> sub -> relu", "add -> mul -> sub", "add -> mul -> relu",
                                          "fused(add,mul,sub,relu)"],
                             "variant_names": ["chain", "without relu", "without sub", "fused"]},
                     env={"packages": {}, "commit": "abc"},
                     clocks={"device": "events", "host_call": "perf_counter_ns", "host_api": "perf_counter_ns"})
    r.rows = [_row("IF node", "branches", [if_us] * 3, [3.0] * 3), _row("SWITCH, index 0", "branches",
                                                                        [switch_us] * 3, [3.1] * 3, ok),
              _row("SWITCH sizes, 1,024 floats", "sizes", [5.0, 5.2, 5.1], [3.2] * 3)]
    r.holding = [ExecCost("one SWITCH graph", 1, 21, summarize([40.0, 42.0], unit="us", clock="api"),
                          [0, 2 << 20], [40.0, 42.0]),
                 ExecCost("4 graphs", 4, 16, summarize([80.0, 90.0], unit="us", clock="api"), [2 << 20] * 2,
                          [80.0, 90.0])]
    r.checks = [{"kind": "SWITCH", "ok": True, "text": "SWITCH: expected body 0, ran 0; bit-exact"}]
    r.keep_samples("IF node | device", [if_us] * 3, "us", "device")
    return r


def test_record_round_trips_as_json():
    d = json.loads(json.dumps(_result().to_dict(), allow_nan=False))
    assert load_record(d, kind="cugraphlab.switch", schema=1) is d
    assert d["verified"] is True and d["samples"]["IF node | device"]["values"] == [5.3] * 3
    assert d["rows"][0]["device_us"]["median"] == 5.3 and d["holding"][1]["execs"] == 4
    assert d["goals"]["switch_vs_one_if"]["met"] is True
    assert d["goals"]["sizes_memory"] == {"switch_bytes": 2 << 20, "graphs_bytes": 2 << 20, "met": True,
                                          "graphs": 4}


def test_goals_can_fail():
    g = _result(switch_us=6.0, if_us=5.0).goals()
    assert g["switch_vs_one_if"]["met"] is False and abs(g["switch_vs_one_if"]["ratio"] - 1.2) < 1e-12
    assert _result(ok=False).verified is False


def test_render_says_what_each_figure_is():
    text = render_switch(_result())
    assert text.startswith("cugraphlab switch: add -> mul 2 -> sub -> relu on 1,024 float32, 4 branches")
    assert "bodies of the SWITCH: 0: chain (add -> mul -> sub -> relu); 1: without relu" in text
    assert "SWITCH, index 0" in text and "5.10" in text and "bit-exact" in text
    assert "One SWITCH graph for 4 sizes against one graph per size:" in text
    assert "one SWITCH graph" in text and "2.0 MiB" in text
    assert "Goal, SWITCH over 4 branches no dearer than one IF node (device): 5.10 against 5.30 us" in text
    assert ": met." in text and "ok   SWITCH: expected body 0" in text
    bad = render_switch(_result(switch_us=9.0, ok=False))
    assert "NOT met" in bad and "FAILED (12 bad)" in bad
