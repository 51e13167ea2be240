"""bench.diff and report.diff on synthetic records: rows matched by label, verdicts per row, counts and worst, the
environment columns side by side, and every refusal (not a record, another kind or schema, records made before
schema 1, malformed samples, bad thresholds) as one RecordError / InvalidArgumentError line."""
from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

from cugraphlab.bench.diff import DiffResult, diff_records, parse_threshold, read_record_file
from cugraphlab.bench.records.record import RecordError
from cugraphlab.core.errors import InvalidArgumentError
from synthetic_records import KIND, environment, noisy, probe_record

ENV = {"host": "test"}  # the diff's own environment: skip collect() in most tests
REPO = pathlib.Path(__file__).resolve().parents[2]


def _pair(rng, *, shift=1.0, env_b=None):
    a = probe_record({"launch": (noisy(rng, 4.0), "us", "host_call"),
                      "device span": (noisy(rng, 4.2), "us", "device"),
                      "copy": (noisy(rng, 400.0, rel=0.01), "GB/s", "copy"),
                      "gone": (noisy(rng, 1.0), "us")})
    b = probe_record({"launch": (noisy(rng, 4.0 * shift), "us", "host_call"),
                      "device span": (noisy(rng, 4.2), "us", "device"),
                      "copy": (noisy(rng, 440.0, rel=0.01), "GB/s", "copy"),
                      "new": (noisy(rng, 2.0), "us")}, env=env_b)
    return a, b


def test_rows_are_matched_by_label_and_judged():
    rng = np.random.default_rng(0)
    a, b = _pair(rng, shift=1.2)
    r = diff_records(a, b, env=ENV)
    assert isinstance(r, DiffResult) and r.kind == "cugraphlab.diff" and r.compared_kind == KIND
    assert [row.label for row in r.rows] == ["launch", "device span", "copy"]
    assert r.only_a == ["gone"] and r.only_b == ["new"]
    by = {row.label: row for row in r.rows}
    assert by["launch"].verdict == "SLOWER" and by["launch"].n_a == 30 and by["launch"].n_b == 30
    assert by["launch"].ratio == pytest.approx(by["launch"].median_b / by["launch"].median_a)
    assert by["launch"].low < by["launch"].ratio < by["launch"].high and by["launch"].p_value < 1e-6
    assert by["device span"].verdict == "SAME"
    assert by["copy"].verdict == "FASTER" and by["copy"].direction == "rate"  # 10% more GB/s
    assert r.counts == {"SAME": 1, "FASTER": 1, "SLOWER": 1, "AMBIGUOUS": 0}
    assert r.worst["label"] == "launch" and r.worst["verdict"] == "SLOWER"
    assert r.worst["slowdown"] == pytest.approx(by["launch"].ratio)
    assert r.fails("slower") and r.fails("faster") and r.fails("any-change") and not r.fails(None)


def test_the_same_record_twice_is_same_everywhere_and_fails_nothing():
    rng = np.random.default_rng(1)
    a, _ = _pair(rng)
    r = diff_records(a, json.loads(json.dumps(a)), env=ENV)
    assert {row.verdict for row in r.rows} == {"SAME"}
    assert not r.fails("any-change")
    assert r.worst["verdict"] == "SAME"
    assert not any(e.differs for e in r.environment) and r.config_changes == []


def test_intervals_repeat_with_the_seed_and_do_not_depend_on_other_rows():
    rng = np.random.default_rng(2)
    a, b = _pair(rng, shift=1.03)
    r1, r2 = diff_records(a, b, seed=3, env=ENV), diff_records(a, b, seed=3, env=ENV)
    assert [(x.low, x.high) for x in r1.rows] == [(x.low, x.high) for x in r2.rows]
    del a["samples"]["copy"]
    r3 = diff_records(a, b, seed=3, env=ENV)
    assert (r3.rows[0].low, r3.rows[0].high) == (r1.rows[0].low, r1.rows[0].high)
    assert diff_records(a, b, seed=4, env=ENV).rows[0].low != r1.rows[0].low


def test_the_threshold_moves_the_verdict():
    rng = np.random.default_rng(3)
    a, b = _pair(rng, shift=1.10)
    assert diff_records(a, b, threshold=0.05, env=ENV).rows[0].verdict == "SLOWER"
    assert diff_records(a, b, threshold=0.25, env=ENV).rows[0].verdict == "SAME"


def test_environment_columns_side_by_side_with_differences_marked():
    rng = np.random.default_rng(4)
    env_b = environment(gpu="NVIDIA H100 80GB HBM3", release="575.51.03", bindings="12.9.10", commit="b" * 40,
                        numpy="2.1.3")
    a, b = _pair(rng, env_b=env_b)
    b["config"] = {"launches": 5000, "stream": "fresh"}
    r = diff_records(a, b, env=ENV, allow_config=("launches", "stream"))
    env = {e.name: e for e in r.environment}
    assert list(env) == ["GPU", "compute capability", "driver release", "driver CUDA", "cuda-bindings", "NVRTC",
                         "numpy", "python", "cugraphlab", "commit", "host"]
    assert env["GPU"].a == "NVIDIA H200" and env["GPU"].b == "NVIDIA H100 80GB HBM3" and env["GPU"].differs
    assert env["driver release"].differs and env["cuda-bindings"].differs and env["commit"].differs
    assert env["cuda-bindings"].a == "13.3.0" and env["cuda-bindings"].b == "12.9.10"
    assert not env["numpy"].differs and not env["python"].differs and not env["NVRTC"].differs
    changes = {c.name: (c.a, c.b) for c in r.config_changes}
    assert changes == {"launches": (2000, 5000), "stream": (None, "fresh")}


