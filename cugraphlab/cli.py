"""Command line. Parsing only: each command parses, calls a measurement (bench, experiment or core), hands its record
to a renderer (report) and prints; bad input is one line on stderr and exit 2."""
from __future__ import annotations

import argparse
import sys

from .cli_args import device_index_arg, positive_int_arg, size_list_arg

from .core.errors import (
    CompileError,
    CudaError,
    CugraphlabError,
    InvalidArgumentError,
    NoDeviceError,
    UnsupportedError,
)

__all__ = ["main", "build_parser"]

EXIT_USAGE = 2  # bad input, no GPU, compile error: one clear line, like argparse's own errors
EXIT_CUDA = 1  # the driver failed on good input


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true",
                        help="print every driver and NVRTC call made (arguments, result, duration) to stderr")
    p = argparse.ArgumentParser(prog="cugraphlab",
                                description="What a kernel launch costs from Python, and what a CUDA graph saves.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", parents=[common], help="the classic experiment: a 4-op chain eager vs graph vs fused")
    run.add_argument("--size", type=positive_int_arg, default=1 << 20, help="float32 elements (default 1,048,576)")
    run.add_argument("--iters", type=positive_int_arg, default=5000, help="iterations per timed loop (default 5000)")
    run.add_argument("--ops", default="add,mul,sub,relu", help="comma-separated chain (default add,mul,sub,relu)")
    run.add_argument("--scalar", type=float, default=2.0, help="the factor of mul (default 2.0)")
    run.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    run.add_argument("--repeats", type=positive_int_arg, default=5, help="timed loops per mode (default 5)")
    run.add_argument("--unroll", type=positive_int_arg, default=1,
                     help="also time a graph holding this many iterations (default 1: off)")
    run.add_argument("--seed", type=int, default=None, help="seed of the random inputs")
    run.add_argument("--json", metavar="PATH", help="write the full record (samples' statistics, environment)")
    run.add_argument("--compare", action="store_true",
                     help="also time the same chain in CuPy and PyTorch (where installed) and show their rows")

    info = sub.add_parser("info", parents=[common], help="devices, driver, versions and the compile cache")
    info.add_argument("--device", type=device_index_arg, default=None, help="only this device")

    comp = sub.add_parser("compile", parents=[common], help="compile the kernel set (no GPU needed)")
    comp.add_argument("--arch", default=None, help="sm_XY or compute_XY (default: the GPU's, else the newest known)")
    comp.add_argument("--ptx", action="store_true", help="PTX instead of cubin")
    comp.add_argument("--no-cache", action="store_true", help="compile even when the cache has the result")
    _add_graph_commands(sub, common)
    _add_compare_command(sub, common)
    _add_measure_commands(sub, common)
    _add_pdl_commands(sub, common)
    from .cli_scale import add_scale_command

    add_scale_command(sub, common)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    tracer = None
    if getattr(args, "trace", False):
        from .core._calls import tracing

        tracer = tracing(sys.stderr)
    try:
        return _handlers()[args.command](args)
    except NoDeviceError as e:
        print(f"cugraphlab {args.command}: no usable GPU: {e}", file=sys.stderr)
        return EXIT_USAGE
    except CompileError as e:
        print(f"cugraphlab {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except InvalidArgumentError as e:
        print(f"cugraphlab {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except UnsupportedError as e:  # the GPU, driver or bindings lack a feature: say which, like bad input
        print(f"cugraphlab {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except CudaError as e:
        print(f"cugraphlab {args.command}: CUDA driver error: {e}", file=sys.stderr)
        return EXIT_CUDA
    except CugraphlabError as e:
        print(f"cugraphlab {args.command}: {e}", file=sys.stderr)
        return EXIT_CUDA
    finally:
        if tracer is not None:
            tracer.stop()


def _handlers() -> dict:
    return {"run": _cmd_run, "info": _cmd_info, "compile": _cmd_compile, "latency": _cmd_latency,
            "timeline": _cmd_timeline, "sweep": _cmd_sweep, "compare": _cmd_compare, "graph": _cmd_graph,
            "update": _cmd_update, "pdl": _cmd_pdl, "conditional": _cmd_conditional, "scale": _cmd_scale}


def _cmd_scale(args) -> int:
    from .cli_scale import cmd_scale

    return cmd_scale(args)


def _cmd_run(args) -> int:
    from .bench.experiment import run_experiment
    from .experiment.ops import parse_ops
    from .report.run import render_run

    ops = parse_ops(args.ops)  # fail on a bad op before touching the GPU
    result = run_experiment(size=args.size, iters=args.iters, ops=ops, scalar=args.scalar, device=args.device,
                            repeats=args.repeats, unroll=args.unroll, seed=args.seed)
    print(render_run(result))
    baselines = _run_baselines(args, ops) if getattr(args, "compare", False) else None
    if args.json:
        from .report.files import write_json

        record = result.to_dict()
        if baselines is not None:
            record["compare"] = baselines.to_dict()
        write_json(args.json, record)
        print(f"\nrecord written to {args.json}")
    ok = all(m.verified for m in result.modes) and (baselines is None or baselines.ok)
    return 0 if ok else EXIT_CUDA


def _cmd_info(args) -> int:
    from .bench.environment import system_info
    from .report.run import render_info

    print(render_info(system_info(args.device)))
    return 0


def _add_graph_commands(sub, common) -> None:
    from .experiment.graph_report import GRAPH_MODES

    g = sub.add_parser("graph", parents=[common], help="show the chain's graph (nodes, edges, layers, DOT)")
    g.add_argument("--mode", choices=GRAPH_MODES, default="capture",
                   help="how the graph is made: capture (default), explicit, forkjoin or while")
    g.add_argument("--ops", default="add,mul,sub,relu", help="comma-separated chain (default add,mul,sub,relu)")
    g.add_argument("--size", type=positive_int_arg, default=1 << 20, help="float32 elements (default 1,048,576)")
    g.add_argument("--dot", metavar="PATH", help="also write the driver's DOT file there (and SVG if Graphviz)")
    g.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    g.add_argument("--unroll", type=positive_int_arg, default=1,
                   help="chain iterations in the graph; with --mode while, the loop's iterations (default 1)")

    u = sub.add_parser("update", parents=[common],
                       help="cost of updating an instantiated graph vs re-instantiating vs re-capturing")
    u.add_argument("--size", type=positive_int_arg, default=1 << 20, help="float32 elements (default 1,048,576)")
    u.add_argument("--repeats", type=positive_int_arg, default=200, help="timed updates per path (default 200)")
    u.add_argument("--ops", default="add,mul,sub,relu", help="comma-separated chain (default add,mul,sub,relu)")
    u.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    u.add_argument("--seed", type=int, default=None, help="seed of the random inputs")


def _cmd_graph(args) -> int:
    from .experiment.graph_report import inspect_chain_graph
    from .experiment.ops import parse_ops
    from .report.graphs import render_graph

    ops = parse_ops(args.ops)  # fail on a bad op before touching the GPU
    report = inspect_chain_graph(args.mode, ops, args.size, args.device, args.unroll, args.dot)
    print(render_graph(report))
    return 0 if report.ok else EXIT_CUDA


def _cmd_update(args) -> int:
    from .bench.update import measure_update_costs
    from .core.device import Device
    from .experiment.chain import Chain
    from .experiment.ops import parse_ops
    from .experiment.update import demonstrate_updates
    from .report.graphs import render_update

    ops = parse_ops(args.ops)
    with Device(args.device) as dev, Chain(dev, ops, n=args.size, seed=args.seed) as chain:
        demos = demonstrate_updates(chain, args.seed)
        costs = measure_update_costs(chain, args.repeats, seed=args.seed)
        print(render_update(chain.describe(), len(chain.ops), demos, costs))
    refused = [d for d in demos if d.report is not None and "dropped" in d.label]
    ok = all(d.verification.ok for d in demos) and all(d.report.refused for d in refused) and all(
        costs.verified.values())
    return 0 if ok else EXIT_CUDA


def _add_measure_commands(sub, common) -> None:
    lat = sub.add_parser("latency", parents=[common],
                         help="where a launch's time goes: host per API call, Python share, device gaps")
    lat.add_argument("--size", type=positive_int_arg, default=1 << 20, help="float32 elements (default 1,048,576)")
    lat.add_argument("--ops", default="add,mul,sub,relu", help="comma-separated chain (default add,mul,sub,relu)")
    lat.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    lat.add_argument("--time-cap", type=float, default=1.0, help="seconds at most per host row (default 1)")
    lat.add_argument("--json", metavar="PATH", help="write the full record")

    tl = sub.add_parser("timeline", parents=[common],
                        help="device timeline of the chain eager vs graph from %%globaltimer stamps, drawn")
    tl.add_argument("--size", type=positive_int_arg, default=1 << 20, help="float32 elements (default 1,048,576)")
    tl.add_argument("--iters", type=positive_int_arg, default=25, help="chain iterations recorded (default 25)")
    tl.add_argument("--ops", default="add,mul,sub,relu", help="comma-separated chain (default add,mul,sub,relu)")
    tl.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    tl.add_argument("--out", metavar="STEM", default="cugraphlab",
                    help="figure path stem: STEM_timeline.png/.svg and STEM_gaps.png/.svg (default ./cugraphlab)")
    tl.add_argument("--probe", action="store_true",
                    help="time the empty kernel instead of the chain: the pure kernel-to-kernel gap")
    tl.add_argument("--no-plot", action="store_true", help="print the table only")
    tl.add_argument("--json", metavar="PATH", help="write every kernel's start and end")

    sw = sub.add_parser("sweep", parents=[common], help="sizes x chain lengths x modes, with plots and break-even")
    sw.add_argument("--sizes", type=size_list_arg, default=None,
                    help="comma list, e.g. 1024,2^20 (default 2^10..2^26 by 4x)")
    sw.add_argument("--lengths", type=size_list_arg, default=None, help="kernels per chain, e.g. 1,4,16 (default 1..256)")
    sw.add_argument("--repeats", type=positive_int_arg, default=3, help="timed loops per point (default 3)")
    sw.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    sw.add_argument("--out", metavar="STEM", default="cugraphlab_sweep", help="figure stem (default ./cugraphlab_sweep)")
    sw.add_argument("--no-plot", action="store_true", help="print the table only")
    sw.add_argument("--json", metavar="PATH", help="write the full record")
    sw.add_argument("--csv", metavar="PATH", help="write one row per point")


def _cmd_latency(args) -> int:
    from .bench.latency import measure_latency
    from .core.device import Device
    from .experiment.ops import parse_ops
    from .report.measure import render_latency

    ops = parse_ops(args.ops)
    with Device(args.device) as dev:
        result = measure_latency(dev, n=args.size, ops=ops, time_cap_s=args.time_cap)
    print(render_latency(result))
    _maybe_json(args.json, result)
    return 0


def _cmd_timeline(args) -> int:
    from .bench.environment import collect
    from .bench.timeline import record_timeline
    from .core.device import Device
    from .experiment.ops import parse_ops
    from .report.measure import plot_timeline_files, render_timeline

    ops = parse_ops(args.ops)
    with Device(args.device) as dev:
        result = record_timeline(dev, ops=ops, n=args.size, iters=args.iters, probe=args.probe)
        result.env = collect(dev)
    written = [] if args.no_plot else plot_timeline_files(result, args.out)
    print(render_timeline(result, written))
    _maybe_json(args.json, result)
    return 0 if all(m.verified for m in result.modes) else EXIT_CUDA


def _cmd_sweep(args) -> int:
    from .bench.environment import collect
    from .bench.sweep import DEFAULT_LENGTHS, DEFAULT_SIZES, run_sweep
    from .core.device import Device
    from .report.measure import plot_sweep_files, render_sweep

    def progress(done, total, label):
        width = 30
        bar = "#" * (width * done // total) + "-" * (width - width * done // total)
        end = "\n" if done == total else ""
        print(f"\r[{bar}] {done}/{total} {label[:60]:<60}", end=end, file=sys.stderr, flush=True)

    with Device(args.device) as dev:
        result = run_sweep(dev, sizes=args.sizes or DEFAULT_SIZES, lengths=args.lengths or DEFAULT_LENGTHS,
                           repeats=args.repeats, progress=progress)
        result.env = collect(dev)
    written = [] if args.no_plot else plot_sweep_files(result, args.out)
    print(render_sweep(result, written))
    _maybe_json(args.json, result)
    if args.csv:
        from .report.files import write_csv

        write_csv(args.csv, result.rows)
    return 0 if all(r["verified"] is not False for r in result.rows) else EXIT_CUDA


def _maybe_json(path, result) -> None:
    if path:
        from .report.files import write_json

        write_json(path, result)
        print(f"record written to {path}")


def _cmd_compile(args) -> int:
    from .core.program import compile_kernel_set
    from .report.run import render_compile

    print(render_compile(compile_kernel_set(args.arch, args.ptx, not args.no_cache)))
    return 0


def _add_compare_command(sub, common) -> None:
    from .cli_compare import add_compare_command

    add_compare_command(sub, common)


def _cmd_compare(args) -> int:
    from .cli_compare import cmd_compare

    return cmd_compare(args)


def _run_baselines(args, ops):
    """``run --compare``: the baselines at the run's size, printed under the run table; returns their record."""
    from .cli_compare import run_baselines

    return run_baselines(args, ops)


def _add_pdl_commands(sub, common) -> None:
    pd = sub.add_parser("pdl", parents=[common],
                        help="programmatic dependent launch: the chain plain vs PDL, eager and as a graph (sm_90+)")
    pd.add_argument("--size", type=positive_int_arg, default=1 << 20, help="float32 elements (default 1,048,576)")
    pd.add_argument("--iters", type=positive_int_arg, default=5000, help="iterations per timed loop (default 5000)")
    pd.add_argument("--repeats", type=positive_int_arg, default=5, help="timed loops per way (default 5)")
    pd.add_argument("--unroll", type=positive_int_arg, default=1, help="chain iterations per graph (default 1)")
    pd.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    pd.add_argument("--seed", type=int, default=None, help="seed of the random inputs")
    pd.add_argument("--json", metavar="PATH", help="write the full record")

    cd = sub.add_parser("conditional", parents=[common],
                        help="conditional graph nodes: a WHILE loop decided on the GPU vs in Python; IF; threshold")
    cd.add_argument("--size", type=positive_int_arg, default=1 << 20, help="float32 elements (default 1,048,576)")
    cd.add_argument("--iterations", type=positive_int_arg, default=1000, help="loop iterations (default 1000)")
    cd.add_argument("--repeats", type=positive_int_arg, default=5, help="timed loops per way (default 5)")
    cd.add_argument("--threshold", type=float, default=1000.0,
                    help="stop value of the threshold loop's running total (default 1000)")
    cd.add_argument("--device", type=device_index_arg, default=0, help="CUDA device index (default 0)")
    cd.add_argument("--seed", type=int, default=None, help="seed of the random inputs")
    cd.add_argument("--json", metavar="PATH", help="write the full record")


def _cmd_pdl(args) -> int:
    from .bench.pdl import measure_pdl
    from .report.pdl import render_pdl

    if args.iters % args.unroll:
        raise InvalidArgumentError(f"--iters ({args.iters}) must be a multiple of --unroll ({args.unroll})")
    result = measure_pdl(args.device, args.size, args.iters, args.repeats, unroll=args.unroll, seed=args.seed)
    print(render_pdl(result))
    _maybe_json(args.json, result)
    return 0 if result.verified else EXIT_CUDA


def _cmd_conditional(args) -> int:
    from .bench.conditional import measure_while
    from .report.pdl import render_conditional

    result = measure_while(args.device, args.size, args.iterations, args.repeats, threshold=args.threshold,
                           seed=args.seed)
    print(render_conditional(result))
    _maybe_json(args.json, result)
    return 0 if result.verified else EXIT_CUDA
