"""bench.rebuild: committed H200 records come back as their result objects and render as they did on the H200."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import studies.floor.measure  # noqa: E402,F401  (defines FloorResult: the study's kind, cugraphlab.study.floor.result, registered)
from cugraphlab.bench.records.kinds import record_class, record_from_dict
from cugraphlab.bench.records.names import kind_now
from cugraphlab.bench.records.record import RecordError

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results" / "2026-12-01_H200_round3"
#: Records whose report changed since round 3 are read from the run made with the changed report.
NEWER = {name: ROOT / "benchmarks" / "results" / "2026-12-01_H200_round4"
         for name in ("memnodes", "floor", "scaling_default", "doctor")}
NEWER.update({name: ROOT / "benchmarks" / "results" / "2026-12-01_H200_round5" for name in ("switch", "devlaunch")})


def _folder(name):
    return NEWER.get(name, RESULTS)


def _record(name, *part):
    d = json.loads((_folder(name) / f"2026-12-01_H200_{name}.json").read_text())
    for key in part:
        d = d[key]
    return d


def _renderers():
    from cugraphlab.report.devlaunch import render_devlaunch
    from cugraphlab.report.memnodes import render_memnodes
    from cugraphlab.report.nodes import render_nodes
    from cugraphlab.report.switch import render_switch
    from studies.floor.report import render_floor

    return [("memnodes", (), render_memnodes, "MemnodesResult"), ("devlaunch", (), render_devlaunch, "DevlaunchResult"),
            ("nodes", (), render_nodes, "NodesResult"), ("switch", ("records", 0), render_switch, "SwitchResult"),
            ("floor", ("floor",), render_floor, "FloorResult")]


@pytest.mark.parametrize("case", _renderers(), ids=lambda c: c[0])
def test_a_rebuilt_record_renders_what_the_h200_printed(case):
    """Every line the report prints from the rebuilt record is a line of the log written on the H200."""
    name, part, render, cls = case
    result = record_from_dict(_record(name, *part))
    assert type(result).__name__ == cls
    text = render(result)
    # compared without trailing blanks: a block printed as one string ends its last line with the separator
    log = {line.rstrip() for line in (_folder(name) / f"2026-12-01_H200_{name}.log").read_text().splitlines()}
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    assert len(lines) > 20
    assert [line for line in lines if not _printed(line, log)] == []


#: the words the reports changed since those runs, new -> as the H200 printed them: a record says what its data show
#: (a claim "shown"); the development goals judged on it are the benchmarks' now (the switch and memnodes scripts)
REWORDED = ((r"^Claim, ", "Goal, "), (r": opposite shown \(", ": NOT met ("), (r": shown \(", ": met ("))
#: what the H200's lines said after a figure the report still prints: the goal's verdict, now the benchmark's
GOAL_TAILS = ("; goal within ", " (within ", " (outside ")


def _printed(line: str, log: set[str]) -> bool:
    """``line`` is a line of the H200's log, or one whose words changed as REWORDED says, or a line that printed a
    goal's verdict after it then (GOAL_TAILS)."""
    import re

    then = line
    for new, old in REWORDED:
        then = re.sub(new, old, then)
    return then in log or any(x.startswith(line + tail) for x in log for tail in GOAL_TAILS)


def test_rebuilt_rows_are_objects_with_their_properties():
    from cugraphlab.bench.stats.summary import Summary

    m = record_from_dict(_record("memnodes"))
    s = m.sizes[0]
    assert isinstance(s.steady[0].device_us_per_iter, Summary)
    assert s.best_shape in s.shapes() and isinstance(s.overhead_pct, float)
    assert m.verified is True
    sw = record_from_dict(_record("switch", "records", 0))
    assert set(sw.claims()) >= {"switch_vs_one_if"}


def test_a_class_with_its_own_from_dict_rebuilds_itself():
    c = record_from_dict(_record("compare_quick_1"))
    assert type(c).__name__ == "CompareResult" and c.rows and c.sizes


def test_scaling_and_doctor_records_come_back():
    s = record_from_dict(_record("scaling_default"))
    assert type(s).__name__ == "ScalingResult" and s.verified and len(s.points) == s.config["points"]
    d = record_from_dict(_record("doctor"))
    assert type(d).__name__ == "DoctorResult" and d.false_alarms == 0


def test_refuses_what_it_cannot_rebuild():
    with pytest.raises(RecordError, match="not a cugraphlab record"):
        record_from_dict({"rows": []})
    with pytest.raises(RecordError, match="no record class of kind 'cugraphlab.nonesuch'"):
        record_from_dict({"kind": "cugraphlab.nonesuch"})
    d = _record("memnodes")
    with pytest.raises(RecordError, match="schema"):
        record_from_dict({**d, "schema": 99})
    broken = json.loads(json.dumps(d))
    del broken["sizes"][0]["steady"][0]["device_us_per_iter"]  # a required field of a row
    with pytest.raises(RecordError, match="cannot be rebuilt"):
        record_from_dict(broken, "broken.json")


def test_record_class_knows_the_kinds_of_the_records_the_notebooks_draw():
    for kind in ("cugraphlab.memnodes", "cugraphlab.switch", "cugraphlab.devlaunch", "cugraphlab.floor",
                 "cugraphlab.nodes", "cugraphlab.doctor", "cugraphlab.scaling", "cugraphlab.compare",
                 "cugraphlab.study.floor.result"):
        assert record_class(kind).KIND == kind_now(kind)  # cugraphlab.floor: the floor study's old name
