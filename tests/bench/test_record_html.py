"""Record._repr_html_: a notebook shows a record as its main table, config, clocks and environment."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from cugraphlab.bench.records.html import html_table, main_table
from cugraphlab.bench.records.record import Record, clocks
from cugraphlab.bench.stats.summary import summarize


@dataclass(kw_only=True)
class RowsResult(Record):
    KIND: ClassVar[str] = "cugraphlab.test-rows"
    rows: list = field(default_factory=list)


@dataclass(kw_only=True)
class SummaryResult(Record):
    KIND: ClassVar[str] = "cugraphlab.test-summary"
    costs: dict = field(default_factory=dict)


@dataclass(kw_only=True)
class HookedResult(Record):
    KIND: ClassVar[str] = "cugraphlab.test-hooked"

    def _html_table(self):
        return ["way", "us"], [["graph <fast>", 1.5]]


def test_rows_become_the_main_table_and_env_a_line():
    r = RowsResult(rows=[{"mode": "graph", "size": 1024, "us_per_iter": 3.25, "verified": True},
                         {"mode": "eager", "size": 1024, "us_per_iter": 9.5, "verified": False}],
                   config={"sizes": [1024]}, clocks=clocks("device"),
                   env={"gpu": {"name": "NVIDIA H200"}, "packages": {"cuda-bindings": "13.3.1"}, "commit": "abc"})
    out = r._repr_html_()
    assert "<b>cugraphlab.test-rows</b>" in out
    assert "<th>mode</th><th>size</th><th>us_per_iter</th><th>verified</th>" in out
    assert "<td style='text-align:right'>3.25</td>" in out and "<td>no</td>" in out
    assert "NVIDIA H200, cuda-bindings 13.3.1, commit abc" in out
    assert "cuEventElapsedTime" in out


def test_summaries_are_found_by_path_with_their_clock():
    s = summarize([1.0, 2.0, 3.0, 4.0], unit="us", clock="host_api")
    r = SummaryResult(costs={"set_params": s, "exec_update": summarize([5.0, 6.0], unit="us", clock="device")})
    headers, rows, caption = main_table(r)
    assert headers[:5] == ["row", "unit", "median", "p5", "p95"] and caption == "summaries"
    assert [row[0] for row in rows] == ["costs.set_params", "costs.exec_update"]
    assert rows[0][2] == s.median


def test_samples_are_the_last_resort():
    r = Record()
    r.keep_samples("graph", [3.0, 1.0, 2.0], clock="device")
    headers, rows, _ = main_table(r)
    assert rows == [["graph", "us", 3, 2.0, 1.0, 3.0, "device"]]


def test_a_subclass_hook_gives_the_main_table_escaped():
    out = HookedResult()._repr_html_()
    assert "graph &lt;fast&gt;" in out and "<fast>" not in out


def test_long_tables_are_cut_with_a_count():
    out = html_table(["i"], [[i] for i in range(100)])
    assert out.count("<tr>") == 1 + 60 + 1 and "40 more rows" in out
