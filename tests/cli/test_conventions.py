"""One convention per question in the CLI (issue 32 §3): exit codes defined once, matplotlib checked once in the
funnel before any GPU work, the shared threshold / fail-on / judge / seed checks, and one way to name written files."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import cugraphlab
from cugraphlab import cli
from cugraphlab.cli import args as cli_args

PACKAGE = Path(cugraphlab.__file__).parent


def _one_line(capsys, command: str) -> str:
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and lines[0].startswith(f"cugraphlab {command}: "), (out, err)
    return lines[0]


def test_exit_codes_are_defined_in_the_error_tree_only():
    from cugraphlab.core import errors

    defined = [f"{p.relative_to(PACKAGE)}: {m.group(0)}" for p in sorted(PACKAGE.rglob("*.py"))
               for m in re.finditer(r"^EXIT_\w+ *(?::[^=\n]+)?= *\d+(?=\s)", p.read_text(encoding="utf-8"), re.M)]
    assert defined == [f"core/errors.py: {n} = {getattr(errors, n)}" for n in
                       ("EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED")]
    assert (cli.EXIT_OK, cli.EXIT_FAILED, cli.EXIT_USAGE) == (0, 1, 2)


def test_the_shared_choices_are_bench_diffs():
    from cugraphlab.bench.diff import FAIL_ON, JUDGE

    assert cli_args.FAIL_ON_CHOICES == tuple(FAIL_ON) and cli_args.JUDGE_CHOICES == JUDGE


def test_threshold_arg_is_bench_diffs_parser_in_argparses_words():
    import argparse

    from cugraphlab.bench.diff import parse_threshold

    for text in ("5%", "0.05", "12.5%"):
        assert cli_args.threshold_arg(text) == parse_threshold(text)
    for text in ("abc", "5", "0%", "200%"):
        with pytest.raises(argparse.ArgumentTypeError):
            cli_args.threshold_arg(text)


@pytest.mark.parametrize("argv, option", [
    (["show", "{rec}", "--plot", "{tmp}/f"], "--plot"),
    (["diff", "{rec}", "{rec}", "--plot", "{tmp}/f"], "--plot"),
    (["scaling", "--plot", "{tmp}/f"], "--plot"),
    (["scale", "--plot", "{tmp}/f"], "--plot"),
    (["compare", "--plot", "{tmp}/f"], "--plot"),
    (["graph", "--draw", "{tmp}/g"], "--draw"),
    (["sweep"], "--no-plot"),
    (["timeline", "--out", "{tmp}/t"], "--no-plot"),
])
def test_matplotlib_is_checked_once_before_any_gpu_or_file_work(tmp_path, monkeypatch, capsys, argv, option):
    # No GPU on this machine: a command that looked for one first would say "no usable GPU" instead.
    monkeypatch.setattr("cugraphlab.report.plots.matplotlib_missing", lambda: True)
    rec = tmp_path / "missing.json"  # never read: the check comes first
    argv = [a.format(tmp=tmp_path, rec=rec) for a in argv]
    assert cli.main(argv) == 2
    line = _one_line(capsys, argv[0])
    assert "needs matplotlib: pip install matplotlib" in line and option in line
    assert list(tmp_path.iterdir()) == []


def test_no_plot_needs_no_matplotlib(monkeypatch):
    import argparse

    asked = []
    monkeypatch.setattr("cugraphlab.report.plots.matplotlib_missing", lambda: asked.append(1) or True)
    cli_args.check_plotting(argparse.Namespace(no_plot=True, out=None))
    cli_args.check_plotting(argparse.Namespace(plot=None, json="x.json"))
    assert asked == []  # nothing draws: matplotlib is not looked for
    with pytest.raises(cli_args.InvalidArgumentError, match="--plot needs matplotlib"):
        cli_args.check_plotting(argparse.Namespace(plot="f", json=None))
    assert asked == [1]


@pytest.mark.parametrize("argv, words", [
    (["diff", "a.json", "b.json", "--threshold", "5"], "argument --threshold: "),
    (["measure", "s.py:step", "--threshold", "abc"], "argument --threshold: "),
    (["measure", "s.py:step", "--fail-on", "worse"], "argument --fail-on: invalid choice: 'worse'"),
    (["diff", "a.json", "b.json", "--fail-on", "worse"], "argument --fail-on: invalid choice: 'worse'"),
    (["measure", "s.py:step", "--judge", "x"], "argument --judge: invalid choice: 'x'"),
    (["diff", "a.json", "b.json", "--seed", "-1"], "argument --seed: must be 0 to 2**64 - 1"),
    (["measure", "s.py:step", "--time-budget", "0"], "argument --time-budget: must be a finite number of seconds"),
])
def test_diff_and_measure_share_the_option_checks(capsys, argv, words):
    assert cli.main(argv) == 2
    assert words in _one_line(capsys, argv[0])


def test_announce_names_the_files_one_way(tmp_path, capsys):
    cli_args.announce("record", str(tmp_path / "r.json"))
    cli_args.announce("figures", [str(tmp_path / "f.png"), str(tmp_path / "f.svg")])
    assert capsys.readouterr().out == (f"record written to {tmp_path / 'r.json'}\n"
                                       f"figures written to {tmp_path / 'f.png'}, {tmp_path / 'f.svg'}\n")
