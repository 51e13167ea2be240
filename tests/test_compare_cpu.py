"""``compare`` without a GPU: option parsing, the records, and the text and files built from a synthetic result."""
from __future__ import annotations

import json

import pytest

from cugraphlab import cli
from cugraphlab.bench.compare import WAYS, CompareResult, CompareRow, compare
from cugraphlab.bench.ways import load_cupy, load_torch
from cugraphlab.core.errors import InvalidArgumentError, NoDeviceError
from cugraphlab.report.files import read_csv, read_json, write_csv, write_json
from cugraphlab.report.compare import classic_rows, render_baseline_rows, render_classic, render_compare, speedups

# µs per iteration by (library, mode) and size: roughly the H200's figures
US = {
    ("cugraphlab", "eager"): (23.3, 21.4), ("cugraphlab", "graph"): (15.8, 4.74), ("cugraphlab", "fused"): (2.6, 0.9),
    ("cupy", "eager"): (38.1, 37.9), ("cupy", "graph"): (25.8, 5.24),
    ("torch", "eager"): (41.5, 41.8), ("torch", "graph"): (10.66, 5.65),
}
SIZES = (1 << 20, 1024)


def synthetic(torch_installed: bool = True, cupy_bad: int = 0) -> CompareResult:
    rows = []
    for i, size in enumerate(SIZES):
        base = US[("cugraphlab", "eager")][i]
        for lib, mode in WAYS:
            us = US[(lib, mode)][i]
            if lib == "torch" and not torch_installed:
                rows.append(CompareRow(lib, mode, size, 5000, 4, note="not installed"))
                continue
            bad = cupy_bad if (lib, mode) == ("cupy", "graph") else 0
            rows.append(CompareRow(lib, mode, size, 5000, 1 if mode == "fused" else 4, us, us * 0.97, us * 1.05,
                                   us * 0.99, us * 0.96, us * 1.02, bad == 0, bad, us / base, "1.0"))
    env = {"commit": "abc123def4567890", "packages": {"cuda-bindings": "13.3.1", "nvrtc": "13.0", "numpy": "2.5.2",
                                                      "cugraphlab": "0.1.0", "python": "3.12.3"},
           "gpu": {"name": "NVIDIA H200", "compute_capability": "9.0", "sm_count": 132},
           "driver": {"cuda": "13.0", "release": "580.159.04"},
           "baselines": {"cupy": {"version": "14.2.0", "cuda_runtime": "13.0"},
                         "torch": ({"version": "2.11.0", "cuda": "13.0"} if torch_installed
                                   else {"version": None, "note": "not installed"})}}
    config = {"sizes": list(SIZES), "iters": 5000, "ops": ["add", "mul", "sub", "relu"], "scalar": 2.0,
              "repeats": 5, "device": 0, "libraries": ["cugraphlab", "cupy", "torch"], "warmup_iters": 200,
              "chain": "add -> mul 2 -> sub -> relu"}
    copy = {"bytes": 256 << 20, "copies_per_sample": 10,
            "gbps": {"median": 4250.0, "p5": 4200.0, "p95": 4300.0}}
    return CompareResult(config, rows, env, copy_gbps=4250.0, copy=copy)


@pytest.fixture
def no_gpu(monkeypatch):
    def refuse(*a, **k):
        raise NoDeviceError("no NVIDIA driver found (forced by the test)")

    monkeypatch.setattr("cugraphlab.core.device.init", refuse)
    monkeypatch.setattr("cugraphlab.core.device._initialised", False)


# ------------------------------------------------------------------------------------------------ parsing

def test_compare_defaults():
    a = cli.build_parser().parse_args(["compare"])
    assert (a.size, a.iters, a.ops, a.repeats, a.device, a.json, a.csv, a.plot) == (
        None, 5000, "add,mul,sub,relu", 5, 0, None, None, None)


def test_compare_sizes_repeat_and_comma_lists():
    p = cli.build_parser()
    assert p.parse_args(["compare", "--size", "1048576,1024", "--size", "8"]).size == [1048576, 1024, 8]
    assert p.parse_args(["compare", "--size", "1_048_576"]).size == [1048576]
    assert p.parse_args(["compare", "--size", "4096"]).size == [4096]


def test_compare_options_parse():
    a = cli.build_parser().parse_args(["compare", "--iters", "20", "--repeats", "2", "--ops", "relu,add",
                                       "--device", "1", "--json", "r.json", "--csv", "r.csv", "--plot", "fig/c",
                                       "--scalar", "0.5", "--seed", "7", "--trace"])
    assert (a.iters, a.repeats, a.ops, a.device, a.json, a.csv, a.plot, a.scalar, a.seed, a.trace) == (
        20, 2, "relu,add", 1, "r.json", "r.csv", "fig/c", 0.5, 7, True)


