"""The pdl family: ``pdl`` (programmatic dependent launch: the chain plain vs PDL, eager and as a graph)."""
from __future__ import annotations

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import add_device, add_iters, add_json, add_repeats, add_seed, add_size, count_arg, save_json

__all__ = ["add_commands"]


def add_commands(sub, common) -> None:
    pd = sub.add_parser("pdl", parents=[common],
                        help="programmatic dependent launch: the chain plain vs PDL, eager and as a graph (sm_90+)")
    add_size(pd)
    add_iters(pd)
    add_repeats(pd, 5, "timed loops per way")
    pd.add_argument("--unroll", type=count_arg, default=1, help="chain iterations per graph (default 1)")
    add_device(pd)
    add_seed(pd)
    add_json(pd)
    pd.set_defaults(handler=cmd_pdl)


def cmd_pdl(args) -> int:
    from ..bench.graphs.pdl import measure_pdl
    from ..core.errors import InvalidArgumentError
    from ..report.pdl import render_pdl

    if args.iters % args.unroll:
        raise InvalidArgumentError(f"--iters ({args.iters}) must be a multiple of --unroll ({args.unroll})")
    result = measure_pdl(args.device, args.size, args.iters, args.repeats, unroll=args.unroll, seed=args.seed)
    print(render_pdl(result))
    save_json(args.json, result)
    return EXIT_OK if result.verified else EXIT_FAILED
