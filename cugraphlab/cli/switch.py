"""``cugraphlab switch``: IF/ELSE and SWITCH conditional nodes around the chain, measured and checked (argparse
only; the measurement and the text are imported in the handler)."""
from __future__ import annotations

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import add_json, add_seed, count_list_arg, device_index_arg, iters_arg
from .args import count_arg as positive_int_arg

__all__ = ["add_commands", "cmd_switch"]


def add_commands(sub, common) -> None:
    """Register ``switch`` on the subparsers ``sub``; ``common`` is the parent parser holding ``--trace``."""
    p = sub.add_parser("switch", parents=[common],
                       help="IF/ELSE and SWITCH conditional nodes (CUDA 12.8+): K branches vs K IF nodes, "
                            "one SWITCH for K sizes vs K graphs")
    p.add_argument("--size", type=positive_int_arg, default=1 << 20, help="float32 elements (default 1,048,576)")
    p.add_argument("--branches", type=positive_int_arg, default=4,
                   help="bodies of the SWITCH, and problem sizes of the sizes SWITCH (2..8, default 4)")
    p.add_argument("--iters", type=iters_arg, default=2000, help="launches per timed loop (default 2000)")
    p.add_argument("--repeats", type=positive_int_arg, default=15,
                   help="rounds: every graph timed once per round, order rotated; 6 or more for a paired verdict "
                        "(default 15)")
    p.add_argument("--sweep", type=count_list_arg, default=[1, 2, 3, 4, 8], metavar="K,K,...",
                   help="body counts of the SWITCHes over identical chains that take the SWITCH's cost apart "
                        "(1..8, default 1,2,3,4,8)")
    p.add_argument("--no-sweep", dest="sweep", action="store_const", const=[], help="no identical-chains sweep")
    p.add_argument("--holding-repeats", type=positive_int_arg, default=30,
                   help="instantiate rounds of the holding costs (default 30)")
    p.add_argument("--holding-batch", type=positive_int_arg, default=256,
                   help="copies of each set added per memory round, all held to the end: cuMemGetInfo's 2 MiB "
                        "step over this is the memory resolution per set (1..1024, default 256)")
    p.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    add_seed(p)
    add_json(p, "write the full record (kind cugraphlab.switch)")
    p.set_defaults(handler=cmd_switch)


def cmd_switch(args) -> int:
    """Measure, print the table, write the record if asked; 0 when every check passed, 1 otherwise."""
    from ..bench.graphs.switch import measure_switch
    from ..core.errors import InvalidArgumentError
    from ..experiment.branches import MAX_BRANCHES
    from ..report.switch import render_switch

    if not 2 <= args.branches <= MAX_BRANCHES:  # before touching the GPU
        raise InvalidArgumentError(f"--branches must be 2..{MAX_BRANCHES}, got {args.branches}")
    if any(not 1 <= k <= MAX_BRANCHES for k in args.sweep):
        raise InvalidArgumentError(f"--sweep counts must be 1..{MAX_BRANCHES}, got {args.sweep}")
    if args.holding_batch > 1024:
        raise InvalidArgumentError(f"--holding-batch must be 1..1024, got {args.holding_batch}")
    result = measure_switch(args.device, args.size, args.branches, args.iters, args.repeats, seed=args.seed,
                            sweep=tuple(args.sweep), holding_repeats=args.holding_repeats,
                            holding_batch=args.holding_batch)
    print(render_switch(result))
    from .args import save_json

    save_json(args.json, result)
    return EXIT_OK if result.verified else EXIT_FAILED
