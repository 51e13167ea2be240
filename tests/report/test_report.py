"""Tests for cugraphlab.report (CPU only)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from cugraphlab.bench.stats.summary import Summary, summarize
from cugraphlab.core.files import read_csv, read_json, write_csv, write_json
from cugraphlab.report.tables import fmt_count, fmt_us, format_table


@dataclass(frozen=True)
class Point:
    name: str
    x: float
    where: Path


# --------------------------------------------------------------------- table

def test_table_alignment_default():
    text = format_table(["mode", "us", "n"], [["eager", 3.5, 1000], ["graph", 12.25, 7]])
    lines = text.splitlines()
    assert lines == [
        "mode      us     n",
        "-----  -----  ----",
        "eager   3.50  1000",
        "graph  12.25     7",
    ]


def test_table_all_lines_same_width_with_micro_sign():
    rows = [["a", "3.2 µs"], ["longer name", "1,234.5 µs"]]
    lines = format_table(["name", "time"], rows).splitlines()
    # µ is one column wide, so every line is equally long.
    assert len({len(line) for line in lines}) == 1
    # The numeric-with-unit column is right-aligned.
    assert lines[2].endswith("    3.2 µs")
    assert lines[0].startswith("name       ")


def test_table_wide_characters_counted_double():
    lines = format_table(["k", "v"], [["日本", 1], ["ab", 22]]).splitlines()
    assert lines[2] == "日本   1"
    assert lines[3] == "ab    22"


def test_table_explicit_align_and_errors():
    lines = format_table(["a", "b"], [[1, "x"], [100, "yy"]], align="lr").splitlines()
    assert lines[2] == "1     x"
    assert lines[3] == "100  yy"
    with pytest.raises(ValueError, match="align"):
        format_table(["a"], [[1]], align="lr")
    with pytest.raises(ValueError, match="alignment"):
        format_table(["a"], [[1]], align=["c"])
    with pytest.raises(ValueError, match="row 0"):
        format_table(["a", "b"], [[1]])


def test_table_none_cells_and_no_trailing_spaces():
    text = format_table(["a", "b"], [["x", None], ["longer", 2]])
    assert all(line == line.rstrip() for line in text.splitlines())
    assert text.splitlines()[2] == "x"


def test_formatters():
    assert fmt_us(3.14159) == "3.14 µs"
    assert fmt_us(0.12345) == "0.123 µs"
    assert fmt_us(42.42) == "42.4 µs"
    assert fmt_us(12345.6) == "12,346 µs"
    assert fmt_us(5.0, unit=False) == "5.00"
    assert fmt_us(None) == "n/a"
    assert fmt_us(float("nan")) == "n/a"
    assert fmt_count(1234567) == "1,234,567"
    assert fmt_count(np.int64(1000)) == "1,000"
    assert fmt_count(4096.0) == "4,096"
    assert fmt_count(12.5) == "12.50"


# ---------------------------------------------------------------------- JSON

def _no_temp_files(directory: Path) -> bool:
    return not [p for p in directory.iterdir() if p.name.endswith(".tmp")]


def test_json_round_trip_with_dataclasses_and_numpy(tmp_path):
    summ = summarize(np.linspace(1, 2, 20), unit="us", clock="perf_counter_ns")
    obj = {
        "zeta": 1,  # key order must survive (sort_keys=False)
        "alpha": np.float32(1.5),
        "count": np.int64(7),
        "flag": np.bool_(True),
        "arr": np.arange(3),
        "matrix": np.array([[1.0, 2.0], [3.0, np.inf]]),
        "point": Point("p", 2.5, Path("/tmp/x")),
        "summary": summ,
        "tuple": (1, "a"),
    }
    path = tmp_path / "deep" / "dir" / "out.json"
    written = write_json(path, obj)
    assert written == path and path.exists()
    back = read_json(path)
    assert list(back) == list(obj)
    assert back["alpha"] == 1.5 and back["count"] == 7 and back["flag"] is True
    assert back["arr"] == [0, 1, 2]
    assert back["matrix"] == [[1.0, 2.0], [3.0, None]]  # strict JSON: inf -> null
    assert back["point"] == {"name": "p", "x": 2.5, "where": "/tmp/x"}
    assert Summary.from_dict(back["summary"]) == summ
    assert back["tuple"] == [1, "a"]
    text = path.read_text(encoding="utf-8")
    assert '\n  "zeta": 1' in text  # indent 2
    json.loads(text)  # strict parse
    assert "Infinity" not in text and "NaN" not in text
    assert _no_temp_files(path.parent)


def test_json_atomic_failure_keeps_old_file(tmp_path):
    path = tmp_path / "r.json"
    write_json(path, {"ok": 1})
    with pytest.raises(TypeError):
        write_json(path, {"bad": object()})
    assert read_json(path) == {"ok": 1}
    assert _no_temp_files(tmp_path)
    # Overwrite works and leaves only the target.
    write_json(path, [1, 2])
    assert read_json(path) == [1, 2]
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


# ----------------------------------------------------------------------- CSV

def test_csv_round_trip_union_header(tmp_path):
    rows = [
        {"mode": "eager", "size": 1024, "us_per_iter": np.float64(3.25)},
        {"mode": "graph", "size": np.int32(2048), "p95": 1e-7, "note": "a,b \"q\""},
        {"mode": "graph", "size": 4096, "us_per_iter": None, "where": Path("x/y")},
    ]
    path = tmp_path / "sub" / "rows.csv"
    assert write_csv(path, rows) == path
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header == "mode,size,us_per_iter,p95,note,where"
    back = read_csv(path)
    assert len(back) == 3
    assert back[0] == {"mode": "eager", "size": 1024, "us_per_iter": 3.25,
                       "p95": None, "note": None, "where": None}
    assert back[1]["size"] == 2048 and isinstance(back[1]["size"], int)
    assert back[1]["p95"] == pytest.approx(1e-7) and isinstance(back[1]["p95"], float)
    assert back[1]["note"] == 'a,b "q"'
    assert back[2]["us_per_iter"] is None and back[2]["where"] == "x/y"
    assert _no_temp_files(path.parent)


def test_csv_dataclass_rows_and_text_kept(tmp_path):
    path = tmp_path / "s.csv"
    summ = summarize([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], unit="us", clock="perf_counter_ns")
    write_csv(path, [summ, {"median": "fast", "extra": "1e3x"}])
    back = read_csv(path)
    assert Summary.from_dict(back[0]) == summ
    assert back[1]["median"] == "fast"
    assert back[1]["extra"] == "1e3x"  # not numeric, stays text
    assert back[1]["n"] is None


def test_csv_rejects_nested_cells(tmp_path):
    with pytest.raises(TypeError, match="scalar"):
        write_csv(tmp_path / "x.csv", [{"a": [1, 2]}])
    assert not (tmp_path / "x.csv").exists()
    assert _no_temp_files(tmp_path)


def test_csv_empty_rows(tmp_path):
    path = write_csv(tmp_path / "e.csv", [])
    assert path.read_text() == ""
    assert read_csv(path) == []