def test_a_record_without_env_shows_empty_columns():
    rng = np.random.default_rng(5)
    a, b = _pair(rng)
    a["env"] = {}
    r = diff_records(a, b, env=ENV)
    gpu = next(e for e in r.environment if e.name == "GPU")
    assert gpu.a is None and gpu.b == "NVIDIA H200" and gpu.differs


def test_time_units_are_converted_and_other_units_or_clocks_must_match():
    rng = np.random.default_rng(6)
    x = noisy(rng, 4.0)
    a = probe_record({"t": (x, "us"), "bw": (noisy(rng, 4.0), "us"), "clk": (x, "us", "host_call")})
    b = probe_record({"t": (x / 1000.0, "ms"), "bw": (noisy(rng, 4.0), "GB/s"), "clk": (x, "us", "device")})
    by = {row.label: row for row in diff_records(a, b, env=ENV).rows}
    assert by["t"].verdict == "SAME" and by["t"].ratio == pytest.approx(1.0)
    assert by["bw"].verdict == "AMBIGUOUS" and "units differ" in by["bw"].reason
    assert by["clk"].verdict == "AMBIGUOUS" and "clocks differ" in by["clk"].reason


def test_the_record_serialises_to_json(tmp_path):
    from cugraphlab.core.files import read_json, write_json

    rng = np.random.default_rng(7)
    a, b = _pair(rng, shift=1.2)
    b["samples"]["few"] = {"unit": "us", "values": [1.0], "clock": "host_call"}
    a["samples"]["few"] = {"unit": "us", "values": [1.0], "clock": "host_call"}
    r = diff_records(a, b, env=ENV)
    d = r.to_dict()
    assert d["kind"] == "cugraphlab.diff" and d["schema"] == 1 and d["counts"]["SLOWER"] == 1
    assert d["worst"]["label"] == "launch" and d["samples"] == {}
    assert {"threshold", "seed", "resamples"} <= set(d["config"])
    path = write_json(tmp_path / "d.json", r)  # NaN -> null
    back = read_json(path)
    assert back["rows"][0]["label"] == "launch" and back["rows"][-1]["low"] is None


def test_diff_collects_its_own_environment_by_default():
    rng = np.random.default_rng(8)
    a, b = _pair(rng)
    r = diff_records(a, b)
    assert "commit" in r.env and "packages" in r.env


# ----------------------------------------------------------------------------------------------------- refusals

def _refused(a, b, *words, **kw):
    with pytest.raises(RecordError) as e:
        diff_records(a, b, env=ENV, **kw)
    text = str(e.value)
    assert "\n" not in text
    for w in words:
        assert w in text, text
    return text


def test_records_made_before_schema_1_are_refused():
    rng = np.random.default_rng(9)
    a, b = _pair(rng)
    old = {"kind": KIND, "config": {}, "rows": [{"label": "launch", "median": 4.0}], "env": {}}
    _refused(old, b, "made before schema 1, when cugraphlab kept no raw samples", "re-run the command")
    _refused(a, old, "made before schema 1")


@pytest.mark.parametrize("name, words", [("2026-11-29_H200_compare.json", "made before schema 1"),
                                         ("2026-11-29_H200_core_overhead.json", "a study or benchmark script's summary")])
def test_the_committed_records_of_2026_11_29_are_refused(name, words):
    path = REPO / "benchmarks" / "results" / "2026-11-29_H200" / name
    if not path.exists():
        pytest.skip(f"{name} is not in this checkout")
    d = read_record_file(path)
    assert "schema" not in d
    _refused(d, d, words, "raw samples")


def test_not_a_record_another_kind_or_another_schema_is_refused():
    rng = np.random.default_rng(10)
    a, b = _pair(rng)
    _refused([1, 2], b, "A is not a cugraphlab record")
    _refused(a, {"rows": []}, "B is not a cugraphlab record")
    _refused(a, {**b, "kind": "pyperf.suite"}, "not one of cugraphlab's")
    _refused(a, {**b, "kind": "cugraphlab.compare"}, "B is a cugraphlab.compare record, not " + KIND)
    other = {**a, "kind": "cugraphlab.other-probe"}
    _refused(other, {**other, "schema": 2}, "schema 1", "schema 2", "two schemas")
    _refused({**a, "schema": "1"}, b, 'a schema written as "1" (not a whole number)')
    _refused({**a, "schema": 0}, b, "schema 0")
    _refused(a, {**b, "schema": 7}, "newer than this cugraphlab reads")  # the class of KIND is loaded: reads 1


