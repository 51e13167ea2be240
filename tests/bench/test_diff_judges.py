"""Issue 25 section 4 and issue 24's diff items, on records modelled on the H200 (no GPU): a record against itself
is SAME on every row; two `run` records one after the other leave the device-bound rows SAME; a 1 µs delay per
launch is SLOWER; other configurations are refused saying what differs; too few samples are said at the top and
fail --fail-on; NaN, negative or zero samples are refused; a measure record is judged like the others."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cugraphlab.bench.diff import diff_records, read_record_file
from cugraphlab.bench.records.record import RecordError
from synthetic_records import environment, noisy, probe_record, run_record

ENV = {"host": "test"}
DEVICE_BOUND = ("graph: wall", "graph: device", "fused: wall", "fused: device")


def _by(result):
    return {r.label: r for r in result.rows}


def test_a_run_record_against_itself_is_same_on_every_row():
    a = run_record(np.random.default_rng(0))
    r = diff_records(a, json.loads(json.dumps(a)), env=ENV)
    assert len(r.rows) == 6 and {x.verdict for x in r.rows} == {"SAME"}
    assert all("the same measurements" in x.reason for x in r.rows)
    assert r.notes == [] and r.judged == 6 and not r.fails("any-change")


def test_a_record_of_few_samples_against_itself_is_still_same():
    a = probe_record({"t": ([4.0, 4.1, 3.9], "us")})
    r = diff_records(a, a, env=ENV)
    assert r.rows[0].verdict == "SAME" and not r.rows[0].too_few and r.notes == []


@pytest.mark.parametrize("seed", range(5))
def test_two_run_records_one_after_the_other_leave_the_device_bound_rows_same(seed):
    rng = np.random.default_rng(100 + seed)
    a, b = run_record(rng), run_record(rng)
    by = _by(diff_records(a, b, env=ENV, seed=seed))
    for label in DEVICE_BOUND:
        assert by[label].verdict == "SAME", (label, by[label].reason)
        assert by[label].n_a == by[label].n_b == 50  # 10 chunks x 5 repeats: the default run keeps enough


def test_a_delay_of_1_us_per_launch_is_slower_where_the_host_sets_the_pace():
    rng = np.random.default_rng(7)
    slowed = {**environment(), "injected": {"launch_delay_ns": 1000, "how": "$CUGRAPHLAB_LAUNCH_DELAY_NS"}}
    a, b = run_record(rng), run_record(rng, delay_us=1.0, env=slowed)
    r = diff_records(a, b, env=ENV)
    by = _by(r)
    assert by["eager: wall"].verdict == by["eager: device"].verdict == "SLOWER"
    # the expectation from the records, not from the model that made them: the diff's ratio is the ratio of the
    # two samples' medians, and that is A's median plus the injected delay for each of the chain's launches
    wall_a = np.median(a["samples"]["eager: wall"]["values"])
    wall_b = np.median(b["samples"]["eager: wall"]["values"])
    assert by["eager: wall"].ratio == pytest.approx(wall_b / wall_a, rel=1e-9)
    injected_us = len(a["config"]["ops"]) * b["env"]["injected"]["launch_delay_ns"] / 1e3  # eager: a launch per op
    assert by["eager: wall"].ratio == pytest.approx((wall_a + injected_us) / wall_a, rel=0.02)
    for label in DEVICE_BOUND:  # the device still sets the pace: one graph launch per iteration stays below it
        assert by[label].verdict == "SAME", label
    assert r.fails("slower") and r.worst["label"].startswith("eager")
    injected = next(e for e in r.environment if e.name == "injected delay (ns)")
    assert (injected.a, injected.b, injected.differs) == (None, 1000, True)


def test_records_of_different_configurations_are_refused_with_what_differs():
    rng = np.random.default_rng(8)
    a = run_record(rng)
    other = json.loads(json.dumps(a))
    other["config"].update(size=1024, iters=2000, grid=1)
    with pytest.raises(RecordError) as e:
        diff_records(a, other, a_name="a.json", b_name="b.json", env=ENV)
    text = str(e.value)
    assert "\n" not in text and "different configurations" in text
    for what in ("size: 1048576 -> 1024", "iters: 5000 -> 2000", "grid: 1024 -> 1", "--allow-config size,iters,grid"):
        assert what in text, text
    r = diff_records(a, other, env=ENV, allow_config=("size", "iters", "grid"))
    assert {c.name for c in r.config_changes} == {"size", "iters", "grid"}
    assert diff_records(a, other, env=ENV, allow_config="all").rows


def test_keys_that_only_change_how_many_samples_or_where_are_compared():
    rng = np.random.default_rng(9)
    a = run_record(rng)
    b = run_record(rng, repeats=7)
    b["config"].update(device=1, seed=3)
    r = diff_records(a, b, env=ENV)
    assert {c.name for c in r.config_changes} == {"repeats", "device", "seed"}
    assert _by(r)["graph: device"].n_b == 70


def test_too_few_samples_are_said_at_the_top_and_fail_the_check():
    from cugraphlab.report.diff import render_diff

    rng = np.random.default_rng(10)
    a = probe_record({"t": (noisy(rng, 4.0, n=5), "us"), "u": (noisy(rng, 4.0, n=5), "us")})
    b = probe_record({"t": (noisy(rng, 4.0, n=5), "us"), "u": (noisy(rng, 4.0, n=30), "us")})
    r = diff_records(a, b, env=ENV)
    assert {x.verdict for x in r.rows} == {"AMBIGUOUS"} and r.judged == 0
    assert len(r.notes) == 2 and "too few samples: 2 of 2 rows" in r.notes[0] and "nothing judged" in r.notes[1]
    assert r.fails("slower") and r.fails("faster") and not r.fails(None)
    lines = render_diff(r).splitlines()
    assert lines[3].startswith("NOTE: too few samples") and lines[4].startswith("NOTE: nothing judged")


def test_a_judged_row_beside_a_thin_one_passes_fail_on():
    rng = np.random.default_rng(11)
    a = probe_record({"t": (noisy(rng, 4.0), "us"), "few": (noisy(rng, 4.0, n=3), "us")})
    b = probe_record({"t": (noisy(rng, 4.0), "us"), "few": (noisy(rng, 4.0, n=3), "us")})
    r = diff_records(a, b, env=ENV)
    assert r.judged == 1 and not r.fails("slower") and "1 of 2 rows" in r.notes[0]


@pytest.mark.parametrize("values, unit, clock, words", [
    ([4.0] * 9 + [float("nan")], "us", "device", "1 NaN or infinite"),
    ([4.0] * 9 + [float("inf")], "us", "device", "NaN or infinite"),
    ([4.0] * 8 + [-1.0, -2.0], "us", "device", "2 value(s) <= 0 (e.g. -1 us)"),
    ([4.0] * 9 + [0.0], "us", "wall", "<= 0 (e.g. 0 us): a time or a rate is positive"),
    ([400.0] * 9 + [0.0], "GB/s", "copy", "<= 0"),
])
def test_nan_negative_or_zero_samples_are_refused(values, unit, clock, words):
    rng = np.random.default_rng(12)
    good = probe_record({"t": (noisy(rng, 4.0, n=10), unit, clock)})
    bad = probe_record({"t": ([1.0], unit, clock)})
    bad["samples"]["t"]["values"] = values  # as a hand-edited file or another writer would hold them
    for x, y in ((good, bad), (bad, good)):
        with pytest.raises(RecordError) as e:
            diff_records(x, y, env=ENV)
        assert words in str(e.value) and "samples row 't'" in str(e.value) and "\n" not in str(e.value)


def test_zero_and_unitless_negatives_are_readings_where_they_can_be():
    a = probe_record({"gap": ([0.0, 1.0, 0.0, 2.0, 1.0, 0.0], "us", "globaltimer"),
                      "delta": ([-0.5, 0.2, 0.1, -0.1, 0.3, 0.0], "x")})
    assert {r.verdict for r in diff_records(a, a, env=ENV).rows} == {"SAME"}


def test_truncated_json_says_where_in_one_line(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{"kind": "cugraphlab.run", "config": {"size": "10')
    with pytest.raises(RecordError) as e:
        read_record_file(path)
    text = str(e.value)
    assert "at at" not in text and "Unterminated string starting at: line 1 column" in text


def test_records_that_cannot_be_judged_say_why():
    script = {"kind": "cugraphlab.benchmarks.floor", "config": {}, "rows": []}  # an old name (names.OLD_KINDS)
    study = {"kind": "cugraphlab.study.switch", "config": {}, "views": []}
    made_before = {"kind": "cugraphlab.run", "config": {}, "modes": []}
    unknown = {"kind": "cugraphlab.someday", "config": {}}
    a_diff = {"kind": "cugraphlab.diff", "schema": 1, "config": {}, "samples": {}, "rows": []}
    for d, words in ((script, "a study or benchmark script's summary"), (study, "a study or benchmark script's"),
                     (made_before, "made before schema 1"),
                     (unknown, "no schema and no raw samples"), (a_diff, "the result of a diff")):
        with pytest.raises(RecordError) as e:
            diff_records(d, d, a_name="x.json", env=ENV)
        assert words in str(e.value) and "\n" not in str(e.value)
        assert "made before schema 1" not in str(e.value) or d is made_before


def test_a_measure_record_is_judged_like_the_others():
    from cugraphlab.bench.records.record import Record, clocks

    rng = np.random.default_rng(13)

    def measure(shift):
        rec = Record(config={"target": "saxpy.cu:saxpy", "size": 1 << 20, "processes": 1},
                     env=environment(), clocks=clocks("host_call", "device"))
        d = rec.to_dict()
        d["kind"] = "cugraphlab.measure"
        for label, center, clock in (("eager: host us/call", 4.1, "host_call"), ("eager: device us/call", 2.4,
                                                                                   "device"),
                                     ("graph: device us/replay", 2.2, "device")):
            d["samples"][label] = {"unit": "us", "values": list(noisy(rng, center * shift, n=40, rel=0.01)),
                                   "clock": clock}
        return d

    a, b, slow = measure(1.0), measure(1.0), measure(1.25)
    assert {r.verdict for r in diff_records(a, a, env=ENV).rows} == {"SAME"}
    assert {r.verdict for r in diff_records(a, b, env=ENV).rows} == {"SAME"}
    assert {r.verdict for r in diff_records(a, slow, env=ENV).rows} == {"SLOWER"}
    other = json.loads(json.dumps(a))
    other["config"]["target"] = "other.cu:saxpy"
    with pytest.raises(RecordError, match="target: 'saxpy.cu:saxpy' -> 'other.cu:saxpy'"):
        diff_records(a, other, env=ENV)
