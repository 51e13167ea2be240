"""The memnodes family: ``memnodes`` (graph memory nodes: the chain's intermediates allocated inside the graph,
measured against the preallocated chain; the footprint attributes step by step). Argparse only: bench.graphs.memnodes
measures, report.memnodes renders."""
from __future__ import annotations

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import add_device, add_iters, add_json, add_repeats, add_seed, count_arg, save_json, size_arg

__all__ = ["add_commands", "cmd_memnodes", "SHAPES"]

#: experiment.memchain.MEMCHAIN_SHAPES, spelled here so parsing imports no experiment (a test keeps them equal).
SHAPES = ("line", "parallel", "parallel_end", "block")


def add_commands(sub, common) -> None:
    """Register ``memnodes`` on the subparsers ``sub`` (``common``: the parent parser holding --trace)."""
    p = sub.add_parser("memnodes", parents=[common],
                       help="graph memory nodes: intermediates allocated in the graph vs preallocated; footprint")
    p.add_argument("--size", type=size_arg, action="append", default=None,
                   help="float32 elements, 2^K accepted; repeat for several sizes (default: 1,048,576 and 1,024)")
    p.add_argument("--shape", choices=SHAPES, action="append", default=None,
                   help="the memory-node chain's shapes timed in steady state, repeatable; line is always timed "
                        "(default: all four)")
    add_iters(p, 5000, "launches per timed loop")
    add_repeats(p, 5, "timed loops per way")
    p.add_argument("--first-samples", type=count_arg, default=10,
                   help="fresh executables per first-launch row (default 10)")
    add_device(p)
    add_seed(p)
    add_json(p)
    p.set_defaults(handler=cmd_memnodes)


def cmd_memnodes(args) -> int:
    """Measure, print the report, write the record if asked; 0 when every check held, 1 otherwise."""
    from ..bench.graphs.memnodes import DEFAULT_SIZES, measure_memnodes
    from ..report.memnodes import render_memnodes

    sizes = args.size or list(DEFAULT_SIZES)
    kw = {"shapes": args.shape} if args.shape else {}
    result = measure_memnodes(args.device, sizes, args.iters, args.repeats, first_samples=args.first_samples,
                              seed=args.seed, **kw)
    print(render_memnodes(result))
    save_json(args.json, result)
    return EXIT_OK if result.verified else EXIT_FAILED
