"""The nvbench study (benchmarks/studies/nvbench) on a fake driver that computes and a stand-in for cuda.bench: the
launches both tools make land on their own streams and are bit-exact against NumPy, every row of cugraphlab's record
is there with its clock, nvbench's file is read back as `cugraphlab diff` reads it, and the agreement logic judges
pairs at ±3% (figures here are the host's: the test proves the logic, never the numbers)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fake_cuda_bench import FakeCudaBench
from fake_driver import patch_driver
from fake_elementwise import ElementwiseFake
from fake_nvbench import write_nvbench_json

ITEMS = [("saxpy", 1 << 12), ("add", 1 << 12), ("relu", 1 << 10)]


@pytest.fixture
def fake(monkeypatch):
    f = ElementwiseFake()
    patch_driver(monkeypatch, f)
    yield f
    assert f.live("memory") == [] and f.live("stream") == [] and f.live("event") == []
    assert f.released_twice() == []


def test_the_quick_study_runs_both_sides_bit_exact(fake, tmp_path, capsys):
    from studies.nvbench.measure import ROWS
    from studies.nvbench.run import main

    bench = FakeCudaBench(cold=12, batch=8)
    rc = main([str(tmp_path), "--quick"], bench=bench, items=ITEMS)  # small sizes: the fake computes every launch
    out = capsys.readouterr().out
    assert rc == 0, out
    names = ["saxpy 2^12", "add 2^12", "relu 2^10"]
    assert [b.name for b in bench.benchmarks] == [n + s for n in names for s in ("", " graph x50")]
    assert all(b.settings["timeout"] == 0.5 and "max-noise" in b.settings for b in bench.benchmarks)
    assert "--jsonbin" in bench.argv and bench.argv[bench.argv.index("--device") + 1] == "0"
    # nvbench's launches went to nvbench's streams, never cugraphlab's
    assert fake.streams_used["saxpy"] & set(bench.streams)
    ours = json.loads((tmp_path / "cugraphlab.json").read_text())
    assert ours["kind"] == "cugraphlab.study.nvbench" and ours["verified"] is True
    assert ours["workloads"] == names
    checks = [c["text"] for c in ours["checks"]]
    assert sum("after nvbench's launches" in c for c in checks) == 3 and all(c["ok"] for c in ours["checks"])
    assert any("cold rotating" in c for c in checks)
    for n in names:
        for row, (clock, _what) in ROWS.items():
            label = f"{n}: {row}"
            if row == "C loop host" and label not in ours["samples"]:
                assert "not measured" in ours["facts"]["C loop"]  # no libcuda here: the row says why
                continue
            assert ours["samples"][label]["clock"] == clock, label
        assert len(ours["samples"][f"{n}: cold isolated"]["values"]) == 40
        assert len(ours["samples"][f"{n}: eager loop"]["values"]) == 3 * 4  # 3 loops x 4 chunks
        assert len(ours["samples"][f"{n}: held"]["values"]) == 6
    from cugraphlab.bench.diff import read_record_file

    nv = read_record_file(tmp_path / "nvbench.json")
    assert nv["kind"] == "nvbench" and len(nv["samples"]["saxpy 2^12 [Device=0]: cold GPU"]["values"]) == 12
    log = (tmp_path / "nvbench_study.log").read_text()
    for words in ("Device time measured the same way by both", "goal (within 3% on device time): cold",
                  "Where the clocks differ", "What only cugraphlab shows", "checks: ", "bit-exact"):
        assert words in log and words in out
    assert "FAILED" not in log


def test_a_wrong_kernel_result_fails_the_study(fake, tmp_path, capsys, monkeypatch):
    from studies.nvbench.run import main

    real = fake._run

    def broken(name, args):
        real(name, args)
        if name == "relu":
            fake.floats(args[0], 1)[:] = np.float32(-7.0)  # first element wrong

    monkeypatch.setattr(fake, "_run", broken)
    assert main([str(tmp_path), "--quick"], bench=FakeCudaBench(cold=6, batch=4), items=ITEMS) == 1
    assert "FAILED: relu 2^10" in (tmp_path / "nvbench_study.log").read_text()


def test_without_cuda_bench_the_study_says_how_to_install_it(monkeypatch, capsys):
    import sys

    from studies.nvbench.run import WHEEL, load_cuda_bench

    monkeypatch.setitem(sys.modules, "cuda.bench", None)
    with pytest.raises(SystemExit) as e:
        load_cuda_bench()
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and WHEEL in err[0] and "pip install --no-deps" in err[0]


def _ours(cold_us, graph_us, eager_us, rng, n=200):
    from studies.nvbench.report import KIND

    samples = {}
    for name, c, g, e in (("saxpy 2^20", *cold_us[:1], *graph_us[:1], *eager_us[:1]),
                          ("add 2^10", *cold_us[1:], *graph_us[1:], *eager_us[1:])):
        samples[f"{name}: cold isolated"] = {"unit": "us", "values": list(c * (1 + 0.005 * rng.standard_normal(n))),
                                             "clock": "device"}
        samples[f"{name}: graph x50"] = {"unit": "us", "values": [g] * 10, "clock": "device"}
        samples[f"{name}: eager loop"] = {"unit": "us", "values": [e] * 10, "clock": "device"}
    return {"kind": KIND, "schema": 1, "config": {}, "env": {}, "samples": samples,
            "workloads": ["saxpy 2^20", "add 2^10"]}


def test_agreement_is_diffs_verdict_at_3_percent(tmp_path):
    from studies.nvbench.report import agreement, render_study

    rng = np.random.default_rng(0)
    cold = lambda us: us * 1e-6 * (1 + 0.005 * rng.standard_normal(300))  # noqa: E731
    path = write_nvbench_json(tmp_path / "nv.json", {
        "saxpy 2^20": {"Device=0": (cold(2.50), 4.40e-6)}, "saxpy 2^20 graph x50": {"Device=0": (cold(120), 100e-6)},
        "add 2^10": {"Device=0": (cold(1.80), 4.10e-6)}, "add 2^10 graph x50": {"Device=0": (cold(80), 75e-6)}})
    from cugraphlab.bench.diff import read_record_file

    nv = read_record_file(path)
    ours = _ours((2.51, 1.90), (2.01, 1.62), (4.05, 4.00), rng)  # saxpy agrees; add 5.6% slower cold, 8% graph
    by = {a.workload: a for a in agreement(nv, ours)}
    assert by["saxpy 2^20"].cold_verdict == "SAME" and by["saxpy 2^20"].cold_ok
    assert by["saxpy 2^20"].graph_ratio == pytest.approx(2.01 / 2.0) and by["saxpy 2^20"].graph_ok
    assert by["add 2^10"].cold_verdict == "SLOWER" and not by["add 2^10"].cold_ok
    assert by["add 2^10"].graph_ratio == pytest.approx(1.62 / 1.5) and not by["add 2^10"].graph_ok
    assert by["saxpy 2^20"].batch_ratio == pytest.approx(4.05 / 4.40)
    text = render_study(nv, ours)
    assert "cold 1 of 2 workloads SAME at ±3%; graph x50 1 of 2 within 3%" in text


def test_a_setting_nvbench_refuses_is_noted_and_the_default_kept():
    from fake_cuda_bench import Benchmark
    from studies.nvbench.nvbench_side import Knobs

    class Older(Benchmark):
        def set_batch_target_time(self, s):
            raise AttributeError("'Benchmark' object has no attribute 'set_batch_target_time'")

    k = Knobs()
    b = Older(lambda state: None)
    k.apply(b)
    assert b.settings == {"timeout": 2.0, "max-noise": 0.005, "min-time": 0.25}
    assert list(k.refused) == ["batch_target_time"] and "AttributeError" in k.refused["batch_target_time"]
    assert k.to_dict()["refused"] == k.refused
