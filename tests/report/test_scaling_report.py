"""The scaling report on a synthetic record: tables per topology, fits, verdict, break-even, goals, CSV rows and the
log-log figure (no GPU needed)."""
from __future__ import annotations

import json
import sys

import pytest

from cugraphlab.bench.scaling.sweep import analyze
from cugraphlab.report.scaling import csv_rows, plot_scaling, render_scaling
from scaling_records import synthetic_record


@pytest.fixture
def record():
    r = analyze(synthetic_record())
    r.env["driver"] = {"release": "580.1", "cuda": "13.0"}
    r.module_loading = {"CUDA_MODULE_LOADING": None, "effective": "LAZY (default)", "note": "a note",
                        "first_instantiate_us": 30.0, "later_instantiate_us": 9.0}
    return r


def test_render_has_every_section(record):
    text = render_scaling(record, written=["out.json"])
    for needle in ("straight line:", "fork/join, 4 branches:", "fits: cost = a + b * nodes", "instantiate",
                   "900.0 [", "ns/node", "against NVIDIA's model", "constant: within ±5%", "break-even", "unrolling",
                   "CUDA_MODULE_LOADING=unset", "wrote out.json", "Fake GPU"):
        assert needle in text, needle
    assert "CHECKS FAILED" not in text and "goals:" not in text  # the record's figures; the goals are the benchmark's
    # an older record that kept its goals still shows them
    from cugraphlab.bench.scaling.paired import evaluate_goals

    old = dict(record.to_dict(), goals=evaluate_goals(record.points, record.paired, record.native, launch_us=2.0,
                                                      instantiate_within=0.10))
    old_text = render_scaling(old)
    for needle in ("goals:", "host graph launch <= 2.0 µs from 4 to 128 nodes (device held): met", "no verdict"):
        assert needle in old_text, needle
    # the same from the record read back as JSON
    assert render_scaling(json.loads(json.dumps(record.to_dict()))).splitlines()[1:] == \
        render_scaling(record).splitlines()[1:]


def test_the_paired_table_and_verdicts_are_shown():
    paired = analyze(synthetic_record(python_factor=1.25))
    text = render_scaling(paired)
    for needle in ("paired, Python against C", "inst. Python µs", "held C µs", "Python - C µs",
                   "instantiate per node, straight lines of 1..4096 nodes", "1.250 ["):
        assert needle in text, needle
    from cugraphlab.bench.scaling.paired import evaluate_goals
    from cugraphlab.report.scaling import goal_lines

    goals = "\n".join(goal_lines(evaluate_goals(paired.points, paired.paired, paired.native, launch_us=2.0,
                                                 instantiate_within=0.10)))
    assert "(paired slope ratio): NOT met" in goals and "Python slower than C" in goals
    assert "Python - C at most" in goals
    assert render_scaling(json.loads(json.dumps(paired.to_dict()))).splitlines()[1:] == text.splitlines()[1:]
    near = analyze(synthetic_record(python_factor=1.10))
    assert "undecided" in "\n".join(goal_lines(evaluate_goals(near.points, near.paired, near.native, launch_us=2.0,
                                                             instantiate_within=0.10)))
    assert "paired, Python against C" not in render_scaling(analyze(synthetic_record()))


def test_a_failed_point_is_shown(record):
    record.points[3]["ok"] = False
    record.points[3]["failures"] = ["capture: 3 of 64 elements differ"]
    assert "CHECKS FAILED" in render_scaling(record) and "3 of 64" in render_scaling(record)


def test_csv_rows_are_flat(record):
    rows = csv_rows(record)
    assert len(rows) == len(record.points)
    assert all(not isinstance(v, (dict, list)) for r in rows for v in r.values())
    first = rows[0]
    assert first["series"] == "line" and first["instantiate_us"] == pytest.approx(8.9)
    assert "break_even_replays" in first and "instantiate_us_per_node" in first


