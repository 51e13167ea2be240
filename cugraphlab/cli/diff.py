"""``cugraphlab diff A.json B.json``: the parser and the handler (argparse only; the work is bench.diff, the text
report.diff).

    from . import diff        # in the parser: diff.add_commands(sub, common)

Each bad input is one line on stderr and exit 2, all before a file is read: the threshold, --fail-on, --judge and
--seed by the shared option checks (``cli.args``: ``threshold_arg``, ``seed_arg``, the choices), the output paths
(--json, --plot) by ``check_output_paths`` and matplotlib by ``check_plotting`` as for every command (``cli.main``),
then here: an output that would overwrite an input file; then the two files (readable, JSON, cugraphlab records of one kind, schema and configuration that keep raw samples, or
nvbench / cuda-bench JSON). Exit 0 when compared, 1 when --fail-on matches a judged row's verdict or when no row
could be judged at all (for CI). Which rows are judged (--judge) is ``bench.diff.judged_rows``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import add_fail_on, add_json, add_judge, add_plot, add_seed, add_threshold, announce

__all__ = ["add_commands", "cmd_diff"]



def add_commands(sub, common) -> None:
    """Register ``diff`` on ``sub`` (argparse subparsers) with the ``common`` parent options."""
    p = sub.add_parser("diff", parents=[common],
                       help="compare two records of one command row by row: SAME / FASTER / SLOWER / AMBIGUOUS",
                       description="Compare record B against record A row by row from the raw samples both keep: "
                                   "the ratio of medians B/A with a 95% bootstrap interval, a Mann-Whitney "
                                   "p-value and a verdict against the threshold; the machines, drivers and "
                                   "packages side by side.")
    p.add_argument("a", metavar="A.json", help="the reference record (e.g. before a change)")
    p.add_argument("b", metavar="B.json", help="the record compared against A (e.g. after it)")
    add_threshold(p, "5%", "smallest change that counts, as 5%% or 0.05 (default 5%%): SAME means the interval "
                           "lies inside [1/(1+t), 1+t]")
    add_fail_on(p, "exit 1 when a row is SLOWER (slower), FASTER (faster) or either (any-change); AMBIGUOUS rows "
                   "never fail")
    add_judge(p, "repeatable", "which rows' verdicts count (--fail-on, counts): repeatable (default: of a measure "
                               "record, the rows that repeat between processes: x ref, held, cold and device-bound "
                               "rows; every row of other records) or all; the others are shown, marked (not judged)")
    add_json(p, "write the diff record (rows, environments, counts)")
    add_plot(p, "write STEM.png and STEM.svg: a forest plot of the rows")
    add_seed(p, default=0, what="seed of the bootstrap (default 0: the same files give the same intervals)")
    p.add_argument("--pair", nargs=2, action="append", default=[], metavar=("A_ROW", "B_ROW"),
                   help="compare row A_ROW of A with row B_ROW of B besides the rows of one label (repeatable): "
                        "e.g. an nvbench JSON's 'saxpy [Elements=2^20]: cold GPU' against a cugraphlab row")
    p.add_argument("--allow-config", default="", metavar="KEY,...",
                   help="compare records whose configurations differ in these keys (or 'all'); by default records "
                        "of different configurations are refused, saying what differs")
    p.set_defaults(handler=cmd_diff)


def _check_outputs(args) -> None:
    """No output file is one of the two inputs (that they can be written: ``cli.args.check_output_paths``)."""
    from ..core.errors import InvalidArgumentError

    inputs = {Path(args.a).resolve(), Path(args.b).resolve()}
    outputs = []
    if args.json:
        outputs.append(("--json", Path(args.json)))
    if args.plot:
        stem = Path(args.plot)
        outputs += [("--plot", stem.with_name(stem.name + ext)) for ext in (".png", ".svg")]
    for option, path in outputs:
        if path.resolve() in inputs:
            raise InvalidArgumentError(f"{option} {path} would overwrite an input record")


def cmd_diff(args: argparse.Namespace) -> int:
    """Check the options and outputs, read both records, compare, print; write JSON and the figure if asked.

    Returns 0, or 1 when ``--fail-on`` matches. Bad input raises InvalidArgumentError (the CLI: one line, exit 2).
    """
    from ..bench.diff import diff_records, read_record_file
    from ..report.diff import render_diff

    fail_on = args.fail_on
    _check_outputs(args)
    allow = _allow_config(args.allow_config)
    a, b = read_record_file(args.a), read_record_file(args.b)
    result = diff_records(a, b, threshold=args.threshold, seed=args.seed, a_name=args.a, b_name=args.b,
                          pairs=[tuple(p) for p in args.pair], allow_config=allow, judge=args.judge)
    print(render_diff(result))
    if args.plot:
        from ..report.diff import plot_diff

        announce("figures", plot_diff(result, args.plot))
    if args.json:
        from ..core.files import write_json

        announce("record", write_json(args.json, result))
    if result.fails(fail_on):
        failing = [r.label for r in result.rows_judged if r.verdict in _verdicts(fail_on)]
        if failing:
            print(f"--fail-on {fail_on}: {len(failing)} row(s): {', '.join(failing)}")
        else:
            judged = len(result.rows_judged)
            what = "every one AMBIGUOUS" if judged == len(result.rows) else (
                f"{judged} judged, every one AMBIGUOUS" if judged else "none judged: --judge all judges every row")
            print(f"--fail-on {fail_on}: nothing could be judged ({len(result.rows)} row(s) compared, {what}): a "
                  "check that cannot see is not a pass")
        return EXIT_FAILED
    return EXIT_OK


def _allow_config(text: str):
    from ..core.errors import InvalidArgumentError

    text = (text or "").strip()
    if text == "all":
        return "all"
    keys = [k.strip() for k in text.split(",")] if text else []
    if any(not k for k in keys):
        raise InvalidArgumentError(f"--allow-config takes configuration keys separated by commas, or 'all'; got "
                                   f"{text!r}")
    return tuple(keys)


def _verdicts(fail_on: str) -> tuple[str, ...]:
    from ..bench.diff import FAIL_ON

    return FAIL_ON[fail_on]
