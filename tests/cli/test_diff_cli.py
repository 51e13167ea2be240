"""``cugraphlab diff A.json B.json`` end to end on record files written in tmp_path: exit 0, exit 1 with --fail-on,
exit 2 with one line on stderr (no traceback) for every bad input, and the output paths checked before any work."""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import pathlib
import sys

import numpy as np
import pytest

from cugraphlab.core.errors import CugraphlabError, InvalidArgumentError
from synthetic_records import KIND, noisy, probe_record

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _diff_module():
    """cugraphlab.cli.diff: imported as usual once cli/ is a package, else loaded from its file (the relative
    imports inside resolve by name, so it works while cugraphlab/cli.py is still a module)."""
    try:
        return importlib.import_module("cugraphlab.cli.diff")
    except ImportError:
        path = ROOT / "cugraphlab" / "cli" / "diff.py"
        spec = importlib.util.spec_from_file_location("cugraphlab.cli.diff", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


@pytest.fixture(scope="module")
def cli():
    """The package's funnel: argparse's option checks, the output paths and matplotlib checked, errors to exit codes."""
    from cugraphlab.cli import main

    return main


def _write(path, record) -> str:
    path.write_text(json.dumps(record))
    return str(path)


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)

    def rec(launch_us):
        return probe_record({"launch": (noisy(rng, launch_us), "us", "host_call"),
                             "copy": (noisy(rng, 400.0, rel=0.01), "GB/s", "copy")})

    base = rec(4.0)
    return {"a": _write(tmp_path / "a.json", base), "same": _write(tmp_path / "same.json", rec(4.0)),
            "slower": _write(tmp_path / "slower.json", rec(4.8)), "tmp": tmp_path, "base": base}