def test_run_takes_compare_flag():
    assert cli.build_parser().parse_args(["run", "--compare"]).compare is True
    assert cli.build_parser().parse_args(["run"]).compare is False


@pytest.mark.parametrize("argv", [["compare", "--size", "0"], ["compare", "--size", "1,024"],
                                  ["compare", "--size", "256,512"], ["compare", "--size", "1024,"],
                                  ["compare", "--size", "x"], ["compare", "--iters", "0"],
                                  ["compare", "--repeats", "-1"], ["compare", "--device", "-1"]])
def test_bad_compare_options_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_compare_without_gpu_is_one_line_and_exit_2(no_gpu, capsys):
    assert cli.main(["compare", "--size", "1000", "--iters", "10"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "no usable GPU" in err


def test_compare_unknown_op_is_refused_before_the_gpu(no_gpu, capsys):
    assert cli.main(["compare", "--ops", "add,pow"]) == 2
    err = capsys.readouterr().err
    assert "unknown op 'pow'" in err and "no usable GPU" not in err


@pytest.mark.parametrize("kwargs", [dict(size=0), dict(size=[]), dict(size=[1024, -1]), dict(iters=0),
                                    dict(repeats=0), dict(ops="add,nope"), dict(libraries=("cupy", "jax")),
                                    dict(scalar=float("nan"))])
def test_compare_refuses_bad_input_before_the_gpu(kwargs, no_gpu):
    with pytest.raises(InvalidArgumentError):
        compare(**{"size": 1024, "iters": 10, "repeats": 1, **kwargs})


def test_missing_libraries_say_not_installed(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "cupy", None)  # makes "import cupy" fail as if it were not installed
    monkeypatch.setitem(sys.modules, "torch", None)
    assert load_cupy(0) == (None, "not installed")
    assert load_torch(0) == (None, "not installed")


# ------------------------------------------------------------------------------------------------ rendering

def test_render_compare_has_a_table_per_size_with_ratios_and_notes():
    text = render_compare(synthetic(torch_installed=False, cupy_bad=3))
    assert "size 1,048,576 floats" in text and "size 1,024 floats" in text
    assert text.index("size 1,048,576 floats") < text.index("size 1,024 floats")
    lines = text.splitlines()
    cupy_eager = [ln for ln in lines if ln.startswith("cupy") and " eager " in ln]
    assert len(cupy_eager) == 2 and "1.64x" in cupy_eager[0] and "bit-exact" in cupy_eager[0]
    assert sum("FAILED (3 bad)" in ln for ln in lines) == 2
    torch_rows = [ln for ln in lines if ln.startswith("torch")]
    assert len(torch_rows) == 4 and all("not installed" in ln for ln in torch_rows)
    assert "graph over eager: cugraphlab 1.47x, cupy 1.48x" in text
    assert "4,250 GB/s" in text and "NVIDIA H200" in text and "torch: not installed" in text
    assert "perf_counter_ns" not in text or "wall:" in text


def test_render_compare_with_every_library():
    text = render_compare(synthetic())
    assert "torch 3.89x" in text and "torch 2.11.0 (CUDA 13.0)" in text and "cupy 14.2.0" in text
    assert "FAILED" not in text and "not installed" not in text


def test_baseline_rows_for_run_leave_out_cugraphlab():
    res = synthetic()
    text = render_baseline_rows(res, 1024)
    table_lines = [ln for ln in text.splitlines() if ln.startswith(("cugraphlab", "cupy", "torch"))]
    assert {ln.split()[0] for ln in table_lines} == {"cupy", "torch"}
    assert "21.40 us/iter" in text and "1,024 floats" in text
    assert render_baseline_rows(res).startswith("baselines at 1,048,576 floats")


def test_classic_table_and_rows():
    res = synthetic(torch_installed=False)
    recs = classic_rows(res)
    assert [(r["library"], r["size"]) for r in recs] == [(lib, s) for s in SIZES for lib in ("cugraphlab", "cupy",
                                                                                             "torch")]
    cgl = recs[0]
    assert cgl["speedup"] == pytest.approx(23.3 / 15.8) and cgl["verified"] is True
    torch_row = [r for r in recs if r["library"] == "torch"][0]
    assert torch_row["speedup"] is None and torch_row["note"] == "not installed"
    text = render_classic(res)
    assert "eager @1,048,576" in text and "graph @1,024" in text and "cugraphlab fused" in text
    assert "4.51x" in text  # cugraphlab at 1,024: 21.4 / 4.74
    assert speedups(res, 1024)["cupy"] == pytest.approx(37.9 / 5.24)


def test_record_round_trips_through_json_and_csv(tmp_path):
    res = synthetic(torch_installed=False)
    path = write_json(tmp_path / "c.json", res.to_dict())
    d = read_json(path)
    assert d["kind"] == "cugraphlab.compare" and d["copy_gbps"] == 4250.0 and len(d["rows"]) == 14
    again = CompareResult.from_dict(d)
    assert render_compare(again) == render_compare(res)
    assert again.row("cupy", "graph", 1024).us_per_iter == 5.24 and not again.row("torch", "eager", 1024).measured
    rows = read_csv(write_csv(tmp_path / "c.csv", res.csv_rows()))
    assert len(rows) == 14 and rows[0]["library"] == "cugraphlab" and rows[0]["us_per_iter"] == 23.3
    assert json.loads(json.dumps(res.plot_rows()))  # plain data
    assert all(r["us_per_iter"] is not None for r in res.plot_rows()) and len(res.plot_rows()) == 10


def test_ok_only_counts_measured_rows():
    assert synthetic(torch_installed=False).ok
    assert not synthetic(cupy_bad=1).ok


def test_plot_rows_draw(tmp_path):
    pytest.importorskip("matplotlib")
    from cugraphlab.report.plots import plot_compare

    paths = plot_compare(synthetic(torch_installed=False).plot_rows(), tmp_path / "cmp")
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)


# ------------------------------------------------------------------------------------------------ commands

def test_compare_command_prints_and_writes(monkeypatch, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    seen = {}

    def fake_compare(sizes, iters, ops, repeats, device, **kw):
        seen.update(sizes=sizes, iters=iters, ops=ops, repeats=repeats, device=device, **kw)
        return synthetic()

    monkeypatch.setattr("cugraphlab.bench.compare.compare", fake_compare)
    argv = ["compare", "--iters", "20", "--repeats", "2", "--json", str(tmp_path / "r.json"),
            "--csv", str(tmp_path / "r.csv"), "--plot", str(tmp_path / "fig" / "cmp")]
    assert cli.main(argv) == 0
    assert seen["sizes"] == [1 << 20, 1024] and seen["iters"] == 20 and seen["repeats"] == 2
    assert seen["ops"] == ("add", "mul", "sub", "relu")
    out = capsys.readouterr().out
    assert "size 1,024 floats" in out and "record written" in out and "figures written" in out
    assert read_json(tmp_path / "r.json")["kind"] == "cugraphlab.compare"
    assert len(read_csv(tmp_path / "r.csv")) == 14
    assert (tmp_path / "fig" / "cmp.png").exists() and (tmp_path / "fig" / "cmp.svg").exists()


def test_compare_command_exit_1_when_a_way_is_not_bit_exact(monkeypatch, capsys):
    monkeypatch.setattr("cugraphlab.bench.compare.compare", lambda *a, **k: synthetic(cupy_bad=2))
    assert cli.main(["compare", "--size", "1024"]) == 1
    assert "FAILED (2 bad)" in capsys.readouterr().out


def _fake_run_result():
    from cugraphlab.bench.experiment import ModeResult, RunResult
    from cugraphlab.bench.stats import summarize

    modes = []
    for mode, us in (("eager", 21.4), ("graph", 4.74), ("fused", 0.9)):
        s = summarize([us, us * 1.01, us * 0.99], unit="us", clock="test")
        modes.append(ModeResult(mode, 1 if mode == "fused" else 4, s, s, us * 5000 / 1e6, True, 0, 21.4 / us))
    config = {"size": 1024, "iters": 5000, "ops": ["add", "mul", "sub", "relu"], "scalar": 2.0, "device": 0,
              "repeats": 5, "unroll": 1, "grid": 1, "block": 256, "chain": "add -> mul 2 -> sub -> relu on 1,024"}
    return RunResult(config, modes, synthetic().env)


def test_run_compare_appends_the_baseline_rows(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr("cugraphlab.bench.experiment.run_experiment", lambda **kw: _fake_run_result())
    monkeypatch.setattr("cugraphlab.bench.compare.compare", lambda *a, **k: synthetic())
    assert cli.main(["run", "--size", "1024", "--compare", "--json", str(tmp_path / "run.json")]) == 0
    out = capsys.readouterr().out
    assert out.index("cugraphlab run:") < out.index("baselines at 1,024 floats")
    assert "torch 2.11.0" in out
    assert read_json(tmp_path / "run.json")["compare"]["kind"] == "cugraphlab.compare"
