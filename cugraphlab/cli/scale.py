"""The scale family: ``scale`` (launch rate from many threads, GPUs and processes, with the GIL verdict).

Options are taken as text and checked by ``bench.scale.plan.make_config`` (one InvalidArgumentError, exit 2) before
any GPU work; then the devices are checked against cuDeviceGetCount and each point's workers against the CPUs this
process may use, still before any device is opened. Defaults fit the machine; only a value the user gave is refused.
"""
from __future__ import annotations

import argparse
import sys

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import (
    add_csv,
    add_json,
    add_plot,
    add_seed,
    announce,
    count_arg,
    iters_arg,
    seconds_arg,
    seconds_or_zero_arg,
    size_arg,
)

__all__ = ["add_commands"]


def add_commands(sub, common) -> None:
    s = sub.add_parser("scale", parents=[common],
                       help="launch rate from many threads, GPUs and processes, with the GIL/driver-lock verdict")
    s.add_argument("--threads", default=None,
                   help="launching threads on one GPU, a comma list (default 1,2,4,8 cut to this machine's usable "
                        "CPUs; 1 is always measured)")
    s.add_argument("--devices", default="all", help="GPUs to use: all (default) or indices like 0,1")
    s.add_argument("--processes", action=argparse.BooleanOptionalAction, default=True,
                   help="measure one process per GPU (default on; needs 2+ devices)")
    s.add_argument("--gpus", action=argparse.BooleanOptionalAction, default=True,
                   help="measure one thread per GPU in one process (default on; needs 2+ devices)")
    s.add_argument("--cross", action="store_true",
                   help="also measure threads x processes: a process per GPU, each with every --threads count > 1")
    s.add_argument("--launches", type=iters_arg, default=20000,
                   help="work iterations per worker per round (default 20000)")
    s.add_argument("--launch", default="eager,graph",
                   help="launch kinds: eager, graph, graphK (K from --unroll) or graph50 (default eager,graph)")
    s.add_argument("--unroll", type=count_arg, default=50, help="K: iterations per graph of the graphK kind (default 50)")
    s.add_argument("--work", default="empty", help="empty (one block of 32 threads; default) or chain")
    s.add_argument("--size", type=size_arg, default=1024, help="float32 elements of the chain (default 1024)")
    s.add_argument("--stream", default="per-thread", help="per-thread (default) or shared: one stream per GPU")
    s.add_argument("--repeats", type=count_arg, default=3,
                   help="timed rounds per point and kind; median reported (default 3)")
    s.add_argument("--timeout", type=seconds_arg, default=180.0,
                   help="seconds a point may take before its workers are stopped (default 180)")
    s.add_argument("--evidence", default="auto",
                   help="device timeline probe rounds: auto (1 and most threads, multi-GPU points), all, none")
    s.add_argument("--gil-seconds", type=seconds_or_zero_arg, default=0.5,
                   help="seconds per phase of the GIL probe (default 0.5; 0: skip it)")
    add_seed(s)
    add_json(s, "write the full record (config, points, GIL probe, env, clocks)")
    add_csv(s, "write one row per point and launch kind")
    add_plot(s, "write STEM.png and STEM.svg: speedup against workers")
    s.set_defaults(handler=cmd_scale)


def config_from_args(args):
    """A checked, device-resolved ScaleConfig from parsed arguments (InvalidArgumentError on bad input)."""
    from ..bench.scale.plan import make_config, resolve_devices

    config = make_config(threads=args.threads, devices=args.devices, gpus_axis=args.gpus, processes=args.processes,
                         cross=args.cross, launches=args.launches, launch=args.launch, unroll=args.unroll,
                         work=args.work, size=args.size, stream=args.stream, repeats=args.repeats,
                         timeout_s=args.timeout, evidence=args.evidence, gil_seconds=args.gil_seconds,
                         seed=args.seed)
    return resolve_devices(config)


def cmd_scale(args) -> int:
    """Validate, measure every point, print the table and findings, write JSON/CSV/figures; 0 when every point ran
    and every check passed, 1 otherwise."""
    from ..bench.scale import run_scale
    from ..bench.scale.findings import findings
    from ..report.scale import csv_rows, render_scale

    config = config_from_args(args)

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    record = run_scale(config, progress=progress)
    data = record.to_dict()  # the report renders the plain form, as it would a JSON file read back
    record.findings = data["findings"] = findings(data)
    written = []
    if args.plot:
        from ..report.plots.scale import plot_scale

        written += plot_scale(data, args.plot)
    if args.json:
        from ..core.files import write_json

        written.append(write_json(args.json, record))
    if args.csv:
        from ..core.files import write_csv

        written.append(write_csv(args.csv, csv_rows(data)))
    print(render_scale(data))
    if written:
        announce("files", written)
    ok = all(r.get("ok") and r.get("verified") is not False for r in record.points)
    return EXIT_OK if ok else EXIT_FAILED
