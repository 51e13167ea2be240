"""cuda-bench's side of the product study (benchmarks/studies/nvbench_product/nvbench_side.py) on a fake driver that
computes and a stand-in for cuda.bench: both benchmarks of each workload are registered and run on nvbench's own
streams, every check is bit-exact against NumPy, and the cold and held figures are read back from nvbench's file
(figures here are the host's: the test proves the logic, never the numbers)."""
from __future__ import annotations

import json
import statistics

import pytest

from fake_cuda_bench import FakeCudaBench
from fake_driver import patch_driver
from fake_elementwise import ElementwiseFake

NAMES = ["add 1,024", "relu 1,024", "mul 1,024"]


@pytest.fixture
def fake(monkeypatch):
    f = ElementwiseFake()
    patch_driver(monkeypatch, f)
    yield f
    assert f.live("memory") == [] and f.live("stream") == [] and f.live("event") == []
    assert f.released_twice() == []


def test_the_side_times_one_call_and_a_graph_of_50_on_nvbenchs_streams(fake, tmp_path, capsys):
    from studies.nvbench_product.nvbench_side import GRAPH_SUFFIX, KIND, main

    bench = FakeCudaBench(cold=10, batch=6)
    rc = main([str(tmp_path), "--quick", "--workloads", ",".join(NAMES)], bench=bench)
    out = capsys.readouterr().out
    assert rc == 0, out
    assert [b.name for b in bench.benchmarks] == [n + s for n in NAMES for s in ("", GRAPH_SUFFIX)]
    assert all(b.settings["timeout"] == 0.5 for b in bench.benchmarks)
    assert fake.streams_used["add"] & set(bench.streams)  # nvbench's launches went to nvbench's streams
    rec = json.loads((tmp_path / "nvbench_side.json").read_text())
    assert rec["kind"] == KIND and rec["verified"] is True and rec["config"]["workloads"] == NAMES
    texts = [c["text"] for c in rec["checks"]]
    for what in ("first call", "one launch of its graph of 50", "after nvbench's launches"):
        assert sum(what in t for t in texts) == len(NAMES), what
    nv = json.loads((tmp_path / "nvbench.json").read_text())
    assert nv["benchmarks"]
    for name in NAMES:
        f = rec["figures"][name]
        assert f["cold"]["n"] == 10 and f["cold"]["median"] > 0 and f["cold"]["mean"] > 0
        assert f["held"]["mean"] > 0 and "batch GPU mean of a graph of 50 calls / 50" in f["held"]["source"]
        assert f["held_cold"]["n"] == 10
    assert "checks: all bit-exact" in out


def test_figures_divide_the_graph_by_its_calls():
    from studies.nvbench_product.nvbench_side import GRAPH_SUFFIX, nvbench_figures

    nv = {"samples": {"add 2^20 [Device=0]: cold GPU": {"values": [7.0, 8.0, 9.0, 100.0]},
                      f"add 2^20{GRAPH_SUFFIX} [Device=0]: cold GPU": {"values": [150.0, 160.0]}},
          "nvbench": {f"add 2^20{GRAPH_SUFFIX} [Device=0]: cold GPU": {"batch_gpu_mean_us": 125.0}}}
    f = nvbench_figures(nv, ["add 2^20", "long 2^20"])
    assert f["add 2^20"]["cold"]["median"] == 8.5 and f["add 2^20"]["cold"]["mean"] == 31.0
    assert f["add 2^20"]["held"]["mean"] == 2.5 and f["add 2^20"]["held"]["median"] is None
    assert f["add 2^20"]["held_cold"]["median"] == statistics.median([3.0, 3.2])
    assert f["long 2^20"]["cold"]["n"] == 0 and "held" not in f["long 2^20"]
    # a graph workload that could not be captured 50 times: its own batch is GPU-bound already
    nv["samples"]["graph50 add 2^20 [Device=0]: cold GPU"] = {"values": [120.0]}
    nv["nvbench"]["graph50 add 2^20 [Device=0]: cold GPU"] = {"batch_gpu_mean_us": 124.0}
    g = nvbench_figures(nv, ["graph50 add 2^20"], gpu_bound=["graph50 add 2^20"])["graph50 add 2^20"]
    assert g["held"]["mean"] == 124.0 and "one call" in g["held"]["source"] and "held_cold" not in g


def test_an_unknown_workload_is_one_line_and_exit_2(capsys):
    from studies.nvbench_product.nvbench_side import main

    assert main(["out", "--workloads", "add 1,024,nope"], bench=object()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown workload 'nope'" in err
