"""``cugraphlab show RECORD.json [--plot STEM] [--plain]``: a saved record printed as the command that wrote it printed
it, and its figures; no GPU needed (argparse only: report.show renders).

Any record a command wrote (``--json``) and every record committed under ``benchmarks/results/``: the kinds the
package writes by their command's own report, the studies' and benchmark scripts' records plainly (fields, rows,
samples, the records inside them by their kinds). ``--plot STEM`` draws what the command draws for timeline,
sweep, compare, scale, scaling and diff records; ``--plain`` shows any JSON object plainly, whatever its kind or
schema. A JSON list, and a record of an older schema or shape than this version rebuilds, are shown plainly under a
first line saying why, so every record committed under ``benchmarks/results/`` shows. Exit 0 when shown; 2, in one
line, when the file cannot be read, is not JSON or not a JSON object or list, is of a newer schema than this
version reads (``--plain`` still shows it), or ``--plot`` asks a kind that draws nothing.
"""
from __future__ import annotations

from ..core.errors import EXIT_OK
from .args import add_plot

__all__ = ["add_commands", "cmd_show"]


def add_commands(sub, common) -> None:
    """Register ``show`` on the subparsers ``sub`` (``common``: the parent parser holding --trace)."""
    p = sub.add_parser("show", parents=[common],
                       help="print a saved record (--json, benchmarks/results/) as its command printed it, and "
                            "draw its figures; no GPU needed")
    p.add_argument("record", metavar="RECORD.json", help="a record file written by a command's --json, or committed")
    add_plot(p, "also draw its figures to STEM... (timeline, sweep, compare, scale, scaling and diff records; "
                "needs matplotlib)")
    p.add_argument("--plain", action="store_true",
                   help="show the fields, rows and samples plainly, whatever the kind or schema")
    p.set_defaults(handler=cmd_show)


def cmd_show(args) -> int:
    """Read, check --plot against the kind, draw, print; 0, or RecordError (one line, exit 2)."""
    from ..bench.records.record import RecordError
    from ..report.plain import render_plain
    from ..report.show import has_plot, json_type_words, plot_record, read_shown, render_record

    data = read_shown(args.record)
    if args.plain:
        if isinstance(data, list):
            print(render_plain({"items": data}, f"{args.record}: a JSON list of {len(data)} item(s), shown plainly"))
            return EXIT_OK
        if not isinstance(data, dict):
            raise RecordError(f"{args.record} holds {json_type_words(data)}, not a record (a JSON object)")
        print(render_plain(data, f"{args.record}: {data.get('kind', 'no kind')}, its fields shown plainly"))
        return EXIT_OK
    if args.plot:
        kind = data.get("kind") if isinstance(data, dict) else None
        if not has_plot(kind):
            raise RecordError(f"--plot: {args.record} ({kind or 'no kind'}) has no figure; the records that draw are "
                              f"timeline, sweep, compare, scale, scaling and diff")
    try:
        written = plot_record(data, args.plot, source=args.record) if args.plot else []
        text = render_record(data, source=args.record, plain_fallback=True)
    except RecordError as e:
        if "--plain" in str(e) or not isinstance(data, dict):
            raise
        raise RecordError(f"{e}; cugraphlab show --plain shows its fields") from None
    print(text)
    if written:
        from .args import announce

        announce("figures", written)
    return EXIT_OK
