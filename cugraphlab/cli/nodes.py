"""``cugraphlab nodes``: the node-family lessons (host, event, child, controls) checked and measured.

    cugraphlab nodes [--lesson host|event|child|controls|all] [--size N] [--repeats N] [--device N] [--json PATH]

Exit 0: measured and every check bit-exact; 1: a check failed; 2: bad input or a missing feature (one line).
"""
from __future__ import annotations

import argparse

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import add_json, add_seed, device_index_arg, iters_arg
from .args import count_arg as positive_int_arg

__all__ = ["add_commands", "cmd_nodes", "LESSON_CHOICES"]

LESSON_CHOICES = ("host", "event", "child", "controls", "all")


def add_commands(sub, common) -> argparse.ArgumentParser:
    """Register ``nodes`` on ``sub`` (argparse subparsers) with the ``common`` parent options."""
    p = sub.add_parser("nodes", parents=[common],
                       help="host, event, child-graph and empty nodes, node controls: checked and measured")
    p.add_argument("--lesson", choices=LESSON_CHOICES, default="all", help="which lesson (default all)")
    p.add_argument("--size", type=positive_int_arg, default=1 << 20, help="float32 elements (default 1048576)")
    p.add_argument("--repeats", type=positive_int_arg, default=10, help="samples per row (default 10)")
    p.add_argument("--iters", type=iters_arg, default=200,
                   help="graph launches per device sample (default 200)")
    p.add_argument("--calls", type=positive_int_arg, default=1000,
                   help="driver calls per host sample (default 1000)")
    p.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    add_seed(p)
    add_json(p, "write the full record (rows, raw samples, checks, environment)")
    p.set_defaults(handler=cmd_nodes)
    return p


def lessons_of(choice: str) -> tuple[str, ...]:
    return ("host", "event", "child", "controls") if choice == "all" else (choice,)


def cmd_nodes(args) -> int:
    from ..bench.graphs.nodes import measure_nodes
    from ..report.nodes import render_nodes

    result = measure_nodes(args.device, args.size, args.repeats, lessons_to_run=lessons_of(args.lesson),
                           iters=args.iters, calls=args.calls, seed=args.seed)
    print(render_nodes(result))
    from .args import save_json

    save_json(args.json, result)
    return EXIT_OK if result.verified else EXIT_FAILED