def test_malformed_or_missing_samples_are_refused():
    rng = np.random.default_rng(11)
    a, b = _pair(rng)
    _refused(a, {**b, "samples": None}, "no 'samples' block")
    _refused(a, {**b, "samples": {"launch": [1, 2, 3]}}, "samples row 'launch'")
    _refused(a, {**b, "samples": {"launch": {"unit": "us", "values": ["4.0"]}}}, "not numbers")
    _refused({**a, "samples": {}}, {**b, "samples": {}}, "neither", "keeps raw samples")


def test_bad_threshold_or_seed_is_refused():
    rng = np.random.default_rng(12)
    a, b = _pair(rng)
    for t in (0, -0.05, 1.5, float("nan"), "5%", True):
        with pytest.raises(InvalidArgumentError, match="threshold"):
            diff_records(a, b, threshold=t, env=ENV)
    for s in (-1, 1.5, "0"):
        with pytest.raises(InvalidArgumentError, match="seed"):
            diff_records(a, b, seed=s, env=ENV)


@pytest.mark.parametrize("text, value", [("5%", 0.05), ("0.05", 0.05), (" 12.5 % ", 0.125), ("100%", 1.0),
                                         ("0.5", 0.5), (0.1, 0.1)])
def test_parse_threshold(text, value):
    assert parse_threshold(text) == pytest.approx(value)


@pytest.mark.parametrize("text, words", [("abc", "fraction"), ("", "fraction"), ("0", "> 0"), ("-5%", "> 0"),
                                         ("5", "ambiguous"), ("150%", "at most 100%"), ("nan", "> 0"),
                                         ("inf%", "> 0")])
def test_parse_threshold_refuses(text, words):
    with pytest.raises(InvalidArgumentError, match=words):
        parse_threshold(text)


def test_read_record_file_says_what_is_wrong(tmp_path):
    with pytest.raises(RecordError, match="no such file"):
        read_record_file(tmp_path / "missing.json")
    with pytest.raises(RecordError, match="is a directory"):
        read_record_file(tmp_path)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(RecordError, match=r"is not JSON \(Expecting property name .*: line 1 column 2\)$"):
        read_record_file(tmp_path / "bad.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(RecordError, match="not UTF-8"):
        read_record_file(tmp_path / "bin.json")
    (tmp_path / "ok.json").write_text('{"kind": "cugraphlab.x"}')
    assert read_record_file(tmp_path / "ok.json") == {"kind": "cugraphlab.x"}


# ------------------------------------------------------------------------------------------------------ report

def test_render_diff_shows_the_table_environments_and_counts():
    from cugraphlab.report.diff import render_diff

    rng = np.random.default_rng(13)
    a, b = _pair(rng, shift=1.2, env_b=environment(release="575.51.03"))
    r = diff_records(a, b, a_name="before.json", b_name="after.json", env=ENV)
    text = render_diff(r)
    assert "A = before.json" in text and "B = after.json" in text
    table = {line.split()[0]: line for line in text.splitlines() if line.startswith(("launch", "copy"))}
    assert table["launch"].rstrip().endswith("SLOWER") and table["copy"].rstrip().endswith("FASTER")
    assert "GB/s (rate)" in table["copy"]
    assert "only in A: gone" in text and "only in B: new" in text
    release = next(line for line in text.splitlines() if line.startswith("driver release"))
    assert "580.159.04" in release and "575.51.03" in release and release.rstrip().endswith("≠")
    gpu = next(line for line in text.splitlines() if line.startswith("GPU"))
    assert not gpu.rstrip().endswith("≠")
    assert "counts: SAME 1 · FASTER 1 · SLOWER 1 · AMBIGUOUS 0" in text and "worst: launch (SLOWER" in text
    assert render_diff(r.to_dict()) == text  # the JSON form renders the same


def test_plot_diff_writes_png_and_svg(tmp_path):
    pytest.importorskip("matplotlib")
    from cugraphlab.report.diff import plot_diff

    rng = np.random.default_rng(14)
    a, b = _pair(rng, shift=1.2)
    a["samples"]["few"] = b["samples"]["few"] = {"unit": "us", "values": [1.0], "clock": "host_call"}
    a["samples"]["ratio"] = b["samples"]["ratio"] = {"unit": "x", "values": [1.0] * 10, "clock": "host_call"}
    paths = plot_diff(diff_records(a, b, env=ENV), tmp_path / "sub" / "forest.v1")
    assert [p.name for p in paths] == ["forest.v1.png", "forest.v1.svg"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and b"<svg" in paths[1].read_bytes()[:400]


def test_plot_diff_without_matplotlib_says_how_to_install_it(monkeypatch, tmp_path):
    from cugraphlab.report.diff import plot_diff

    rng = np.random.default_rng(15)
    a, b = _pair(rng)
    r = diff_records(a, b, env=ENV)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(InvalidArgumentError, match="pip install matplotlib"):
        plot_diff(r, tmp_path / "f")
    assert not list(tmp_path.iterdir())
