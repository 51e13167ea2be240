"""cugraphlab scale without a GPU: the arithmetic, the plan and its checks, the CLI's bad input, the report, the plot."""
from __future__ import annotations

import pytest

from cugraphlab import cli
from cugraphlab.bench.scale.gil import gil_verdict
from cugraphlab.bench.scale.plan import (
    Point,
    kind_unroll,
    make_config,
    parse_launch_kinds,
    plan_points,
    resolve_devices,
)
from cugraphlab.bench.scale.rates import add_speedups, combine_repeats, device_activity, round_rates
from cugraphlab.bench.scale.run import point_rows
from cugraphlab.bench.workers import WorkerOutcome
from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.report.scale import csv_rows, findings, render_scale

# ANCHORS.md (2×H200, empty kernel, 20,000 launches per worker): M launches/s of all workers, eager / graph
ANCHOR = {("threads", 1): (0.191, 0.261), ("threads", 2): (0.207, 0.282), ("threads", 4): (0.122, 0.154),
          ("threads", 8): (0.118, 0.146), ("gpus", 2): (0.265, 0.358), ("processes", 2): (0.467, 0.596)}


@pytest.fixture(autouse=True)
def _sixteen_cores(monkeypatch):
    """The defaults need 8 cores; tests that check the core limit set their own count."""
    monkeypatch.setattr("cugraphlab.bench.scale.plan.usable_cpus", lambda: 16)


# --- arithmetic ---------------------------------------------------------------------------------------------------
def test_round_rate_is_total_over_earliest_start_to_latest_end():
    r = round_rates([{"t0_ns": 0, "t1_ns": 1_000_000_000, "calls": 1000, "iters": 1000},
                     {"t0_ns": 500_000_000, "t1_ns": 2_000_000_000, "calls": 3000, "iters": 750}])
    assert r["calls_per_s"] == pytest.approx(2000.0)  # 4000 calls over 2 s
    assert r["iters_per_s"] == pytest.approx(875.0)
    assert r["worker_calls_per_s"] == pytest.approx([1000.0, 2000.0])
    assert r["us_per_call"] == pytest.approx([1000.0, 500.0])
    assert r["span_s"] == pytest.approx(2.0)
    with pytest.raises(ValueError):
        round_rates([])


def test_repeats_combine_to_the_median_and_speedups_use_the_one_thread_row():
    reps = [round_rates([{"t0_ns": 0, "t1_ns": ns, "calls": 100, "iters": 100}]) for ns in (1e6, 2e6, 4e6)]
    c = combine_repeats(reps)
    assert c["calls_per_s"] == pytest.approx(50_000.0) and c["repeats"] == 3
    assert c["calls_per_s_spread"]["min"] == pytest.approx(25_000.0)
    assert c["us_per_call"]["median"] == pytest.approx(20.0)
    rows = add_speedups([{"axis": "threads", "workers": 1, "kind": "eager", "iters_per_s": 100.0},
                         {"axis": "threads", "workers": 4, "kind": "eager", "iters_per_s": 60.0},
                         {"axis": "processes", "workers": 2, "kind": "eager", "iters_per_s": 244.0},
                         {"axis": "processes", "workers": 2, "kind": "graph", "iters_per_s": 300.0}])
    assert [r["speedup"] for r in rows] == pytest.approx([1.0, 0.6, 2.44, None], nan_ok=True) or \
        rows[3]["speedup"] is None
    assert rows[2]["efficiency"] == pytest.approx(1.22) and rows[3]["speedup"] is None


def test_device_activity_unions_intervals_and_measures_gaps():
    a = device_activity([10, 30, 35], [20, 40, 50])
    assert a["complete"] and a["kernels"] == 3
    assert a["span_us"] == pytest.approx(0.040) and a["busy_us"] == pytest.approx(0.030)
    assert a["idle_fraction"] == pytest.approx(0.25)
    assert a["gap_us"]["min"] == pytest.approx(-0.005) and a["gap_us"]["max"] == pytest.approx(0.010)
    assert not device_activity([0, 30], [20, 40])["complete"]  # a stamp never written
    assert device_activity([], [])["idle_fraction"] is None


