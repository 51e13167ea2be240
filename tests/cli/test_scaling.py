"""The ``scaling`` command's parser and its plan from arguments (no GPU needed)."""
from __future__ import annotations

import argparse
import importlib

import pytest

from cugraphlab.core.errors import InvalidArgumentError


def _module():
    return importlib.import_module("cugraphlab.cli.scaling")


def _parser():
    m = _module()
    p = argparse.ArgumentParser(prog="cugraphlab")
    sub = p.add_subparsers(dest="command")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true")
    m.add_commands(sub, common)
    return p, m


def test_defaults_and_handler():
    p, m = _parser()
    a = p.parse_args(["scaling"])
    assert a.handler is m.cmd_scaling
    assert (a.lengths, a.widths, a.work, a.topology, a.quick, a.repeats, a.device) == (
        None, None, "empty", "line,forkjoin", False, None, 0)
    plan = m.plan_from_args(a)
    assert plan.held_rounds == 4 and m.plan_from_args(p.parse_args(["scaling", "--quick"])).held_rounds == 3
    assert plan.lengths == tuple(1 << i for i in range(13)) and plan.widths == (1, 2, 4, 8, 16)
    assert a.trace is False and p.parse_args(["scaling", "--trace"]).trace is True


def test_every_option_parses():
    p, m = _parser()
    a = p.parse_args(["scaling", "--lengths", "1,2,4,8", "--widths", "1,2", "--work", "chain", "--topology",
                      "forkjoin", "--quick", "--repeats", "7", "--rounds", "5", "--budget", "9.5", "--size", "2048", "--device", "1",
                      "--seed", "3", "--json", "r.json", "--csv", "r.csv", "--plot", "fig/s"])
    assert a.lengths == [1, 2, 4, 8] and a.widths == [1, 2] and a.repeats == 7 and a.budget == 9.5
    assert (a.json, a.csv, a.plot, a.size, a.device, a.seed) == ("r.json", "r.csv", "fig/s", 2048, 1, 3)
    plan = m.plan_from_args(a)
    assert plan.work == "chain" and plan.topologies == ("forkjoin",) and plan.repeats == 7 and plan.held_rounds == 5
    assert [s.label for s in plan.shapes][:2] == ["forkjoin W=1 L=1", "forkjoin W=1 L=2"]


@pytest.mark.parametrize("argv", [["--lengths", "0"], ["--lengths", "a,b"], ["--widths", "-1"], ["--repeats", "0"],
                                  ["--budget", "0"], ["--device", "-1"], ["--size", "x"],
                                  ["--rounds", "0"]])
def test_bad_values_are_argparse_errors(argv, capsys):
    p, _ = _parser()
    with pytest.raises(SystemExit) as e:
        p.parse_args(["scaling", *argv])
    assert e.value.code == 2


@pytest.mark.parametrize("argv", [["--work", "matmul"], ["--topology", "ring"], ["--widths", "64"],
                                  ["--lengths", "999999"], ["--lengths", "1,2", "--widths", "4", "--topology",
                                                            "forkjoin"]])
def test_bad_plans_are_one_invalid_argument_error(argv):
    p, m = _parser()
    with pytest.raises(InvalidArgumentError):
        m.plan_from_args(p.parse_args(["scaling", *argv]))
