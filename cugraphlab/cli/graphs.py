"""The graphs family: ``graph`` (the chain's graph: nodes, edges, DOT), ``update`` (updating an instantiated graph)
and ``conditional`` (WHILE and IF nodes)."""
from __future__ import annotations

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import add_device, add_json, add_ops, add_repeats, add_seed, add_size, count_arg, finite_arg, save_json

__all__ = ["add_commands"]


def add_commands(sub, common) -> None:
    from ..experiment.graph_report import GRAPH_MODES

    g = sub.add_parser("graph", parents=[common], help="show the chain's graph (nodes, edges, layers, DOT)")
    g.add_argument("--mode", choices=GRAPH_MODES, default="capture",
                   help="how the graph is made: " + ", ".join(GRAPH_MODES) + " (default capture)")
    add_ops(g)
    add_size(g)
    g.add_argument("--dot", metavar="PATH", help="also write the driver's DOT file there (and SVG if Graphviz)")
    g.add_argument("--draw", metavar="STEM",
                   help="also draw the graph with matplotlib (no Graphviz needed): writes STEM.png and STEM.svg")
    add_device(g)
    g.add_argument("--unroll", type=count_arg, default=1,
                   help="chain iterations in the graph; with --mode while, the loop's iterations (default 1)")
    g.set_defaults(handler=cmd_graph)

    u = sub.add_parser("update", parents=[common],
                       help="cost of updating an instantiated graph vs re-instantiating vs re-capturing")
    add_size(u)
    add_repeats(u, 200, "timed updates per path")
    add_ops(u)
    add_device(u)
    add_seed(u)
    add_json(u)
    u.set_defaults(handler=cmd_update)

    cd = sub.add_parser("conditional", parents=[common],
                        help="conditional graph nodes: a WHILE loop decided on the GPU vs in Python; IF; threshold")
    add_size(cd)
    cd.add_argument("--iterations", type=count_arg, default=1000, help="loop iterations (default 1000)")
    add_repeats(cd, 10, "timed loops per way")
    cd.add_argument("--threshold", type=finite_arg, default=1000.0,
                    help="stop value of the threshold loop's running total (default 1000)")
    cd.add_argument("--pdl", action="store_true",
                    help="also the folded WHILE body with PDL kernels and programmatic edges (sm_90+)")
    cd.add_argument("--decide-every", type=count_arg, default=None, metavar="K",
                    help="also the folded body of K chain iterations with one decision counting K (K > 1 "
                         "dividing --iterations; PDL edges with --pdl)")
    add_device(cd)
    add_seed(cd)
    add_json(cd)
    cd.set_defaults(handler=cmd_conditional)


def cmd_graph(args) -> int:
    from ..experiment.graph_report import inspect_chain_graph
    from ..experiment.ops import parse_ops
    from ..report.graphs import render_graph

    ops = parse_ops(args.ops)  # fail on a bad op before touching the GPU
    draw = getattr(args, "draw", None)
    report = inspect_chain_graph(args.mode, ops, args.size, args.device, args.unroll, args.dot)
    print(render_graph(report))
    if draw:
        from ..report.plots.graphs import draw_graph
        from .args import announce

        announce("drawing", draw_graph(report.view, draw, title=report.title))
    return EXIT_OK if report.ok else EXIT_FAILED


def cmd_update(args) -> int:
    from ..bench.graphs.update import measure_update
    from ..experiment.ops import parse_ops
    from ..report.graphs import render_update

    ops = parse_ops(args.ops)
    result = measure_update(args.device, ops, args.size, args.repeats, seed=args.seed)
    print(render_update(result))
    save_json(args.json, result)
    return EXIT_OK if result.ok else EXIT_FAILED


def cmd_conditional(args) -> int:
    from ..bench.graphs.conditional import measure_while
    from ..report.graphs import render_conditional

    result = measure_while(args.device, args.size, args.iterations, args.repeats, threshold=args.threshold,
                           seed=args.seed, pdl=getattr(args, "pdl", False),
                           decide_every=getattr(args, "decide_every", None) or 0)
    print(render_conditional(result))
    save_json(args.json, result)
    return EXIT_OK if result.verified else EXIT_FAILED
