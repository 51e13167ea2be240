"""``cugraphlab memnodes`` without a GPU: the whole measurement on FakeMemDriver (figures meaningless, plumbing
real), the record's shape and JSON, the rendering, and the parser."""
from __future__ import annotations

import argparse
import importlib
import json

import pytest

import fake_memnodes


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:  # module scope runs before conftest's per-test private cache: set one here too
        mp.setenv("CUGRAPHLAB_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "nvrtc-cache"))
        fake_memnodes.install(mp)
        from cugraphlab.bench.graphs.memnodes import measure_memnodes

        return measure_memnodes(0, [2048, 1024], 20, 2, first_samples=2, seed=5)
    finally:
        mp.undo()


def test_record_has_its_kind_clocks_samples_and_rows(result):
    from cugraphlab.bench.graphs.memnodes import (
        FIRST_ROWS,
        MEM_AMORTIZED_ROW,
        MEM_ROW,
        MEM_ROWS,
        PRE_AMORTIZED_ROW,
        PRE_ROW,
    )
    from cugraphlab.experiment.memchain import MEMCHAIN_SHAPES

    d = result.to_dict()
    assert d["kind"] == "cugraphlab.memnodes" and d["schema"] == 2
    assert set(d["clocks"]) == {"wall", "device", "host_api"}
    assert d["config"]["sizes"] == [2048, 1024] and d["env"]["gpu"]["name"] == "Fake GPU"
    s = result.size(2048)
    assert [f.name for f in s.first] == list(FIRST_ROWS)
    assert [t.name for t in s.steady] == ([MEM_ROWS[sh] for sh in MEMCHAIN_SHAPES] + [PRE_ROW]
                                          + [MEM_AMORTIZED_ROW, PRE_AMORTIZED_ROW])  # 20 iterations: 2 x 10
    assert isinstance(s.amortized_overhead_pct, float) and set(s.per_launch_cost_us) == set(MEMCHAIN_SHAPES)
    assert MEM_ROW == MEM_ROWS["line"] and s.shapes() == list(MEMCHAIN_SHAPES)
    # 2 timed loops of 20 iterations, each cut into 10 chunks (the amortized rows, 10 iterations per graph, into 2)
    assert all(len(result.samples[f"2048/steady/{MEM_ROWS[sh]}/device"]["values"]) == 20 for sh in MEMCHAIN_SHAPES)
    assert len(result.samples[f"2048/steady/{MEM_AMORTIZED_ROW}/wall"]["values"]) == 4
    assert len(result.samples[f"2048/first/{FIRST_ROWS[0]}/host_api"]["values"]) == 2
    assert len(result.samples[f"1024/steady/{MEM_ROW}/device"]["values"]) == 20
    assert d["config"]["chunks"] == 10
    steps = [f.step for f in s.footprint]
    assert steps[0].startswith("start") and "first launch" in steps and steps[-1].startswith("cuDeviceGraphMemTrim")
    assert s.topology_same and s.address_reuse["ok"] and result.unfreed["ok"]
    assert s.reuse_ok and set(s.shape_reuse) == set(MEMCHAIN_SHAPES) and s.shape_reuse["block"]["expected"] == []
    assert set(s.shape_views) == set(MEMCHAIN_SHAPES) and "6 nodes, 5 edges" in s.shape_views["block"]
    json.dumps(d, allow_nan=False)  # strict JSON
    assert isinstance(d["sizes"][0]["overhead_pct"], float) and "goal_met" not in d["sizes"][0]
    assert "goal_pct" not in d and "goal_pct" not in d["config"]  # the goal is the benchmark's, not the record's
    assert set(d["sizes"][0]["overheads"]) == set(MEMCHAIN_SHAPES) and d["sizes"][0]["best_shape"] in MEMCHAIN_SHAPES


def test_footprint_walk_shows_the_pool_keeping_memory_until_the_trim(result):
    # the fake models what the H200 showed: cuGraphExecDestroy leaves the memory used and reserved in the pool,
    # cuDeviceGraphMemTrim gives it back (attributes and cuMemGetInfo)
    s = result.size(2048)
    by = {f.step: f for f in s.footprint}
    destroyed, trimmed, start = by["exec destroyed (cuGraphExecDestroy)"], s.footprint[-1], s.footprint[0]
    assert destroyed.used_current > 0 and destroyed.reserved_current > 0
    assert trimmed.used_current == start.used_current == 0 and trimmed.free_bytes == start.free_bytes
    assert destroyed.free_bytes < start.free_bytes
    c = s.footprint_check
    assert c["ok"] and c["used_before_trim"] == destroyed.used_current and c["used_after_trim"] == 0
    assert c["free_missing_after_trim"] == 0


def test_footprint_check_fails_when_trim_gives_nothing_back():
    from cugraphlab.bench.graphs.memnodes import FREE_SLACK, FootprintStep, _footprint_check

    start = FootprintStep("start", 0, 0, 0, 0, 10 << 30)
    destroyed = FootprintStep("exec destroyed (cuGraphExecDestroy)", 32 << 20, 32 << 20, 32 << 20, 32 << 20,
                              (10 << 30) - (32 << 20))
    good = FootprintStep("cuDeviceGraphMemTrim, no exec", 0, 32 << 20, 0, 32 << 20, (10 << 30) - FREE_SLACK)
    assert _footprint_check([start, destroyed, good])["ok"]
    kept = FootprintStep("cuDeviceGraphMemTrim, no exec", 32 << 20, 32 << 20, 32 << 20, 32 << 20, 10 << 30)
    assert not _footprint_check([start, destroyed, kept])["ok"]  # still used
    leaked = FootprintStep("cuDeviceGraphMemTrim, no exec", 0, 0, 0, 0, (10 << 30) - FREE_SLACK - 1)
    assert not _footprint_check([start, destroyed, leaked])["ok"]  # free memory not back


def test_verified_needs_bit_exact_outputs(result):
    # the fake computes nothing, so every output is still the poison: the record must say so
    assert not result.verified and result.size(1024).mismatches > 0


def test_the_overhead_is_read_on_the_best_shape_by_device_medians(result):
    from dataclasses import replace

    from cugraphlab.bench.graphs.memnodes import MEM_ROWS, PRE_ROW
    from cugraphlab.bench.stats.summary import summarize

    s = result.size(1024)
    mems = [s.steady_row(MEM_ROWS[sh]) for sh in ("line", "parallel", "parallel_end", "block")]
    pre = s.steady_row(PRE_ROW)

    def with_us(*us):
        rows = [replace(m, device_us_per_iter=summarize([u], unit="us", clock="device")) for m, u in zip(mems, us)]
        return replace(s, steady=rows + [replace(pre, device_us_per_iter=summarize([5.0], unit="us",
                                                                                   clock="device"))])

    s2 = with_us(6.0, 5.5, 5.6, 5.09)  # line, parallel, parallel_end, block
    assert s2.best_shape == "block" and abs(s2.overhead_pct - 1.8) < 1e-9
    assert abs(s2.overheads["line"] - 20.0) < 1e-9 and abs(s2.shape_overhead_pct("parallel") - 10.0) < 1e-9
    s3 = with_us(6.0, 5.2, 5.6, 5.3)
    assert s3.best_shape == "parallel" and abs(s3.overhead_pct - 4.0) < 1e-9


def test_render_shows_every_part(result):
    from cugraphlab.report.memnodes import fmt_bytes, render_memnodes

    text = render_memnodes(result)
    for part in ("First launch of a fresh executable", "memory nodes, cold (trim first)", "Repeat launches",
                 "% wall vs the preallocated chain", "Footprint (cuDeviceGetGraphMemAttribute", "reserved high",
                 "less free than at start", "the pool still held", "back at the start: yes", "vs prealloc",
                 "memory nodes, block (one alloc", "addresses in the parallel graph",
                 "after cuDeviceGraphMemTrim used 0",
                 "virtual-address reuse", "physical memory shared", "refused with CUDA_ERROR_INVALID_VALUE",
                 "MEM_ALLOC", "Verified: NO"):
        assert part in text, part
    assert fmt_bytes(8 << 20) == "8.0 MiB" and fmt_bytes(4096) == "4.0 KiB" and fmt_bytes(12) == "12 B"


def _cli_module():
    return importlib.import_module("cugraphlab.cli.memnodes")


def _parser():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true")
    _cli_module().add_commands(sub, common)
    return p


def test_parser_defaults_and_repeated_sizes():
    a = _parser().parse_args(["memnodes"])
    assert a.size is None and a.iters == 5000 and a.repeats == 5 and a.device == 0 and a.json is None
    assert a.handler.__name__ == "cmd_memnodes" and a.trace is False
    a = _parser().parse_args(["memnodes", "--size", "1_048_576", "--size", "1024", "--iters", "100", "--trace",
                              "--json", "out.json", "--seed", "7", "--device", "1", "--first-samples", "3"])
    assert a.size == [1 << 20, 1024] and a.iters == 100 and a.trace and a.seed == 7 and a.device == 1
    assert a.first_samples == 3 and a.shape is None
    a = _parser().parse_args(["memnodes", "--shape", "block", "--shape", "parallel"])
    assert a.shape == ["block", "parallel"]


def test_parser_shapes_are_the_experiments():
    from cugraphlab.experiment.memchain import MEMCHAIN_SHAPES

    assert _cli_module().SHAPES == MEMCHAIN_SHAPES


def test_measure_times_line_and_the_shapes_asked_for(monkeypatch):
    fake_memnodes.install(monkeypatch)
    from cugraphlab.bench.graphs.memnodes import MEM_ROWS, PRE_ROW, measure_memnodes
    from cugraphlab.core.errors import InvalidArgumentError

    r = measure_memnodes(0, [512], 4, 1, first_samples=1, seed=1, shapes=["block"])
    assert [t.name for t in r.size(512).steady] == [MEM_ROWS["line"], MEM_ROWS["block"], PRE_ROW]
    assert r.config["shapes"] == ["line", "block"]
    with pytest.raises(InvalidArgumentError, match="unknown shape"):
        measure_memnodes(0, [512], 4, 1, shapes=["zigzag"])


@pytest.mark.parametrize("bad", [["--size", "0"], ["--iters", "-3"], ["--device", "-1"], ["--repeats", "x"],
                                 ["--shape", "zigzag"]])
def test_parser_refuses_bad_values(bad, capsys):
    with pytest.raises(SystemExit) as e:
        _parser().parse_args(["memnodes", *bad])
    assert e.value.code == 2


def test_cmd_returns_1_when_a_check_failed_and_writes_the_record(monkeypatch, tmp_path, capsys):
    fake_memnodes.install(monkeypatch)
    a = _parser().parse_args(["memnodes", "--size", "512", "--iters", "10", "--repeats", "2", "--first-samples",
                              "2", "--json", str(tmp_path / "r.json")])
    assert a.handler(a) == 1  # the fake computes nothing: not bit-exact
    out = capsys.readouterr().out
    assert "cugraphlab memnodes" in out and "record written" in out
    assert json.loads((tmp_path / "r.json").read_text())["kind"] == "cugraphlab.memnodes"


def test_benchmark_lifetime_check_sees_every_dropped_chain_come_back(monkeypatch):
    # the driver script's check on the fake: a MemChain kept alive by a stray reference would leave memory behind
    import importlib.util
    import pathlib

    fake_memnodes.install(monkeypatch)
    from cugraphlab import Device

    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "memnodes.py"
    spec = importlib.util.spec_from_file_location("memnodes_benchmark", path)
    bm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bm)
    with Device(0) as dev:
        life = bm.lifetime_check(dev, copies=4, n=1 << 16, rounds=2)
        assert life["ok"], life
        assert all(r["used_after_gc"] > 0 and r["used_after_trim"] == 0 for r in life["rounds"])
        kept = bm.MemChain(dev, 1 << 16)  # one more alive through the rounds: its buffers are not "left"
        kept.run(1)
        assert bm.lifetime_check(dev, copies=4, n=1 << 16, rounds=1)["ok"]
        kept.close()
