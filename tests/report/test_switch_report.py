"""The switch record (bench.switch.SwitchResult) and its rendering, from made-up figures: no GPU."""
from __future__ import annotations

import json

import pytest

from cugraphlab.bench.graphs.switch import ExecCost, SwitchResult, SwitchRow
from cugraphlab.bench.records.record import check_record
from cugraphlab.bench.stats.summary import summarize
from cugraphlab.report.switch import render_switch


def _row(name, group, device, host, ok=True):
    return SwitchRow(name, group, "switch", 0, "cond_switch -> SWITCH (4 bodies)",
                     summarize(device, unit="us", clock="device"), summarize(host, unit="us", clock="host_call"),
                     ok, 0 if ok else 12)


def _result(switch_us=5.1, if_us=5.3, ok=True, rounds=3):
    r = SwitchResult(config={"size": 1024, "branches": 4, "iters": 100, "repeats": 3, "holding_repeats": 5,
                             "chain": "add -> mul 2 -> sub -> relu on 1,024 float32",
                             "variants": ["add -> mul -> sub -> relu", "add -> mul -> sub", "add -> mul -> relu",
                                          "fused(add,mul,sub,relu)"],
                             "variant_names": ["chain", "without relu", "without sub", "fused"]},
                     env={"packages": {}, "commit": "abc"},
                     clocks={"device": "events", "host_call": "perf_counter_ns", "host_api": "perf_counter_ns"})
    jitter = [0.01 * (i % 3) for i in range(rounds)]  # the same in both rows: the paired difference is exact
    if_s, sw_s = [if_us + j for j in jitter], [switch_us + j for j in jitter]
    r.rows = [_row("IF node", "branches", if_s, [3.0] * 3), _row("SWITCH, index 0", "branches", sw_s, [3.1] * 3, ok),
              _row("SWITCH sizes, 1,024 floats", "sizes", [5.0, 5.2, 5.1], [3.2] * 3)]
    r.holding = [ExecCost("one SWITCH graph", 1, 21, summarize([40.0, 42.0], unit="us", clock="api"),
                          [0, 2 << 20], [40.0, 42.0]),
                 ExecCost("4 graphs", 4, 16, summarize([80.0, 90.0], unit="us", clock="api"), [2 << 20] * 2,
                          [80.0, 90.0])]
    r.checks = [{"kind": "SWITCH", "ok": True, "text": "SWITCH: expected body 0, ran 0; bit-exact"}]
    r.keep_samples("IF node | device", if_s, "us", "device")
    r.keep_samples("SWITCH, index 0 | device", sw_s, "us", "device")
    return r


def test_record_round_trips_as_json():
    d = json.loads(json.dumps(_result().to_dict(), allow_nan=False))
    assert check_record(d, kind="cugraphlab.switch", schema=1) is d
    assert d["verified"] is True and d["samples"]["IF node | device"]["values"] == pytest.approx([5.3, 5.31, 5.32])
    assert d["rows"][0]["device_us"]["median"] == 5.31 and d["holding"][1]["execs"] == 4
    # 3 rounds cannot show a difference (a sign test needs 6): not "shown", whatever the medians say
    assert "goals" not in d  # the record says what its data show; goals are benchmarks/switch.py's
    g = d["claims"]["switch_vs_one_if"]
    assert (g["shown"], g["verdict"]) == (False, "not shown") and "3 paired rounds" in g["reason"]
    m = d["claims"]["sizes_memory"]
    assert (m["switch_bytes"], m["graphs_bytes"], m["measurable"], m["shown"]) == (2 << 20, 2 << 20, True, False)


def test_a_claim_can_be_shown_wrong():
    g = _result(switch_us=6.0, if_us=5.0, rounds=8).claims()
    assert g["switch_vs_one_if"]["shown"] is False and abs(g["switch_vs_one_if"]["ratio"] - 1.2) < 1e-3
    assert g["switch_vs_one_if"]["verdict"] == "opposite shown"
    assert _result(ok=False).verified is False


def test_claims_are_shown_only_when_the_data_show_them():
    g = _result(switch_us=5.1, if_us=5.3, rounds=8).claims()["switch_vs_one_if"]
    assert (g["verdict"], g["shown"]) == ("shown", True) and abs(g["difference"]["median"] + 0.2) < 1e-9
    r = _result(rounds=8)
    # instantiate: the SWITCH's two rounds are cheaper, but two rounds show nothing
    assert r.claims()["sizes_instantiate"]["verdict"] == "not shown"
    r.holding[0].instantiate_samples = [40.0 + i for i in range(8)]
    r.holding[1].instantiate_samples = [80.0 + i for i in range(8)]
    gi = r.claims()["sizes_instantiate"]
    assert (gi["verdict"], gi["shown"]) == ("shown", True)
    r.holding[1].instantiate_samples = [40.0 + i + (0.5 if i % 2 else -0.5) for i in range(8)]  # no difference
    assert r.claims()["sizes_instantiate"]["verdict"] == "not shown"


def test_memory_that_never_moved_is_not_measurable_not_shown():
    r = _result(rounds=8)
    for h in r.holding:
        h.memory_bytes, h.batch = [0] * 2, 64
    m = r.claims()["sizes_memory"]
    assert (m["verdict"], m["shown"], m["measurable"]) == ("not measurable", False, False)
    assert m["resolution_bytes"] == (2 << 20) / 64 and "below 32 KiB per set" in m["reason"]
    text = render_switch(r)
    assert "not measurable by cuMemGetInfo" in text and "< 32,768 B" in text and "0 B" not in text.split(
        "Holding")[1].split("\n\n")[0]


def test_memory_per_copy_divides_by_the_copies_held():
    r = _result()
    h = r.holding[0]
    h.memory_bytes, h.batch = [2 << 20, 4 << 20], 64
    assert h.memory_per_set == [32768.0, 65536.0] and h.memory_resolution == 32768.0 and h.memory_seen
    assert h.memory_mean_per_set == (6 << 20) / 128  # every page drawn, over every copy made
    assert "one SWITCH graph      1     21            41.0  40.1-41.9       49,152 B" in render_switch(r)


def test_render_says_what_each_figure_is():
    text = render_switch(_result())
    assert text.startswith("cugraphlab switch: add -> mul 2 -> sub -> relu on 1,024 float32, 4 branches")
    assert "bodies of the SWITCH: 0: chain (add -> mul -> sub -> relu); 1: without relu" in text
    assert "SWITCH, index 0" in text and "5.10" in text and "bit-exact" in text
    assert "One SWITCH graph for 4 sizes against one graph per size:" in text
    assert "one SWITCH graph" in text and "1.0 MiB" in text  # the median of 0 and 2 MiB over one copy
    assert "Claim, SWITCH over 4 branches no dearer than one IF node (device): 5.11 against 5.31 us" in text
    assert "not shown (3 paired rounds" in text and "ok   SWITCH: expected body 0" in text
    shown = render_switch(_result(rounds=8))
    assert "SWITCH - IF per round -0.20 us [-0.20, -0.20], 0/8 rounds above 0, sign p = 0.0078: shown (" in shown
    bad = render_switch(_result(switch_us=9.0, ok=False, rounds=8))
    assert "opposite shown" in bad and "FAILED (12 bad)" in bad