def test_plot_writes_png_and_svg(record, tmp_path):
    pytest.importorskip("matplotlib")
    paths = plot_scaling(record, tmp_path / "fig" / "scaling")
    assert [p.name for p in paths] == ["scaling.png", "scaling.svg"]
    assert all(p.stat().st_size > 1000 for p in paths)


def test_plot_without_matplotlib_names_the_install(record, tmp_path, monkeypatch):
    from cugraphlab.core.errors import InvalidArgumentError

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(InvalidArgumentError, match="pip install matplotlib"):
        plot_scaling(record, tmp_path / "x")


def test_a_default_record_at_its_largest_stays_under_a_megabyte(tmp_path):
    """Every point of the default plan with every cost sampled 200 times (the plan's most), the paired ones at their
    most (whole), values from 1 µs to 8 ms: the record keeps KEPT_SAMPLES of each unpaired cost, and the file (one
    line per innermost list or object) reads back as the same record, paired figures included."""
    import json
    import math
    import random

    from cugraphlab.bench.scaling.sweep import (
        KEPT_SAMPLES,
        MEASURES,
        PAIR_MAX_SAMPLES,
        PAIRED_COSTS,
        ScalingResult,
        _paired_eligible,
        _short,
        analyze,
        kept_samples,
        make_plan,
        series_key,
    )
    from cugraphlab.bench.stats.summary import summarize
    from cugraphlab.core.files import read_json
    from cugraphlab.report.scaling import write_scaling_json

    plan = make_plan()
    assert plan.max_samples == 200 and len(plan.shapes) > 60
    rng = random.Random(7)
    r = ScalingResult(config=plan.to_dict())
    for shape in plan.shapes:
        series, nodes = series_key(shape.topology, shape.width), shape.nodes(1)
        summaries = {}
        eligible = _paired_eligible(shape, nodes)
        held = plan.held_rounds * plan.held_pairs
        for cost, (_title, unit, clock) in MEASURES.items():
            if cost.startswith("pair_instantiate") and not eligible:
                continue
            n = {"held_launch_us": held, "held_launch_c_us": held}.get(cost, plan.max_samples)
            if cost.startswith("pair_instantiate"):
                n = 2 * PAIR_MAX_SAMPLES
            values = [math.exp(rng.uniform(0, 9)) * 1.000000123 for _ in range(n)]
            kept = kept_samples(values, unit, None if cost in PAIRED_COSTS else KEPT_SAMPLES)
            assert len(kept) == min(n, KEPT_SAMPLES) or cost in PAIRED_COSTS
            assert kept[0] == pytest.approx(values[0], rel=1e-4, abs=0.5)
            r.keep_samples(f"{series}:L{shape.length}:{cost}", kept, unit, clock)
            summaries[cost] = _short(summarize(values, unit=unit, clock=clock or "x").to_dict())
        label = f"{series}:L{shape.length}:"
        paired = {"launch": {"python": label + "held_launch_us", "c": label + "held_launch_c_us",
                             "group": [i // plan.held_pairs for i in range(held)],
                             "python_first": [(i + 1) % 2 for i in range(held)], "launches": 64}}
        if eligible:
            paired["instantiate"] = {"python": label + "pair_instantiate_python_us",
                                     "c": label + "pair_instantiate_c_us",
                                     "group": [i // 2 for i in range(2 * PAIR_MAX_SAMPLES)],
                                     "python_first": [(i // 2 + i) % 2 for i in range(2 * PAIR_MAX_SAMPLES)]}
        r.points.append({"topology": shape.topology, "length": shape.length, "width": shape.width, "nodes": nodes,
                         "edges": shape.edges(1), "series": series, "summaries": summaries, "paired": paired,
                         "ok": True})
    analyze(r)
    path = write_scaling_json(tmp_path / "scaling.json", r)
    size = path.stat().st_size
    assert size < 900_000, size
    assert read_json(path) == json.loads(json.dumps(r.to_dict()))
    assert r.paired["instantiate"]["slope"] and len(r.paired["launch"]["points"]) == len(plan.shapes)
    assert '"values": [' in path.read_text() and "\n          1" not in path.read_text()  # one line per list
