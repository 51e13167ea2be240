"""``cugraphlab memnodes`` without a GPU: the whole measurement on FakeMemDriver (figures meaningless, plumbing
real), the record's shape and JSON, the rendering, and the parser."""
from __future__ import annotations

import argparse
import importlib
import json

import pytest

import fake_memnodes  # tests/helpers is on sys.path (tests/conftest.py)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:  # module scope runs before conftest's per-test private cache: set one here too
        mp.setenv("CUGRAPHLAB_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "nvrtc-cache"))
        fake_memnodes.install(mp)
        from cugraphlab.bench.memnodes import measure_memnodes

        return measure_memnodes(0, [2048, 1024], 20, 2, first_samples=2, seed=5)
    finally:
        mp.undo()


def test_record_has_its_kind_clocks_samples_and_rows(result):
    from cugraphlab.bench.memnodes import FIRST_ROWS, MEM_ROW, PRE_ROW

    d = result.to_dict()
    assert d["kind"] == "cugraphlab.memnodes" and d["schema"] == 1
    assert set(d["clocks"]) == {"wall", "device", "host_api"}
    assert d["config"]["sizes"] == [2048, 1024] and d["env"]["gpu"]["name"] == "Fake GPU"
    s = result.size(2048)
    assert [f.name for f in s.first] == list(FIRST_ROWS) and [t.name for t in s.steady] == [MEM_ROW, PRE_ROW]
    assert len(result.samples[f"2048/first/{FIRST_ROWS[0]}/host_api"]["values"]) == 2
    assert len(result.samples[f"1024/steady/{MEM_ROW}/device"]["values"]) == 2
    steps = [f.step for f in s.footprint]
    assert steps[0].startswith("start") and "first launch" in steps and steps[-1].startswith("cuDeviceGraphMemTrim")
    assert s.topology_same and s.address_reuse["ok"] and result.unfreed["ok"]
    json.dumps(d, allow_nan=False)  # strict JSON
    assert isinstance(d["sizes"][0]["overhead_pct"], float) and "goal_met" in d["sizes"][0]


def test_verified_needs_bit_exact_outputs(result):
    # the fake computes nothing, so every output is still the poison: the record must say so
    assert not result.verified and result.size(1024).mismatches > 0


def test_goal_is_judged_on_the_device_medians(result):
    from dataclasses import replace

    from cugraphlab.bench.memnodes import GOAL_PCT
    from cugraphlab.bench.stats import summarize

    s = result.size(1024)
    mem, pre = s.steady
    s2 = replace(s, steady=[replace(mem, device_us_per_iter=summarize([5.09], unit="us", clock="device")),
                            replace(pre, device_us_per_iter=summarize([5.0], unit="us", clock="device"))])
    assert abs(s2.overhead_pct - 1.8) < 1e-9 and s2.goal_met and GOAL_PCT == 2.0
    s3 = replace(s2, steady=[replace(mem, device_us_per_iter=summarize([5.2], unit="us", clock="device")),
                             s2.steady[1]])
    assert not s3.goal_met


def test_render_shows_every_part(result):
    from cugraphlab.report.memnodes import fmt_bytes, render_memnodes

    text = render_memnodes(result)
    for part in ("First launch of a fresh executable", "memory nodes, cold (trim first)", "Repeat launches",
                 "goal within 2% (device)", "Footprint (cuDeviceGetGraphMemAttribute)", "reserved high",
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
    assert a.first_samples == 3


@pytest.mark.parametrize("bad", [["--size", "0"], ["--iters", "-3"], ["--device", "-1"], ["--repeats", "x"]])
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
