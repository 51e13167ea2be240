"""The measure family: ``measure`` (your own work: a function in a .py file or a kernel in a .cu file,
``cli.measure_work``), ``latency`` (where a launch's time goes), ``timeline`` (the device's own clock, drawn) and
``sweep`` (sizes x chain lengths x modes)."""
from __future__ import annotations

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import (
    add_device,
    add_json,
    add_ops,
    add_repeats,
    add_size,
    announce,
    count_list_arg,
    iters_arg,
    save_json,
    seconds_arg,
    size_list_arg,
)

__all__ = ["add_commands"]


def add_commands(sub, common) -> None:
    from .measure_work import add_measure

    add_measure(sub, common)
    lat = sub.add_parser("latency", parents=[common],
                         help="where a launch's time goes: host per API call, Python share, device gaps")
    add_size(lat)
    add_ops(lat)
    add_device(lat)
    lat.add_argument("--time-cap", type=seconds_arg, default=1.0, help="seconds at most per host row (default 1)")
    add_json(lat)
    lat.set_defaults(handler=cmd_latency)

    tl = sub.add_parser("timeline", parents=[common],
                        help="device timeline of the chain eager vs graph from %%globaltimer stamps, drawn")
    add_size(tl)
    tl.add_argument("--iters", type=iters_arg, default=25, help="chain iterations recorded (default 25)")
    add_ops(tl)
    add_device(tl)
    tl.add_argument("--out", metavar="STEM", default=None,
                    help="figure path stem: STEM_timeline.png/.svg and STEM_gaps.png/.svg (default ./cugraphlab)")
    tl.add_argument("--probe", action="store_true",
                    help="time the empty kernel instead of the chain: the pure kernel-to-kernel gap")
    tl.add_argument("--no-plot", action="store_true", help="print the table only")
    add_json(tl, "write every kernel's start and end")
    tl.set_defaults(handler=cmd_timeline)

    sw = sub.add_parser("sweep", parents=[common], help="sizes x chain lengths x modes, with plots and break-even")
    sw.add_argument("--sizes", type=size_list_arg, default=None,
                    help="comma list, e.g. 1024,2^20 (default 2^10..2^26 by 4x)")
    sw.add_argument("--lengths", type=count_list_arg, default=None,
                    help="kernels per chain, a comma list, e.g. 1,4,128,256 (default 1..256)")
    add_repeats(sw, 3, "timed loops per point")
    add_device(sw)
    sw.add_argument("--out", metavar="STEM", default=None, help="figure stem (default ./cugraphlab_sweep)")
    sw.add_argument("--no-plot", action="store_true", help="print the table only")
    add_json(sw)
    sw.add_argument("--csv", metavar="PATH", help="write one row per point")
    sw.set_defaults(handler=cmd_sweep)


#: command -> the figure stem when --out is not given
DEFAULT_STEMS = {"timeline": "cugraphlab", "sweep": "cugraphlab_sweep"}


def _plot_check(args) -> None:
    from ..core.errors import InvalidArgumentError

    if args.no_plot and args.out is not None:  # taken and ignored would be worse than refused
        raise InvalidArgumentError("--out names the figures, and --no-plot draws none: give one of them")
    if args.out is None:
        from .args import check_output_paths

        args.out = DEFAULT_STEMS[args.command]
        check_output_paths(args)  # the default stem, checked as a given one was (matplotlib: cli.main)


def cmd_latency(args) -> int:
    from ..bench.measure.latency import measure_latency
    from ..core.device import Device
    from ..experiment.ops import parse_ops
    from ..report.measure import render_latency

    ops = parse_ops(args.ops)
    with Device(args.device) as dev:
        result = measure_latency(dev, size=args.size, ops=ops, time_cap_s=args.time_cap)
    print(render_latency(result))
    save_json(args.json, result)
    return EXIT_OK


def cmd_timeline(args) -> int:
    from ..bench.measure.timeline import measure_timeline
    from ..core.device import Device
    from ..experiment.ops import parse_ops
    from ..report.measure import plot_timeline_files, render_timeline

    ops = parse_ops(args.ops)
    _plot_check(args)
    with Device(args.device) as dev:
        result = measure_timeline(dev, ops=ops, size=args.size, iters=args.iters, probe=args.probe)
    written = [] if args.no_plot else plot_timeline_files(result, args.out)
    print(render_timeline(result))
    if written:
        announce("figures", written)
    save_json(args.json, result)
    return EXIT_OK if all(m.verified for m in result.modes) else EXIT_FAILED


def cmd_sweep(args) -> int:
    from ..bench.measure.sweep import DEFAULT_LENGTHS, DEFAULT_SIZES, measure_sweep
    from ..core.device import Device
    from ..report.measure import plot_sweep_files, render_sweep
    from ..report.progress import sweep_progress

    _plot_check(args)
    with Device(args.device) as dev:
        result = measure_sweep(dev, sizes=args.sizes or DEFAULT_SIZES, lengths=args.lengths or DEFAULT_LENGTHS,
                               repeats=args.repeats, progress=sweep_progress())
    written = [] if args.no_plot else plot_sweep_files(result, args.out)
    print(render_sweep(result))
    if written:
        announce("figures", written)
    save_json(args.json, result)
    if args.csv:
        from ..core.files import write_csv

        write_csv(args.csv, result.rows)
        announce("rows", args.csv)
    return EXIT_OK if all(r["verified"] is not False for r in result.rows) else EXIT_FAILED

