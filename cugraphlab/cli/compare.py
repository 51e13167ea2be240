"""The compare family: ``compare`` (every Python stack launching the same chain, each in its own process), and the
baselines ``run --compare`` prints under the run table."""
from __future__ import annotations


from .args import (add_csv, add_device, add_iters, add_json, add_ops, add_plot, add_repeats, add_scalar, add_seed,
                   count_arg, nothing_measured, save_json, size_list_arg)

__all__ = ["add_commands", "run_baselines"]


def add_commands(sub, common) -> None:
    from ..bench.compare.registry import STACKS

    c = sub.add_parser("compare", parents=[common],
                       help="every Python way to launch the chain (each stack in its own process), side by side")
    c.add_argument("--size", type=size_list_arg, action="extend", default=None, metavar="N[,N...]",
                   help="float32 elements; repeatable or a comma list, 2^K accepted (default 1048576 and 1024)")
    add_iters(c, 5000, "chain iterations per timed loop, and launches per launch loop")
    add_ops(c)
    add_scalar(c)
    add_repeats(c)
    add_device(c)
    add_seed(c)
    c.add_argument("--stacks", default=None, metavar="A,B,...",
                   help="which stacks (default all): " + ", ".join(STACKS))
    c.add_argument("--rounds", type=count_arg, default=2,
                   help="passes over all stacks, each stack in a fresh process per pass (default 2)")
    c.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per worker process (default 900)")
    c.add_argument("--classic", action="store_true", help="also print the classic eager/graph/speedup table")
    add_json(c, "write the full record (rows, versions, environment)")
    add_csv(c, "write the rows as CSV")
    add_plot(c)
    c.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    c.set_defaults(handler=cmd_compare)


def cmd_compare(args) -> int:
    """Run the comparison, print the leaderboard, write the files asked for; 0 when every measured row is
    bit-exact, 2 (one line) when nothing could be measured."""
    from ..bench.compare import DEFAULT_SIZES, compare, validate_compare
    from ..core.device import device_count
    from ..report.compare import render_classic, render_compare

    sizes = list(dict.fromkeys(args.size)) if args.size else list(DEFAULT_SIZES)
    # every check before any worker starts: bad input is one line and exit 2
    validate_compare(sizes, args.iters, args.ops, args.repeats, args.device, args.scalar, args.stacks, args.rounds,
                     None, 0, args.timeout)
    if args.plot:
        from ..report.plots import PlotUnavailableError, matplotlib_missing

        if matplotlib_missing():
            raise PlotUnavailableError("--plot needs matplotlib: pip install matplotlib (or drop --plot)")
    device_count()  # no driver or no GPU: one line now, not a worker per stack failing one by one
    from ..report.progress import line_progress

    progress = None if args.quiet else line_progress(desc="compare")
    result = compare(sizes, args.iters, args.ops, args.repeats, args.device, scalar=args.scalar, seed=args.seed,
                     stacks=args.stacks, rounds=args.rounds, timeout_s=args.timeout, progress=progress)
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
        from ..report.files import write_csv

        write_csv(args.csv, result.csv_rows())
        print(f"rows written to {args.csv}")
    if args.plot:
        from ..report.plots.compare import plot_compare_stacks

        paths = plot_compare_stacks(result, args.plot)
        print("figures written to " + ", ".join(str(p) for p in paths))
    return 0 if result.ok else 1


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
