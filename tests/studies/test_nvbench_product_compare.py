"""The product study's comparison (benchmarks/studies/nvbench_product/compare.py): the table of both sides per
workload and the goal lines, on figures made up to sit just inside and just outside each goal."""
from __future__ import annotations

import json

import pytest


def _side(figs: dict, **extra) -> dict:
    return {"figures": {k: {"cold": {"median": c[0], "mean": c[1], "n": 100},
                            "held": {"median": h[0], "mean": h[1], "n": 20}} for k, (c, h) in figs.items()},
            **extra}


NV = _side({"add 2^20": ((7.70, 7.80), (None, 2.50)), "add 1,024": ((3.74, 3.80), (None, 1.16)),
            "long 2^20": ((100.0, 101.0), (None, 99.0))})


def test_every_goal_met_when_the_sides_agree():
    from studies.nvbench_product.compare import compare, render

    cgl = _side({"add 2^20": ((7.80, 7.90), (2.52, 2.53)), "add 1,024": ((3.84, 3.70), (1.17, 1.18)),
                 "long 2^20": ((102.0, 103.0), (98.0, 99.5))})
    r = compare(NV, cgl)
    assert [g["met"] for g in r["goals"]] == [True, True, True]
    assert [g["judged"] for g in r["goals"]] == [2, 1, 3]
    row = r["rows"][0]
    assert row["cold"]["rel_median"] == pytest.approx(7.80 / 7.70 - 1) and row["cold"]["us_mean"] == pytest.approx(0.1)
    assert row["held"]["rel_median"] == pytest.approx(2.52 / 2.50 - 1)  # against cuda-bench's mean (its only figure)
    text = render(r)
    assert "add 2^20       7.700 (7.800)      7.800 (7.900)" in text and "n/a (2.500)" in text
    assert "+1.3% (+1.3%)" in text and "+0.100 µs (+0.100 µs)" in text
    assert "cold, 2^20 floats and above: within 3% by the median and by the mean: met, 2 of 2" in text
    assert "cold, 1,024 floats: within 0.15 µs by the median and by the mean: met, 1 of 1" in text
    assert "held: within 3%" in text and "NOT met" not in text


def test_each_miss_is_named_with_its_figures():
    from studies.nvbench_product.compare import compare, render

    cgl = _side({"add 2^20": ((7.80, 8.10), (2.52, 2.53)),  # mean +3.8%: out
                 "add 1,024": ((3.90, 3.80), (1.17, 1.18)),  # median +0.16 µs: out
                 "long 2^20": ((101.0, 101.0), (95.0, 96.0))})  # held -4.0% / -3.0%: out
    r = compare(NV, cgl)
    assert [g["met"] for g in r["goals"]] == [False, False, False]
    text = render(r)
    assert "misses: add 2^20 +1.3% / +3.8%" in text
    assert "misses: add 1,024 +0.160 µs / +0.000 µs" in text
    assert "misses: long 2^20 -4.0% / -3.0%" in text


def test_raw_samples_and_missing_workloads(tmp_path, capsys):
    from studies.nvbench_product.compare import main

    cgl = {"workloads": {"add 2^20": {"cold_us": [7.7, 7.8, 7.9], "held_us": [2.5, 2.5, 2.51]},
                         "add 1,024": {"cold_us": [3.74, 3.76], "held_us": [1.16]}},
           "skipped": {"long 2^20": "not measured here"}}
    a, b = tmp_path / "nv.json", tmp_path / "cgl.json"
    a.write_text(json.dumps(NV))
    b.write_text(json.dumps(cgl))
    assert main([str(a), str(b), "--json", str(tmp_path / "cmp.json")]) == 1
    out = capsys.readouterr().out
    assert "long 2^20: not compared: no cugraphlab figures (not measured here)" in out
    assert "every workload compared: NOT met, 2 of 3" in out
    saved = json.loads((tmp_path / "cmp.json").read_text())
    assert saved["rows"][0]["cold"]["cgl"]["median"] == pytest.approx(7.8)
    assert main([str(a), str(tmp_path / "absent.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
