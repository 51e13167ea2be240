"""``cugraphlab devlaunch``: device graph launch measured (argparse only; bench.graphs.devlaunch measures, report renders)."""
from __future__ import annotations

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import add_device, add_json, add_repeats, add_seed, count_arg, save_json, size_list_arg

__all__ = ["add_commands", "cmd_devlaunch"]


def add_commands(sub, common) -> None:
    """Register ``devlaunch`` on the subparsers ``sub`` (``common`` holds the shared options, e.g. --trace)."""
    p = sub.add_parser(
        "devlaunch", parents=[common],
        help="device graph launch: loops the GPU drives vs WHILE, Python and an unrolled graph; launch latency",
        description="Kernels launch the chain's graph from the GPU (fire-and-forget, tail launch) and drive a loop "
                    "by tail-launching it until a counter reaches N (a decision kernel, the decision folded into "
                    "relu, or one decision every K iterations); measured beside the WHILE node, Python-driven "
                    "loops and a graph of unrolled iterations, with the latency of a device launch against a host "
                    "cuGraphLaunch and a %globaltimer timeline of where an iteration goes. Needs nvJitLink and "
                    "libcudadevrt.a (the CUDA runtime wheel).")
    p.add_argument("--size", type=size_list_arg, default=None,
                   help="float32 elements, a comma list (default 1024,1048576; 2^K accepted)")
    p.add_argument("--iterations", type=count_arg, default=1000,
                   help="iterations per loop, a multiple of --unroll (default 1000)")
    p.add_argument("--unroll", type=count_arg, default=50,
                   help="K: iterations per graph of the unrolled graph and of the self loop with a decision every "
                        "K iterations (default 50)")
    add_repeats(p, 10, "timed loops per way")
    add_device(p)
    add_seed(p)
    add_json(p, "write the full record (raw samples, environment)")
    p.set_defaults(handler=cmd_devlaunch)


def cmd_devlaunch(args) -> int:
    """Measure, print the report, write the record; 0 when every check passed, 1 otherwise."""
    from ..bench.graphs.devlaunch import DEFAULT_SIZES, measure_devlaunch
    from ..report.devlaunch import render_devlaunch

    result = measure_devlaunch(args.device, sizes=args.size or DEFAULT_SIZES, iters=args.iterations,
                               repeats=args.repeats, unroll=args.unroll, seed=args.seed)
    print(render_devlaunch(result))
    save_json(args.json, result)
    return EXIT_OK if result.verified else EXIT_FAILED
