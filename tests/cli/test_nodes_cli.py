"""``cugraphlab nodes`` parser (cli/nodes.py, loaded from its file until the lead makes cli/ a package)."""
from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("cugraphlab.cli.nodes", ROOT / "cugraphlab" / "cli" / "nodes.py",
                                                  submodule_search_locations=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "cugraphlab.cli"
    spec.loader.exec_module(mod)
    return mod


def _parser():
    mod = _module()
    p = argparse.ArgumentParser(prog="cugraphlab")
    sub = p.add_subparsers(dest="command")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true")
    mod.add_commands(sub, common)
    return p, mod


def test_defaults_and_handler():
    p, mod = _parser()
    a = p.parse_args(["nodes"])
    assert (a.lesson, a.size, a.repeats, a.device, a.json) == ("all", 1 << 20, 10, 0, None)
    assert a.handler is mod.cmd_nodes and a.trace is False
    assert mod.lessons_of("all") == ("host", "event", "child", "controls") and mod.lessons_of("host") == ("host",)


def test_options_parse():
    p, _ = _parser()
    a = p.parse_args(["nodes", "--lesson", "controls", "--size", "1_024", "--repeats", "3", "--device", "1",
                      "--json", "out.json", "--trace"])
    assert (a.lesson, a.size, a.repeats, a.device, a.json, a.trace) == ("controls", 1024, 3, 1, "out.json", True)


@pytest.mark.parametrize("argv", [["nodes", "--size", "0"], ["nodes", "--lesson", "memory"],
                                  ["nodes", "--repeats", "x"], ["nodes", "--device", "-1"]])
def test_bad_input_is_refused(argv, capsys):
    p, _ = _parser()
    with pytest.raises(SystemExit) as e:
        p.parse_args(argv)
    assert e.value.code == 2