def test_gil_verdict_reads_the_shares():
    released = gil_verdict({"busy_alone": 10e6, "busy_beside": 9e6, "launch_alone": 2e5, "launch_beside": 2e4})
    assert released["released"] is True and "releases the GIL" in released["text"]
    assert "90%" in released["text"] and "10%" in released["text"]
    held = gil_verdict({"busy_alone": 10e6, "busy_beside": 5e6, "launch_alone": 2e5, "launch_beside": 1e5})
    assert held["released"] is False and "take turns" in held["text"]


# --- plan and validation ----------------------------------------------------------------------------------------
def test_launch_kinds_parse():
    assert parse_launch_kinds("eager,graph,graphK", 50) == ("eager", "graph", "graph50")
    assert parse_launch_kinds("graph10, eager", 50) == ("graph10", "eager")
    assert kind_unroll("graph10") == ("graph", 10) and kind_unroll("graph") == ("graph", 1)
    with pytest.raises(InvalidArgumentError, match="unknown launch kind 'turbo'"):
        parse_launch_kinds("eager,turbo", 50)


@pytest.mark.parametrize("kwargs, message", [
    ({"threads": "0"}, "0 workers"), ({"threads": "1,x"}, "comma list"), ({"launch": "warp"}, "unknown launch"),
    ({"launches": 0}, "launches"), ({"launch": "graphK", "unroll": 7, "launches": 100}, "multiple of K=7"),
    ({"work": "matmul"}, "unknown work"), ({"stream": "one"}, "unknown stream"), ({"repeats": 0}, "^repeats"),
    ({"devices": "0,0"}, "twice"), ({"devices": "-1"}, "^devices"), ({"timeout_s": 0}, "^timeout_s")])
