"""The scaling family: ``cugraphlab scaling``, what a graph costs as it grows. Parsing only.

    cugraphlab scaling [--lengths 1,2,...,4096] [--widths 1,2,4,8,16] [--work empty|chain] [--topology line,forkjoin]
                       [--quick] [--repeats N] [--rounds N] [--budget S] [--size N] [--device N] [--seed N]
                       [--json PATH] [--csv PATH] [--plot STEM]

Bad input (an unknown work or topology, a length out of range) raises InvalidArgumentError from
``bench.scaling.plan.make_plan`` before any GPU work: one line, exit 2. Exit 0 when every point had the expected graph,
ran bit-exact (chain work) and released its hold; 1 otherwise.
"""
from __future__ import annotations

import argparse
import sys

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import add_csv, add_device, add_json, add_plot, add_seed, count_arg, count_list_arg, seconds_arg

__all__ = ["add_commands", "cmd_scaling"]



def add_commands(sub, common) -> argparse.ArgumentParser:
    """Register ``scaling`` on ``sub`` (argparse subparsers) with the ``common`` parent options."""
    p = sub.add_parser("scaling", parents=[common],
                       help="what a graph costs as it grows: capture, build, instantiate, upload, launch and device "
                            "time against node count, with fits, graph launch against NVIDIA's model (CUDA 12.6+: "
                            "about 2.5 µs + 1 ns per node), break-even, and Python against C paired (instantiate, "
                            "held launch)")
    p.add_argument("--lengths", type=count_list_arg, default=None,
                   help="units per graph (empty kernels, or chain iterations), a comma list "
                        "(default 1,2,4,...,4096; --quick: 1,4,16,64,256,1024)")
    p.add_argument("--widths", type=count_list_arg, default=None,
                   help="fork/join branches, a comma list (default 1,2,4,8,16; --quick: 1,4)")
    p.add_argument("--work", default="empty", help="empty (the empty kernel; default) or chain (4 kernels a unit)")
    p.add_argument("--topology", default="line,forkjoin", help="line, forkjoin or both (default line,forkjoin)")
    p.add_argument("--quick", action="store_true", help="a small sweep, under 30 s")
    p.add_argument("--repeats", type=count_arg, default=None,
                   help="at least this many samples per cost and point (default 5, --quick 3); more are taken "
                        "until the median is known within 2%% or the time cap")
    p.add_argument("--rounds", type=count_arg, default=None,
                   help="rounds of held launches over every point, Python and C paired behind the same hold "
                        "(default 4, --quick 3)")
    p.add_argument("--budget", type=seconds_arg, default=None,
                   help="seconds the sweep aims at, shared out as a time cap per set of samples (default 120, "
                        "--quick 12)")
    p.add_argument("--size", type=count_arg, default=1024, help="float32 elements of the chain (default 1024)")
    add_device(p)
    add_seed(p)
    add_json(p, "write the full record (points, raw samples per point and cost, fits, verdicts, env, clocks)")
    add_csv(p, "write one row per point as CSV")
    add_plot(p, "write STEM.png and STEM.svg: each cost against nodes, log-log, with the fitted lines")
    p.set_defaults(handler=cmd_scaling)
    return p


def plan_from_args(args):
    """The checked plan (InvalidArgumentError on bad input, before any GPU work)."""
    from ..bench.scaling.plan import make_plan

    return make_plan(args.lengths, args.widths, work=args.work, topologies=args.topology, quick=args.quick,
                     repeats=args.repeats, budget_s=args.budget, size=args.size, rounds=args.rounds)


def cmd_scaling(args) -> int:
    from ..bench.scaling.sweep import measure_scaling
    from ..core.device import device_count
    from ..report.scaling import csv_rows, plot_scaling, render_scaling, write_scaling_json

    plan = plan_from_args(args)
    device_count()  # no driver or no GPU: its one line now, before the plan's line promises a sweep

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    progress(f"scaling: {len(plan.shapes)} points, about {plan.budget_s:.0f} s")
    result = measure_scaling(args.device, plan, seed=args.seed, progress=progress)
    written = []
    if args.plot:
        written += plot_scaling(result, args.plot)
    if args.json:
        written.append(write_scaling_json(args.json, result.to_dict()))
    if args.csv:
        from ..core.files import write_csv

        written.append(write_csv(args.csv, csv_rows(result)))
    print(render_scaling(result))
    if written:
        from .args import announce

        announce("files", written)
    return EXIT_OK if result.verified else EXIT_FAILED
