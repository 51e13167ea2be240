"""``cugraphlab memnodes``: graph memory nodes, the chain's intermediates allocated inside the graph, measured
against the preallocated chain (bench.memnodes), rendered by report.memnodes. Argparse only."""
from __future__ import annotations

from ..cli_args import device_index_arg, positive_int_arg

__all__ = ["add_commands", "cmd_memnodes"]


def add_commands(sub, common) -> None:
    """Register ``memnodes`` on the subparsers ``sub`` (``common``: the parent parser holding --trace)."""
    p = sub.add_parser("memnodes", parents=[common],
                       help="graph memory nodes: intermediates allocated in the graph vs preallocated; footprint")
    p.add_argument("--size", type=positive_int_arg, action="append", default=None,
                   help="float32 elements; repeat for several sizes (default: 1,048,576 and 1,024)")
    p.add_argument("--iters", type=positive_int_arg, default=5000, help="launches per timed loop (default 5000)")
    p.add_argument("--repeats", type=positive_int_arg, default=5, help="timed loops per way (default 5)")
    p.add_argument("--first-samples", type=positive_int_arg, default=10,
                   help="fresh executables per first-launch row (default 10)")
    p.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    p.add_argument("--seed", type=int, default=None, help="seed of the random inputs")
    p.add_argument("--json", metavar="PATH", help="write the full record")
    p.set_defaults(handler=cmd_memnodes)


def cmd_memnodes(args) -> int:
    """Measure, print the report, write the record if asked; 0 when every check held, 1 otherwise."""
    from ..bench.memnodes import DEFAULT_SIZES, measure_memnodes
    from ..report.memnodes import render_memnodes

    sizes = args.size or list(DEFAULT_SIZES)
    result = measure_memnodes(args.device, sizes, args.iters, args.repeats, first_samples=args.first_samples,
                              seed=args.seed)
    print(render_memnodes(result))
    if args.json:
        from ..report.files import write_json

        write_json(args.json, result)
        print(f"record written to {args.json}")
    return 0 if result.verified else 1