def test_bad_configs_are_refused(kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        make_config(**kwargs)


def test_more_threads_than_cores_is_refused(monkeypatch):
    monkeypatch.setattr("cugraphlab.bench.scale.plan.usable_cpus", lambda: 4)
    with pytest.raises(InvalidArgumentError, match="more than the 4 CPU cores"):
        make_config(threads="1,8")


def test_default_points_reproduce_the_anchor_table(monkeypatch):
    monkeypatch.setattr("cugraphlab.core.device.device_count", lambda: 2)
    monkeypatch.setattr("cugraphlab.bench.scale.plan.usable_cpus", lambda: 16)
    config = resolve_devices(make_config())
    assert config.devices == (0, 1) and config.launches == 20_000 and config.kinds == ("eager", "graph")
    points = plan_points(config)
    assert [(p.axis, p.workers, p.processes) for p in points] == [
        ("threads", 1, 1), ("threads", 2, 1), ("threads", 4, 1), ("threads", 8, 1), ("gpus", 2, 1),
        ("processes", 2, 2)]
    assert points[3].layout == ((0,) * 8,) and points[4].layout == ((0, 1),) and points[5].layout == ((0,), (1,))
    assert [p.evidence for p in points] == [True, False, False, True, True, True]
    cross = plan_points(resolve_devices(make_config(threads="2", cross=True, evidence="none")))
    assert cross[-1].axis == "cross" and cross[-1].layout == ((0, 0), (1, 1))


def test_missing_device_and_too_many_workers_are_refused(monkeypatch):
    monkeypatch.setattr("cugraphlab.core.device.device_count", lambda: 2)
    with pytest.raises(InvalidArgumentError, match="no CUDA device 5"):
        resolve_devices(make_config(devices="0,5"))
    monkeypatch.setattr("cugraphlab.bench.scale.plan.usable_cpus", lambda: 4)
    with pytest.raises(InvalidArgumentError, match="8 launching threads"):
        resolve_devices(make_config(threads="1,4", cross=True))


# --- CLI: one line, exit 2, nothing started ---------------------------------------------------------------------
@pytest.fixture
def two_gpus_no_workers(monkeypatch):
    monkeypatch.setattr("cugraphlab.core.device.device_count", lambda: 2)
    monkeypatch.setattr("cugraphlab.bench.scale.plan.usable_cpus", lambda: 8)

    def refuse(*a, **k):
        raise AssertionError("a worker was started on bad input")

    monkeypatch.setattr("cugraphlab.bench.workers.run_workers", refuse)
    monkeypatch.setattr("cugraphlab.bench.scale.run.run_workers", refuse)


@pytest.mark.parametrize("argv, message", [
    (["--threads", "0"], "0 workers"), (["--threads", "2,0"], "0 workers"),
    (["--devices", "0,3"], "there is no CUDA device 3"), (["--threads", "1,16"], "more than the 8 CPU cores"),
    (["--launch", "eager,turbo"], "unknown launch kind 'turbo'"), (["--launches", "abc"], "--launches"),
    (["--work", "gemm"], "unknown --work"), (["--threads", "1,8", "--cross"], "16 launching threads")])
def test_cli_bad_input_is_one_line_and_exit_2(argv, message, two_gpus_no_workers, capsys):
    assert cli.main(["scale", *argv]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and lines[0].startswith("cugraphlab scale: ") and message in lines[0]


# --- report and plot from a synthetic record ----------------------------------------------------------------------
def _outcomes(point: Point, kinds, repeats=3, launches=20_000):
    """Worker outcomes as process_main would return them, timed to the anchor rates."""
    results = []
    for p, devices in enumerate(point.layout):
        records, evidence = [], []
        for kind in kinds:
            rate = ANCHOR[(point.axis, point.workers)][0 if kind == "eager" else 1] * 1e6
            ns = int(launches * point.workers / rate * 1e9)
            for rep in range(repeats):
                t0 = 10**12 + rep * 10**10
                for i, d in enumerate(devices):
                    records.append({"kind": kind, "repeat": rep, "probe": False, "thread": i, "device": d,
                                    "t0_ns": t0 + 1000 * i, "t1_ns": t0 + ns - 1000 * i, "calls": launches,
                                    "iters": launches, "verified": None})
            for i, d in enumerate(devices):
                records.append({"kind": kind, "repeat": 0, "probe": True, "thread": i, "device": d, "t0_ns": 0,
                                "t1_ns": ns, "calls": launches, "iters": launches, "verified": True,
                                "counted": launches, "expected": launches})
            if point.evidence:
                for d in sorted(set(devices)):
                    starts = [k * 5000 + 1 for k in range(200)]
                    evidence.append({"device": d, "kind": kind, **device_activity(starts, [s + 1500 for s in starts])})
        results.append(WorkerOutcome(p, True, {"records": records, "evidence": evidence,
                                               "device_names": {str(d): "NVIDIA H200" for d in devices}}, None, 1.0))
    return results


def synthetic_record(monkeypatch):
    monkeypatch.setattr("cugraphlab.core.device.device_count", lambda: 2)
    monkeypatch.setattr("cugraphlab.bench.scale.plan.usable_cpus", lambda: 16)
    config = resolve_devices(make_config())
    rows = []
    for point in plan_points(config):
        rows += point_rows(point, config, _outcomes(point, config.kinds))
    add_speedups(rows)
    gil = {"busy_alone": 20e6, "busy_beside": 18e6, "launch_alone": 190e3, "launch_beside": 30e3, "seconds": 0.5}
    return {"kind": "cugraphlab.scale", "config": config.to_dict(), "points": rows, "gil": gil,
            "gil_verdict": gil_verdict(gil), "env": {"gpu": {"name": "NVIDIA H200"}},
            "clocks": {"host": "perf_counter_ns", "device": "%globaltimer"}}


def test_rows_reproduce_the_rates_they_were_built_from(monkeypatch):
    rows = synthetic_record(monkeypatch)["points"]
    by = {(r["axis"], r["workers"], r["kind"]): r for r in rows}
    assert by[("threads", 1, "eager")]["calls_per_s"] / 1e6 == pytest.approx(0.191, rel=1e-3)
    assert by[("processes", 2, "graph")]["calls_per_s"] / 1e6 == pytest.approx(0.596, rel=1e-3)
    assert by[("processes", 2, "eager")]["speedup"] == pytest.approx(0.467 / 0.191, rel=1e-3)
    assert by[("threads", 8, "eager")]["speedup"] == pytest.approx(0.118 / 0.191, rel=1e-3)
    assert by[("threads", 1, "eager")]["verified"] is True and by[("threads", 1, "eager")]["checks"] == 1
    assert by[("threads", 1, "eager")]["idle_fraction"] == pytest.approx(1 - 1500 / 5000, abs=0.01)
    assert by[("threads", 2, "eager")]["idle_fraction"] is None  # no evidence asked there


def test_report_text_states_findings_computed_from_the_numbers(monkeypatch):
    record = synthetic_record(monkeypatch)
    text = render_scale(record, written=["x.png"])
    assert "M launches/s (all)" in text and "8 threads, GPU 0" in text and "count ok" in text
    found = "\n".join(findings(record))
    assert "releases the GIL" in found and "90%" in found
    assert "8 threads on one GPU launch 0.118 M/s together, 0.62x" in found
    assert "driver takes launches into one context one at a time" in found
    assert "a process per GPU reaches 2.45x" in found
    assert "2 GPUs, a process each (2.45x with 2)" in found  # the only layout that scales (eager)
    assert "the GPU sat idle 70%" in found and "launch-bound" in found
    assert "all 38 worker checks passed" in found
    rows = csv_rows(record)
    assert len(rows) == 12 and rows[0]["axis"] == "threads" and rows[0]["us_per_call_median"] > 0


def test_a_failed_point_is_reported_not_hidden(monkeypatch):
    monkeypatch.setattr("cugraphlab.core.device.device_count", lambda: 2)
    config = resolve_devices(make_config(threads="1"))
    point = plan_points(config)[0]
    rows = point_rows(point, config, [WorkerOutcome(0, False, None, "timed out after 180 s", 180.0)])
    assert all(r["ok"] is False and r["verified"] is False and r["calls_per_s"] is None for r in rows)
    text = render_scale({"config": config.to_dict(), "points": rows})
    assert "FAILED" in text and "timed out after 180 s" in text


def test_plot_writes_png_and_svg(monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    from cugraphlab.report.plots.scale import plot_scale, series

    record = synthetic_record(monkeypatch)
    s = series(record)
    assert s[("processes", "eager")][0] == (1, 1.0, pytest.approx(0.191))  # drawn from the one-thread baseline
    paths = plot_scale(record, tmp_path / "fig" / "scale_h200")
    assert [p.name for p in paths] == ["scale_h200.png", "scale_h200.svg"]
    assert all(p.stat().st_size > 1000 for p in paths)
    assert paths[0].read_bytes()[:4] == b"\x89PNG" and b"<svg" in paths[1].read_bytes()[:400]


def test_gil_verdict_reads_a_starved_launcher_as_a_released_gil():
    """Measured on the 2xH200 (2026-11-30): busy 11.9 M loops/s alone, 8.05 M beside; launching 199,001/s alone,
    217/s beside: about one launch per 5 ms switch interval, so the GIL is given up at each call."""
    from cugraphlab.bench.scale.gil import gil_verdict

    v = gil_verdict({"busy_alone": 11.92e6, "busy_beside": 8.05e6, "launch_alone": 199001.0, "launch_beside": 217.0,
                     "switch_interval_s": 0.005})
    assert v["released"] is True and "switch interval" in v["text"]
    # held through the call: the two would alternate slices, the launcher keeping about half its rate
    held = gil_verdict({"busy_alone": 10e6, "busy_beside": 5e6, "launch_alone": 2e5, "launch_beside": 1e5})
    assert held["released"] is False
