"""The product side of the nvbench study (benchmarks/studies/nvbench_product/product_side.py) on the fake driver that
computes the chain's kernels: each workload measured by cgl.measure, its held and cold figures written in the shape
compare.py reads, its output checked bit for bit; the command-line side replaced by the in-process command (no
process can import a fake driver). Figures here are the host's: the test proves the plumbing, never a number."""
from __future__ import annotations

import json

import pytest

from fake_driver import patch_driver
from fake_elementwise import ElementwiseFake

NAMES = ["add 1,024", "relu 1,024"]


@pytest.fixture
def fake(monkeypatch):
    return patch_driver(monkeypatch, ElementwiseFake())


def _cli_in_process(built, settings, records):
    from cugraphlab.cli import main as cli_main
    from studies.nvbench_product import product_side as P
    from studies.nvbench_product import workloads as W

    out = records / f"cli_{W.slug(built.name)}.json"
    code = cli_main(["measure", f"{P.HERE / 'workloads.py'}:cli_call", "--setup", f"setup_{W.slug(built.name)}",
                     "--prepare", "cli_prepare", "--check", "cli_check", "--ways", "eager", "--min-samples", "6",
                     "--max-samples", "8", "--time-budget", "0.3", "--json", str(out)])
    assert code == 0
    return P.figures_of_record(json.loads(out.read_text()), "eager", "cugraphlab measure"), ""


def test_both_sides_of_the_product_write_held_and_cold_figures_and_check_bit_exact(fake, tmp_path, capsys,
                                                                                   monkeypatch):
    from studies.nvbench_product import product_side as P

    monkeypatch.setattr(P, "QUICK", {"min_samples": 6, "max_samples": 8, "time_budget_s": 0.3})
    # this fake's captures and the capture doctor's do not mix (the doctor is tested on its own fake): the
    # command's stream check of a callable is skipped here, nothing else
    monkeypatch.setattr("cugraphlab.bench.measure.work.CallableWork.check_stream", lambda self, mode=None: None)
    rc = P.main([str(tmp_path), "--quick", "--only", NAMES[0], "--only", NAMES[1]], cli_runner=_cli_in_process)
    out = capsys.readouterr().out
    assert rc == 0, out
    for fname, via in (("product_side.json", "cgl.measure"), ("product_side_cli.json", "cugraphlab measure")):
        doc = json.loads((tmp_path / fname).read_text())
        assert doc["via"] == via and sorted(doc["figures"]) == sorted(NAMES)
        for f in doc["figures"].values():
            for clock in ("held", "cold"):
                assert f[clock]["n"] >= 6 and f[clock]["median"] > 0 and f[clock]["mean"] > 0
                assert f[clock]["source"].endswith(f"({clock} clock)")
            assert f["check"] == "passed"
        assert doc["checks"] and all(c["ok"] for c in doc["checks"])
    assert (tmp_path / "records" / "api_add_1024.json").exists()


def test_compare_reads_what_the_product_side_writes(fake, tmp_path, monkeypatch):
    from studies.nvbench_product import product_side as P
    from studies.nvbench_product.compare import figures_of

    monkeypatch.setattr(P, "QUICK", {"min_samples": 6, "max_samples": 8, "time_budget_s": 0.3})
    assert P.main([str(tmp_path), "--quick", "--only", "add 1,024", "--no-cli"]) == 0
    figs = figures_of(json.loads((tmp_path / "product_side.json").read_text()))
    assert figs["add 1,024"]["cold"]["median"] > 0 and figs["add 1,024"]["held"]["mean"] > 0
