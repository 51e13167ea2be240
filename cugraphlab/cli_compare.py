"""The ``compare`` command (and ``run --compare``'s helper), to paste into ``cli.py``.

``add_compare_command(sub, common)`` registers the parser; ``cmd_compare(args)`` runs it; ``run_baselines(args,
ops)`` is what ``run --compare`` calls. The three small argument types below exist in cli.py already
(``size_list_arg``, ``positive_int_arg``, ``device_index_arg``): when pasting, use cli.py's and drop these.
"""
from __future__ import annotations


from .cli_args import device_index_arg, positive_int_arg, size_list_arg

__all__ = ["add_compare_command", "cmd_compare", "run_baselines", "EXIT_MISMATCH"]

EXIT_MISMATCH = 1  # cli.py's EXIT_CUDA when pasted: a measured way was not bit-exact


def add_compare_command(sub, common) -> None:
    """Register ``cugraphlab compare`` on the subparsers ``sub`` with the shared options ``common``."""
    from .bench.stacks import STACKS

    c = sub.add_parser("compare", parents=[common],
                       help="every Python way to launch the chain (each stack in its own process), side by side")
    c.add_argument("--size", type=size_list_arg, action="extend", default=None, metavar="N[,N...]",
                   help="float32 elements; repeatable or a comma list, 2^K accepted (default 1048576 and 1024)")
    c.add_argument("--iters", type=positive_int_arg, default=5000,
                   help="chain iterations per timed loop, and launches per launch loop (default 5000)")
    c.add_argument("--ops", default="add,mul,sub,relu", help="comma-separated chain (default add,mul,sub,relu)")
    c.add_argument("--scalar", type=float, default=2.0, help="the factor of mul (default 2.0)")
    c.add_argument("--repeats", type=positive_int_arg, default=5, help="timed loops per mode (default 5)")
    c.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    c.add_argument("--seed", type=int, default=None, help="seed of the random inputs (default: drawn once)")
    c.add_argument("--stacks", default=None, metavar="A,B,...",
                   help="which stacks (default all): " + ", ".join(STACKS))
    c.add_argument("--rounds", type=positive_int_arg, default=2,
                   help="passes over all stacks, each stack in a fresh process per pass (default 2)")
    c.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per worker process (default 900)")
    c.add_argument("--classic", action="store_true", help="also print the classic eager/graph/speedup table")
    c.add_argument("--json", metavar="PATH", help="write the full record (rows, versions, environment)")
    c.add_argument("--csv", metavar="PATH", help="write the rows as CSV")
    c.add_argument("--plot", metavar="STEM", help="draw the figure to STEM.png and STEM.svg (needs matplotlib)")
    c.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def cmd_compare(args) -> int:
    """Run the comparison, print the leaderboard, write the files asked for; exit status 0 when all bit-exact."""
    import importlib.util
    import sys

    from .bench.compare import DEFAULT_SIZES, compare, validate_compare
    from .core.errors import InvalidArgumentError
    from .report.compare import render_classic, render_compare

    sizes = list(dict.fromkeys(args.size)) if args.size else list(DEFAULT_SIZES)
    # every check before any worker starts: bad input is one line and exit 2 (the CLI prints the error)
    validate_compare(sizes, args.iters, args.ops, args.repeats, args.device, args.scalar, args.stacks, args.rounds,
                     None, 0, args.timeout)
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise InvalidArgumentError("--plot needs matplotlib: pip install matplotlib (or drop --plot)")
    progress = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    result = compare(sizes, args.iters, args.ops, args.repeats, args.device, scalar=args.scalar, seed=args.seed,
                     stacks=args.stacks, rounds=args.rounds, timeout_s=args.timeout, progress=progress)
    print(render_compare(result))
    if args.classic:
        print()
        print(render_classic(result))
    if args.json:
        from .report.files import write_json

        write_json(args.json, result.to_dict())
        print(f"\nrecord written to {args.json}")
    if args.csv:
        from .report.files import write_csv

        write_csv(args.csv, result.csv_rows())
        print(f"rows written to {args.csv}")
    if args.plot:
        from .report.plots_compare import plot_compare_stacks

        paths = plot_compare_stacks(result, args.plot)
        print("figures written to " + ", ".join(str(p) for p in paths))
    return 0 if result.ok else EXIT_MISMATCH


def run_baselines(args, ops):
    """``run --compare``: cugraphlab, CuPy ufuncs and PyTorch at the run's size (own processes), printed under the
    run table; returns the record (the caller stores ``to_dict()`` under "compare")."""
    from .bench.compare import compare_baselines
    from .report.compare import render_baseline_rows

    result = compare_baselines(args.size, args.iters, ops, args.repeats, args.device, scalar=args.scalar,
                               seed=args.seed)
    print()
    print(render_baseline_rows(result, args.size))
    return result
