"""``cugraphlab diff A.json B.json``: the parser and the handler (argparse only; the work is bench.diff, the text
report.diff).

    from . import diff        # in the parser: diff.add_commands(sub, common)

Every option is taken as text and checked in the handler, so that each bad input is one line on stderr and exit 2
(InvalidArgumentError; RecordError is one): the threshold, --fail-on, --judge, --seed, then the output paths
(--json, --plot: writable, not an input file), then matplotlib where --plot asks for it, all before a file is read;
then the two files (readable, JSON, cugraphlab records of one kind, schema and configuration that keep raw samples, or
nvbench / cuda-bench JSON). Exit 0 when compared, 1 when --fail-on matches a judged row's verdict or when no row
could be judged at all (for CI). Which rows are judged (--judge) is ``bench.diff.judged_rows``.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

__all__ = ["add_commands", "cmd_diff"]

EXIT_FAILED = 1


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
    p.add_argument("--threshold", default="5%",
                   help="smallest change that counts, as 5%% or 0.05 (default 5%%): SAME means the interval lies "
                        "inside [1/(1+t), 1+t]")
    p.add_argument("--fail-on", default=None, metavar="{slower,faster,any-change}",
                   help="exit 1 when a row is SLOWER (slower), FASTER (faster) or either (any-change); "
                        "AMBIGUOUS rows never fail")
    p.add_argument("--judge", default="repeatable", metavar="{repeatable,all}",
                   help="which rows' verdicts count (--fail-on, counts): repeatable (default: of a measure record, "
                        "the rows that repeat between processes: x ref, held, cold and device-bound rows; every row "
                        "of other records) or all; the others are shown, marked (not judged)")
    p.add_argument("--json", metavar="PATH", help="write the diff record (rows, environments, counts)")
    p.add_argument("--plot", metavar="STEM", help="write STEM.png and STEM.svg: a forest plot of the rows")
    p.add_argument("--seed", default="0", help="seed of the bootstrap (default 0: the same files give the same "
                                               "intervals)")
    p.add_argument("--pair", nargs=2, action="append", default=[], metavar=("A_ROW", "B_ROW"),
                   help="compare row A_ROW of A with row B_ROW of B besides the rows of one label (repeatable): "
                        "e.g. an nvbench JSON's 'saxpy [Elements=2^20]: cold GPU' against a cugraphlab row")
    p.add_argument("--allow-config", default="", metavar="KEY,...",
                   help="compare records whose configurations differ in these keys (or 'all'); by default records "
                        "of different configurations are refused, saying what differs")
    p.set_defaults(handler=cmd_diff)


def _fail_on(text):
    from ..bench.diff import FAIL_ON
    from ..core.errors import InvalidArgumentError

    if text is None or text in FAIL_ON:
        return text
    raise InvalidArgumentError(f"--fail-on must be one of {', '.join(FAIL_ON)}, got {text!r}")


def _seed(text) -> int:
    """The bootstrap's seed, by the rule of every --seed (``cli.args.seed_arg``: 0 to 2**64 - 1, 2^K accepted)."""
    from ..core.errors import InvalidArgumentError
    from .args import seed_arg

    try:
        return seed_arg(str(text))
    except argparse.ArgumentTypeError as e:
        raise InvalidArgumentError(f"--seed: {e}") from None


def _check_writable(path: Path, option: str) -> None:
    """One line (InvalidArgumentError) unless ``path`` can be written: not a directory, and a writable file or the
    nearest existing folder above it writable (report.files creates the missing folders)."""
    from ..core.errors import InvalidArgumentError

    if path.is_dir():
        raise InvalidArgumentError(f"{option} {path} is a directory")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise InvalidArgumentError(f"{option} {path} is not writable")
        return
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InvalidArgumentError(f"{option} {path}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InvalidArgumentError(f"{option} {path}: folder {parent} is not writable")


def _check_outputs(args) -> None:
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
        _check_writable(path, option)


def cmd_diff(args: argparse.Namespace) -> int:
    """Check the options and outputs, read both records, compare, print; write JSON and the figure if asked.

    Returns 0, or 1 when ``--fail-on`` matches. Bad input raises InvalidArgumentError (the CLI: one line, exit 2).
    """
    from ..bench.diff import check_judge, diff_records, parse_threshold, read_record_file
    from ..report.diff import render_diff

    threshold = parse_threshold(args.threshold)
    fail_on = _fail_on(args.fail_on)
    judge = check_judge(args.judge)
    seed = _seed(args.seed)
    _check_outputs(args)
    if args.plot:
        from ..report.diff import require_matplotlib

        require_matplotlib()
    allow = _allow_config(args.allow_config)
    a, b = read_record_file(args.a), read_record_file(args.b)
    result = diff_records(a, b, threshold=threshold, seed=seed, a_name=args.a, b_name=args.b,
                          pairs=[tuple(p) for p in args.pair], allow_config=allow, judge=judge)
    print(render_diff(result))
    written = []
    if args.plot:
        from ..report.diff import plot_diff

        written += plot_diff(result, args.plot)
    if args.json:
        from ..report.files import write_json

        written.append(write_json(args.json, result))
    from .args import written as written_text

    for path in written:
        print(f"written: {written_text(path)}")
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
    return 0


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
