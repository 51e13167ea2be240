"""The ``switch`` command's parser (cli/switch.py, loaded by path until the cli package exists) and its refusals."""
from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

from cugraphlab.core.errors import InvalidArgumentError

PATH = Path(__file__).resolve().parents[2] / "cugraphlab" / "cli" / "switch.py"


def _module():
    try:  # once the lead has made cugraphlab/cli a package
        import cugraphlab.cli.switch as m

        return m
    except ImportError:
        spec = importlib.util.spec_from_file_location("cugraphlab.cli_switch_under_test", PATH,
                                                      submodule_search_locations=None)
        m = importlib.util.module_from_spec(spec)
        m.__package__ = "cugraphlab.cli"  # so `from ..cli_args` is cugraphlab.cli_args, as in the package
        spec.loader.exec_module(m)
        return m


@pytest.fixture
def parser():
    p = argparse.ArgumentParser(prog="cugraphlab")
    sub = p.add_subparsers(dest="command")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true")
    _module().add_commands(sub, common)
    return p


def test_defaults(parser):
    a = parser.parse_args(["switch"])
    assert (a.size, a.branches, a.iters, a.repeats, a.device, a.seed, a.json, a.trace) == (
        1 << 20, 4, 2000, 15, 0, None, None, False)
    assert (a.sweep, a.holding_repeats, a.holding_batch) == ([1, 2, 3, 4, 8], 30, 256)
    assert a.handler.__name__ == "cmd_switch"


def test_sweep_options(parser):
    a = parser.parse_args(["switch", "--sweep", "1,4", "--holding-repeats", "9", "--holding-batch", "128"])
    assert (a.sweep, a.holding_repeats, a.holding_batch) == ([1, 4], 9, 128)
    assert parser.parse_args(["switch", "--no-sweep"]).sweep == []


@pytest.mark.parametrize("argv, words", [(["--sweep", "1,9"], "--sweep counts must be 1..8"),
                                         (["--holding-batch", "2000"], "--holding-batch must be 1..1024")])
def test_sweep_refusals_come_before_the_gpu(parser, argv, words, monkeypatch):
    def no_gpu(*a, **kw):
        raise AssertionError("measured before refusing")

    monkeypatch.setattr("cugraphlab.bench.graphs.switch.measure_switch", no_gpu)
    a = parser.parse_args(["switch", *argv])
    with pytest.raises(InvalidArgumentError, match=words.replace(".", r"\.")):
        a.handler(a)


def test_options(parser):
    a = parser.parse_args(["switch", "--size", "1_024", "--branches", "3", "--iters", "100", "--repeats", "2",
                           "--device", "1", "--seed", "7", "--json", "out.json", "--trace"])
    assert (a.size, a.branches, a.iters, a.repeats, a.device, a.seed, a.json, a.trace) == (
        1024, 3, 100, 2, 1, 7, "out.json", True)


@pytest.mark.parametrize("argv", [["switch", "--size", "0"], ["switch", "--branches", "x"],
                                  ["switch", "--iters", "-3"], ["switch", "--device", "-1"]])
def test_bad_values_exit_2(parser, argv):
    with pytest.raises(SystemExit) as e:
        parser.parse_args(argv)
    assert e.value.code == 2


@pytest.mark.parametrize("branches", [1, 9, 100])
def test_branches_out_of_range_refused_before_the_gpu(parser, branches, monkeypatch):
    def no_gpu(*a, **k):
        raise AssertionError("the GPU was touched")

    monkeypatch.setattr("cugraphlab.bench.graphs.switch.measure_switch", no_gpu)
    a = parser.parse_args(["switch", "--branches", str(branches)])
    with pytest.raises(InvalidArgumentError, match="--branches must be 2..8"):
        a.handler(a)