def _run(cli, capsys, *argv):
    rc = cli(["diff", *map(str, argv)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


def test_same_records_exit_0_and_print_the_table(cli, capsys, files):
    rc, out, err = _run(cli, capsys, files["a"], files["same"], "--fail-on", "any-change")
    assert rc == 0 and err == ""
    assert "launch" in out and "SAME" in out and "counts: SAME 2" in out


def test_a_slower_record_exits_0_without_fail_on_and_1_with_it(cli, capsys, files):
    rc, out, _ = _run(cli, capsys, files["a"], files["slower"])
    assert rc == 0 and "SLOWER" in out
    rc, out, _ = _run(cli, capsys, files["a"], files["slower"], "--fail-on", "slower")
    assert rc == 1 and "--fail-on slower: 1 row(s): launch" in out
    rc, _, _ = _run(cli, capsys, files["a"], files["slower"], "--fail-on", "any-change")
    assert rc == 1
    rc, _, _ = _run(cli, capsys, files["a"], files["slower"], "--fail-on", "faster")
    assert rc == 0
    rc, _, _ = _run(cli, capsys, files["slower"], files["a"], "--fail-on", "faster")  # the other way round
    assert rc == 1


def test_threshold_in_percent_or_fraction(cli, capsys, files):
    for t in ("25%", "0.25"):
        rc, out, _ = _run(cli, capsys, files["a"], files["slower"], "--threshold", t, "--fail-on", "slower")
        assert rc == 0 and "±25%" in out


def test_json_and_plot_are_written(cli, capsys, files):
    pytest.importorskip("matplotlib")
    tmp = files["tmp"]
    rc, out, _ = _run(cli, capsys, files["a"], files["slower"], "--json", tmp / "out" / "d.json",
                      "--plot", tmp / "out" / "forest", "--seed", "5")
    assert rc == 0
    d = json.loads((tmp / "out" / "d.json").read_text())
    assert d["kind"] == "cugraphlab.diff" and d["compared_kind"] == KIND and d["config"]["seed"] == 5
    assert d["counts"]["SLOWER"] == 1 and d["sources"] == {"a": files["a"], "b": files["slower"]}
    assert (tmp / "out" / "forest.png").stat().st_size > 0 and (tmp / "out" / "forest.svg").stat().st_size > 0
    assert f"record written to {tmp / 'out' / 'd.json'}" in out and "figures written to " in out


def _bad(cli, capsys, *argv, words):
    rc, out, err = _run(cli, capsys, *argv)
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cugraphlab diff: "), err
    assert words in lines[0], lines[0]
    return out


def test_bad_input_files_are_one_line_and_exit_2(cli, capsys, files):
    tmp, a = files["tmp"], files["a"]
    base = files["base"]
    (tmp / "text.json").write_text("hello")
    (tmp / "list.json").write_text("[1, 2]")
    other_kind = _write(tmp / "other.json", {**base, "kind": "cugraphlab.compare"})
    other_schema_a = _write(tmp / "s1.json", {**base, "kind": "cugraphlab.other-probe"})
    other_schema_b = _write(tmp / "s2.json", {**base, "kind": "cugraphlab.other-probe", "schema": 2})
    old = _write(tmp / "old.json", {"kind": KIND, "config": {}, "rows": [], "env": {}})
    cases = [((tmp / "missing.json", a), "no such file"),
             ((a, tmp), "is a directory"),
             ((tmp / "text.json", a), "is not JSON"),
             ((a, tmp / "list.json"), "is not a cugraphlab record"),
             ((a, other_kind), "is a cugraphlab.compare record, not " + KIND),
             ((other_schema_a, other_schema_b), "two schemas"),
             ((a, old), "made before schema 1, when cugraphlab kept no raw samples: re-run the command")]
    for (x, y), words in cases:
        _bad(cli, capsys, x, y, words=words)


def test_the_committed_pre_schema_records_are_refused(cli, capsys):
    path = ROOT / "benchmarks" / "results" / "2026-11-29_H200" / "2026-11-29_H200_latency.json"
    if not path.exists():
        pytest.skip("the 2026-11-29 records are not in this checkout")
    _bad(cli, capsys, path, path, words="made before schema 1")


@pytest.mark.parametrize("option, value, words", [
    ("--threshold", "abc", "threshold must be"), ("--threshold", "5", "ambiguous"),
    ("--threshold", "0%", "> 0"), ("--threshold", "200%", "at most 100%"),
    ("--fail-on", "regressions", "--fail-on: invalid choice: 'regressions'"), ("--judge", "some", "--judge: invalid choice"),
    ("--seed", "-3", "--seed: must be 0 to 2**64 - 1"), ("--seed", "x", "--seed")])
def test_bad_options_are_one_line_and_exit_2_before_any_file_is_read(cli, capsys, files, option, value, words):
    out = _bad(cli, capsys, files["tmp"] / "missing.json", files["a"], option, value, words=words)
    assert out == ""


def test_output_paths_are_checked_before_any_work(cli, capsys, files):
    tmp, a, b = files["tmp"], files["a"], files["slower"]
    (tmp / "afile").write_text("x")
    cases = [(("--json", tmp), "is a folder; give a file path"),
             (("--json", tmp / "afile" / "d.json"), "is not a folder"),
             (("--plot", tmp / "afile" / "forest"), "is not a folder"),
             (("--json", a), "would overwrite an input record")]
    if hasattr(os, "geteuid") and os.geteuid() != 0:  # root writes anywhere
        locked = tmp / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        cases.append((("--json", locked / "d.json"), "cannot write in"))
    for argv, words in cases:
        out = _bad(cli, capsys, a, b, *argv, words=words)
        assert out == ""  # nothing compared, nothing printed
    assert json.loads(pathlib.Path(a).read_text())["kind"] == KIND  # the input survived


def test_plot_without_matplotlib_is_refused_before_any_work(cli, capsys, files, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = _bad(cli, capsys, files["a"], files["slower"], "--plot", files["tmp"] / "f", words="pip install matplotlib")
    assert out == "" and not (files["tmp"] / "f.png").exists()


def test_every_refusal_is_an_invalid_argument_error():
    # The funnel maps InvalidArgumentError (and RecordError, one) to exit 2; nothing else may escape the handler.
    from cugraphlab.bench.records.record import RecordError

    assert issubclass(RecordError, InvalidArgumentError) and issubclass(InvalidArgumentError, CugraphlabError)


def test_the_parser_registers_diff_with_the_common_options():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true")
    module = _diff_module()
    module.add_commands(sub, common)
    args = p.parse_args(["diff", "a.json", "b.json", "--trace"])
    assert args.handler is module.cmd_diff and args.trace
    assert (args.threshold, args.fail_on, args.seed, args.json, args.plot) == (0.05, None, 0, None, None)
