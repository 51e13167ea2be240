"""Which rows' verdicts count (``bench.diff.judged_rows``, the one rule of ``diff``, ``measure --compare-to`` and
the plugin): by default, of a measure record, the x ref rows, the held and cold rows and the device rows of a way
the GPU paces; every row of other records, and of any record with ``judge="all"``. The other rows are compared,
shown and marked, and do not fail ``--fail-on``."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cugraphlab.bench.diff import DEVICE_BOUND, NOT_JUDGED, diff_records, judged_rows
from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.report.diff import render_diff

ENV = {"host": "test"}


def _row(rng, unit, clock, median, n=60, groups=None):
    values = (median * (1 + 0.01 * rng.standard_normal(n))).tolist()
    out = {"unit": unit, "clock": clock, "values": values}
    if groups:
        out["groups"] = [i % groups for i in range(n)]
    return out


def measure_record(seed=0, *, host=4.0, host_ratio=1.05, device=4.1, graph_device=20.0, held=3.0, cold=7.0,
                   groups=None, kind="cugraphlab.measure"):
    """A measure record's samples block: eager (host-paced), graph (GPU-paced at the default graph_device), a
    held and a cold row, the reference; every figure ~1% noise around the median given."""
    rng = np.random.default_rng(seed)
    s = {"eager: host": _row(rng, "us", "host_call", host, groups=groups),
         "eager: wall": _row(rng, "us", "wall", host * 1.1, groups=groups),
         "eager: device": _row(rng, "us", "device", device, groups=groups),
         "eager: host / reference": _row(rng, "time ratio", "host_call", host_ratio, groups=groups),
         "eager: held": _row(rng, "us", "held", held, groups=groups),
         "eager: cold": _row(rng, "us", "cold", cold, groups=groups),
         "graph: host": _row(rng, "us", "host_call", 1.6, groups=groups),
         "graph: device": _row(rng, "us", "device", graph_device, groups=groups),
         "graph: host / reference": _row(rng, "time ratio", "host_call", 0.4, groups=groups),
         "reference: host": _row(rng, "us", "host_call", host / host_ratio, groups=groups),
         "reference: device": _row(rng, "us", "device", host / host_ratio, groups=groups)}
    return {"kind": kind, "schema": 1, "config": {"size": 1024}, "env": ENV, "samples": s}


REPEATABLE = {"eager: host / reference", "eager: held", "eager: cold", "graph: device", "graph: host / reference"}


def test_the_rows_that_repeat_between_processes_are_judged():
    assert judged_rows(measure_record()) == REPEATABLE
    assert judged_rows(measure_record(), judge="all") is None
    # the graph's device time at 1.9x its host time: the host may still set the pace, so not judged
    assert judged_rows(measure_record(graph_device=1.6 * 1.9)) == REPEATABLE - {"graph: device"}
    assert judged_rows(measure_record(graph_device=1.6 * (DEVICE_BOUND + 0.1))) == REPEATABLE


def test_a_device_row_bound_on_either_side_is_judged():
    a, b = measure_record(graph_device=2.0), measure_record(seed=1, graph_device=20.0)
    assert "graph: device" in judged_rows(a, b) and "graph: device" in judged_rows(b, a)
    assert "graph: device" not in judged_rows(a, measure_record(seed=2, graph_device=2.0))


def test_other_records_are_judged_on_every_row_and_a_bad_judge_is_one_line():
    assert judged_rows(measure_record(kind="cugraphlab.run")) is None
    with pytest.raises(InvalidArgumentError, match="judge must be one of repeatable, all, got 'paired'"):
        judged_rows(measure_record(), judge="paired")
    with pytest.raises(InvalidArgumentError, match="judge must be one of"):
        diff_records(measure_record(), measure_record(), env=ENV, judge="most")


def test_a_host_row_40_percent_slower_is_shown_not_judged_and_does_not_fail():
    # a process that landed in the slow launch-cost mode: every absolute host figure 40% up, the x ref row not
    a = measure_record(seed=1)
    b = measure_record(seed=2, host=5.6, device=5.7)
    r = diff_records(a, b, env=ENV)
    by = {row.label: row for row in r.rows}
    assert by["eager: host"].verdict == "SLOWER" and not by["eager: host"].judged
    assert by["eager: host / reference"].verdict == "SAME" and by["eager: host / reference"].judged
    assert {row.label for row in r.rows_judged} == REPEATABLE
    assert not r.fails("slower") and r.not_judged == len(r.rows) - len(REPEATABLE)
    assert r.counts["SLOWER"] == 0 and r.worst["label"] in REPEATABLE
    assert any("not judged" in n and "--judge all" in n for n in r.notes)
    text = render_diff(r)
    assert "SLOWER (not judged)" in text and f"({NOT_JUDGED})" in text
    assert f"not judged {r.not_judged}" in text
    every = diff_records(a, b, env=ENV, judge="all")
    assert every.fails("slower") and every.not_judged == 0 and every.config["judge"] == "all"
    # the JSON record keeps which rows were judged
    d = json.loads(json.dumps(r.to_dict()))
    assert {row["label"] for row in d["rows"] if row["judged"]} == REPEATABLE and d["not_judged"] == r.not_judged


def test_a_held_row_10_percent_longer_fails_slower():
    a = measure_record(seed=1, groups=6)
    b = measure_record(seed=2, held=3.3, groups=6)
    r = diff_records(a, b, env=ENV)
    by = {row.label: row for row in r.rows}
    assert by["eager: held"].judged and by["eager: held"].verdict == "SLOWER"
    assert r.fails("slower") and r.worst["label"] == "eager: held"


def test_nothing_repeatable_is_nothing_judged_and_fails_saying_so():
    a, b = measure_record(seed=1), measure_record(seed=2)
    for rec in (a, b):
        for label in list(rec["samples"]):
            if label.endswith(("/ reference", "held", "cold")) or label == "graph: device":
                del rec["samples"][label]
    r = diff_records(a, b, env=ENV)
    assert r.rows and not r.rows_judged and r.fails("slower") and r.worst is None
    assert "nothing judged: no row repeats between processes" in r.notes[-1]
    assert not diff_records(a, b, env=ENV, judge="all").fails("slower")


def test_the_diff_command_takes_judge(tmp_path, capsys):
    from cugraphlab.cli import main

    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(measure_record(seed=1)))
    pb.write_text(json.dumps(measure_record(seed=2, host=5.6, device=5.7)))
    assert main(["diff", str(pa), str(pb), "--fail-on", "slower"]) == 0
    out = capsys.readouterr().out
    assert "SLOWER (not judged)" in out
    assert main(["diff", str(pa), str(pb), "--fail-on", "slower", "--judge", "all"]) == 1
    assert "--fail-on slower: " in capsys.readouterr().out
    assert main(["diff", str(pa), str(pb), "--judge", "some"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--judge: invalid choice: 'some'" in err
