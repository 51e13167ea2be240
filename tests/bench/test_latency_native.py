"""The native rows of ``cugraphlab latency`` without a GPU: the sample functions, the missing-compiler row and the
"C: X us, Python adds Y us" lines."""
from __future__ import annotations

import pytest

from cugraphlab.bench.measure.latency import LatencyResult, LatencyRow
from cugraphlab.bench.measure.latency_native import (
    C_ROWS,
    PAIRED_ROWS,
    c_per_call,
    native_summary,
    open_native_floor,
    paired_excess,
)
from cugraphlab.bench.stats.summary import summarize
from cugraphlab.core.errors import UnsupportedError
from cugraphlab.core.native import NativeCompileError
from cugraphlab.report.measure import native_lines, render_latency


def test_c_per_call_divides_the_c_clock_and_drains_after():
    calls = []
    sample = c_per_call(lambda k: calls.append(("loop", k)) or 3_000 * k, 200, lambda: calls.append("sync"))
    assert sample() == pytest.approx(3.0)
    assert calls == [("loop", 200), "sync"]


def test_paired_excess_is_python_minus_c_in_one_sample_with_drains_between():
    ticks = iter([1_000, 1_000 + 5_000 * 10])  # Python: 5 us per call over 10 calls
    order = []

    def py():
        order.append("py")

    def c_loop(k):
        order.append(("c", k))
        return 2_000 * k  # C: 2 us per call

    sample = paired_excess(py, c_loop, 10, lambda: order.append("sync"), clock=lambda: next(ticks))
    assert sample() == pytest.approx(3.0)
    assert order == ["sync"] + ["py"] * 10 + ["sync", ("c", 10), "sync"]


def test_no_compiler_gives_the_reason_not_an_error():
    def no_cc():
        raise UnsupportedError("native code (launch_loop): no C compiler (none of cc, gcc, clang is on PATH); ...")

    floor, why = open_native_floor(no_cc)
    assert floor is None and "no C compiler" in why

    def refused():
        raise NativeCompileError("launch_loop", ["cc", "x.c"], "x.c:1: error: boom")

    floor, why = open_native_floor(refused)
    assert floor is None and why.startswith("the C loop did not build")
    sentinel = object()
    assert open_native_floor(lambda: sentinel) == (sentinel, "")


def _summary(v, clock="perf_counter_ns around K calls, divided by K (host)"):
    return summarize([v, v * 1.01, v * 0.99], unit="us", clock=clock)


def _result(rows, decomposition):
    base = {"python_us": 0.05, "binding_us": 0.1, "driver_us": 2.0, "total_us": 2.15, "note": ""}
    return LatencyResult(config={"size": 1024, "host_clock": "host_call", "device_clock": "device",
                                 "gap_clock": "globaltimer"}, rows=rows, decomposition={**base, **decomposition},
                         env={})


def test_render_shows_c_and_python_adds_lines():
    rows = [LatencyRow("launch_empty", "cuLaunchKernel, empty kernel", _summary(2.15)),
            LatencyRow("c_launch_empty", C_ROWS["c_launch_empty"], _summary(1.80)),
            LatencyRow("py_adds_launch", PAIRED_ROWS["py_adds_launch"], _summary(0.35)),
            LatencyRow("c_graph_launch", C_ROWS["c_graph_launch"], _summary(2.40)),
            LatencyRow("py_adds_graph", PAIRED_ROWS["py_adds_graph"], _summary(0.42))]
    medians = {r.key: r.us.median for r in rows}
    d = native_summary(medians)
    assert d["c_launch_us"] == pytest.approx(1.80) and d["python_adds_graph_us"] == pytest.approx(0.42)
    text = render_latency(_result(rows, {**d, "native_note": ""}))
    assert "cuLaunchKernel: C: 1.80 us, Python adds 0.35 us per launch" in text
    assert "cuGraphLaunch: C: 2.40 us, Python adds 0.42 us per launch" in text
    assert "C cuLaunchKernel, empty kernel" in text and "C cuGraphLaunch, chain graph" in text


def test_render_without_a_compiler_keeps_the_rows_with_the_reason():
    why = "native code (launch_loop): no C compiler (none of cc, gcc, clang is on PATH)"
    rows = [LatencyRow("launch_empty", "cuLaunchKernel, empty kernel", _summary(2.15))]
    rows += [LatencyRow(k, w, None, note=why) for k, w in C_ROWS.items()]
    d = {**native_summary({"launch_empty": 2.15}), "native_note": why}
    text = render_latency(_result(rows, d))
    assert text.count("no C compiler") >= 3  # both rows and the line under the table
    assert "native floor: not measured" in text
    assert native_lines({"c_launch_us": None, "python_adds_launch_us": None}) == []
    result = _result(rows, d)
    assert result.to_dict()["rows"][1]["us"] is None and result.to_dict()["rows"][1]["note"] == why
