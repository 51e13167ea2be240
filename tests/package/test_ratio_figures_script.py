"""benchmarks/ratio_figures.py without a GPU: one line and exit 2, nothing written; a bad --only is refused; its
table prints each figure with its interval and reads it against the range a test once asserted."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "ratio_figures.py"

import ratio_figures as rf  # benchmarks/: pyproject's pytest pythonpath


def _run(*args, cwd):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_without_a_gpu_one_line_exit_2_and_nothing_written(tmp_path):
    r = _run(str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("ratio_figures.py: no usable GPU: "), r.stderr
    assert not (tmp_path / "out").exists()


def test_an_unknown_section_is_refused_before_any_device(tmp_path):
    r = _run(str(tmp_path / "out"), "--only", "diff,nope", cwd=tmp_path)
    assert r.returncode == 2 and "--only takes diff, doctor, scaling, paired, roof, signs" in r.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("held, value, lo, expected", [
    ("1.05 < x < 3.0", 1.31, 1.2, "inside"), ("1.05 < x < 3.0", 1.01, 0.9, "OUTSIDE"),
    ("lo > 0.3", 0.9, 0.2, "OUTSIDE"), ("lo > 0.3", 0.9, 0.5, "inside"), ("x > 4", None, None, ""),
    ("(none)", 2.0, 1.0, ""),
])
def test_a_figure_is_read_against_the_range_the_test_held_it_to(held, value, lo, expected):
    r = rf.row("s", "a figure", value, lo, None if lo is None else value + 1, clock="device", held=held)
    assert rf._inside(r) == expected
    line = rf.render([r]).splitlines()[-1]
    assert "a figure" in line and held in line and ("-" if value is None else f"{value:.3f}") in line


def test_a_non_finite_figure_is_kept_as_none():
    r = rf.row("s", "f", float("nan"), float("inf"), 2.0, clock="host", held="x > 4")
    assert (r["value"], r["lo"], r["hi"]) == (None, None, 2.0)


def test_the_doctor_section_runs_end_to_end_on_the_fake_driver(monkeypatch, tmp_path, capsys):
    """The script's own path (device, section, table, JSON) on the fake driver; its figures are the fake's, so only
    their shape is asserted: two ratios, finite and positive, each with an interval."""
    import json

    from fake_measure import install_measure_driver

    install_measure_driver(monkeypatch)
    monkeypatch.setattr("cugraphlab.graphs.doctor.cupti.cupti_available", lambda: False)
    assert rf.main([str(tmp_path / "out"), "--only", "doctor"]) == 0
    out = capsys.readouterr().out
    data = json.loads((tmp_path / "out" / "ratio_figures.json").read_text())
    assert data["failed"] == [] and "doctor: CUPTI rows skipped" in out
    assert [r["figure"] for r in data["rows"]] == ["replay per cuGraphLaunch, explained / plain",
                                                   "capture of 32 launches, explained / plain"]
    for r in data["rows"]:
        assert r["value"] > 0 and r["lo"] is not None and r["lo"] <= r["hi"], r
        assert r["figure"] in out and r["test_held_it_to"] in out


def test_a_median_against_zero_is_printed_with_its_interval():
    """The signs section: one median of raw samples with its bootstrap interval, read against the old bound."""
    from cugraphlab.bench.stats.summary import summarize

    s = summarize([0.0, 0.032, 0.032, 0.064, 0.032, 0.0, 0.032, 0.096], unit="us", clock="globaltimer")
    r = rf._median("signs", "timeline 1,000: eager kernel us", s, clock="globaltimer", held="x > 0")
    assert r["value"] == s.median == 0.032 and r["lo"] <= r["value"] <= r["hi"] and r["n"] == "8"
    assert rf._inside(r) == "inside" and rf._inside(dict(r, value=0.0)) == "OUTSIDE"
    assert rf._inside(dict(r, value=0.0, test_held_it_to="x >= 0")) == "inside"
