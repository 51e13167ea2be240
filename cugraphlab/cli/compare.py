"""The compare family: ``compare`` (every Python stack launching the same chain, each in its own process), and the
baselines ``run --compare`` prints under the run table."""
from __future__ import annotations

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import (
    add_csv,
    add_device,
    add_json,
    add_ops,
    add_plot,
    add_scalar,
    add_seed,
    announce,
    count_arg,
    iters_arg,
    name_list_arg,
    nothing_measured,
    save_json,
    seconds_arg,
    size_list_arg,
)

__all__ = ["add_commands", "run_baselines", "resolve_preset"]

#: Fresh contexts of the default paired section: launch cost has per-context modes, so the interval of a paired
#: ratio narrows with the number of contexts (3 gave about +-1.2% on the H200; 8 costs ~20 s more per run).
PAIRED_CONTEXTS = 8


def add_commands(sub, common) -> None:
    from ..bench.compare.registry import STACKS

    c = sub.add_parser("compare", parents=[common],
                       help="every Python way to launch the chain (each stack in its own process), side by side")
    c.add_argument("--size", type=size_list_arg, action="extend", default=None, metavar="N[,N...]",
                   help="float32 elements; repeatable or a comma list, 2^K accepted (default 1048576 and 1024)")
    c.add_argument("--iters", type=iters_arg, default=None,
                   help="chain iterations per timed loop, and launches per launch loop (default 5000; --quick 1000)")
    add_ops(c)
    add_scalar(c)
    c.add_argument("--repeats", type=count_arg, default=None, help="timed loops per mode (default 5; --quick 3)")
    add_device(c)
    add_seed(c)
    c.add_argument("--stacks", type=name_list_arg, default=None, metavar="A,B,...",
                   help="which stacks (default all): " + ", ".join(STACKS))
    c.add_argument("--rounds", type=count_arg, default=2,
                   help="passes over all stacks, each stack in a fresh process per pass (default 2)")
    c.add_argument("--timeout", type=seconds_arg, default=900.0, help="seconds allowed per worker process (default 900)")
    c.add_argument("--classic", action="store_true", help="also print the classic eager/graph/speedup table")
    add_json(c, "write the full record (rows, versions, environment)")
    add_csv(c, "write the rows as CSV")
    add_plot(c)
    c.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    c.add_argument("--paired-contexts", type=count_arg, default=None,
                   help="fresh contexts of the paired section (the ways sharing one context, interleaved; default 8, "
                        "--quick 2)")
    c.add_argument("--no-paired", action="store_true", help="leave out the paired section")
    c.add_argument("--quick", action="store_true",
                   help="a classroom run under a minute: 1,024 floats, 1,000 iterations x 3 repeats, 2 rounds, the "
                        "stacks that share cugraphlab's cubin plus CuPy and PyTorch, 2 paired contexts")
    c.set_defaults(handler=cmd_compare)


def cmd_compare(args) -> int:
    """Run the comparison, print the leaderboard, write the files asked for; 0 when every measured row is
    bit-exact, 2 (one line) when nothing could be measured."""
    from ..bench.compare import DEFAULT_SIZES, compare_checked, validate_compare
    from ..core.device import device_count
    from ..core.errors import InvalidArgumentError
    from ..report.compare import render_classic, render_compare

    if args.no_paired and args.paired_contexts is not None:  # taken and ignored would be worse than refused
        raise InvalidArgumentError("--paired-contexts sizes the paired section, and --no-paired leaves it out: give "
                                   "one of them")
    resolve_preset(args)
    # every check before any worker starts, once: bad input is one line and exit 2; the config checked is the one run
    config = validate_compare(size=args.size or DEFAULT_SIZES, iters=args.iters, ops=args.ops, repeats=args.repeats,
                              device=args.device, scalar=args.scalar, stacks=args.stacks, rounds=args.rounds,
                              timeout_s=args.timeout)
    device_count()  # no driver or no GPU: one line now, not a worker per stack failing one by one
    from ..report.progress import line_progress

    progress = None if args.quiet else line_progress(desc="compare")
    result = compare_checked(config, seed=args.seed, progress=progress,
                             paired_contexts=0 if args.no_paired else args.paired_contexts)
    if not result.measured_rows:
        raise nothing_measured("no stack ran: " + result.failure_summary())
    print(render_compare(result))
    if args.classic:
        print()
        print(render_classic(result))
    if args.json:
        print()
    save_json(args.json, result)
    if args.csv:
        from ..core.files import write_csv

        write_csv(args.csv, result.csv_rows())
        announce("rows", args.csv)
    if args.plot:
        from ..report.plots.compare import plot_compare_stacks

        paths = plot_compare_stacks(result, args.plot)
        announce("figures", paths)
    return EXIT_OK if result.ok else EXIT_FAILED


def resolve_preset(args):
    """Fill the options left out with the defaults, or with ``--quick``'s preset; options given always win."""
    from ..bench.compare.registry import QUICK_STACKS

    quick = getattr(args, "quick", False)
    args.size = args.size or ([1024] if quick else None)
    args.iters = args.iters or (1000 if quick else 5000)
    args.repeats = args.repeats or (3 if quick else 5)
    args.stacks = args.stacks or (",".join(QUICK_STACKS) if quick else None)
    args.paired_contexts = args.paired_contexts or (2 if quick else PAIRED_CONTEXTS)
    return args


def run_baselines(args, ops):
    """``run --compare``: cugraphlab, CuPy ufuncs and PyTorch at the run's size (own processes), printed under the
    run table; returns the record."""
    from ..bench.compare import compare_baselines
    from ..report.compare import render_baseline_rows

    result = compare_baselines(args.size, args.iters, ops, args.repeats, args.device, scalar=args.scalar,
                               seed=args.seed)
    print()
    print(render_baseline_rows(result, args.size))
    return result
