"""``cugraphlab scale``: the parser and the handler, to be registered in cli.py.

    from .cli_scale import add_scale_command, cmd_scale   # in build_parser: add_scale_command(sub, common)
                                                           # in _handlers: "scale": cmd_scale

Every option is taken as text and checked by bench.scale_plan.make_config, which raises InvalidArgumentError (the
CLI prints ``cugraphlab scale: <message>`` and exits 2) before any GPU work; then the devices are checked against
cuDeviceGetCount and each point's workers against the CPU count, still before any device is opened.
"""
from __future__ import annotations

import argparse
import sys

__all__ = ["add_scale_command", "cmd_scale"]

EXIT_FAILED = 1


def add_scale_command(sub, common) -> argparse.ArgumentParser:
    """Register the ``scale`` subcommand on ``sub`` (argparse subparsers) with the ``common`` parent options."""
    s = sub.add_parser("scale", parents=[common],
                       help="launch rate from many threads, GPUs and processes, with the GIL/driver-lock verdict")
    s.add_argument("--threads", default="1,2,4,8",
                   help="launching threads on one GPU, a comma list (default 1,2,4,8; 1 is always measured)")
    s.add_argument("--devices", default="all", help="GPUs to use: all (default) or indices like 0,1")
    s.add_argument("--processes", action=argparse.BooleanOptionalAction, default=True,
                   help="measure one process per GPU (default on; needs 2+ devices)")
    s.add_argument("--gpus", action=argparse.BooleanOptionalAction, default=True,
                   help="measure one thread per GPU in one process (default on; needs 2+ devices)")
    s.add_argument("--cross", action="store_true",
                   help="also measure threads x processes: a process per GPU, each with every --threads count > 1")
    s.add_argument("--launches", default="20000", help="work iterations per worker per round (default 20000)")
    s.add_argument("--launch", default="eager,graph",
                   help="launch kinds: eager, graph, graphK (K from --unroll) or graph50 (default eager,graph)")
    s.add_argument("--unroll", default="50", help="K: iterations per graph of the graphK kind (default 50)")
    s.add_argument("--work", default="empty", help="empty (one block of 32 threads; default) or chain")
    s.add_argument("--size", default="1024", help="float32 elements of the chain (default 1024)")
    s.add_argument("--stream", default="per-thread", help="per-thread (default) or shared: one stream per GPU")
    s.add_argument("--repeats", default="3", help="timed rounds per point and kind; median reported (default 3)")
    s.add_argument("--timeout", default="180", help="seconds a point may take before its workers are stopped")
    s.add_argument("--evidence", default="auto",
                   help="device timeline probe rounds: auto (1 and most threads, multi-GPU points), all, none")
    s.add_argument("--gil-seconds", default="0.5",
                   help="seconds per phase of the GIL probe (default 0.5; 0: skip it)")
    s.add_argument("--seed", type=int, default=None, help="seed of the chain's random inputs")
    s.add_argument("--json", metavar="PATH", help="write the full record (config, points, GIL probe, env, clocks)")
    s.add_argument("--csv", metavar="PATH", help="write one row per point and launch kind")
    s.add_argument("--plot", metavar="STEM", help="write STEM.png and STEM.svg: speedup against workers")
    return s


def _int(name: str, text) -> int:
    from .core.errors import InvalidArgumentError

    try:
        return int(str(text).replace("_", "").replace(",", ""))
    except ValueError:
        raise InvalidArgumentError(f"{name} must be an integer, got {text!r}") from None


def _float(name: str, text) -> float:
    from .core.errors import InvalidArgumentError

    try:
        return float(text)
    except ValueError:
        raise InvalidArgumentError(f"{name} must be a number, got {text!r}") from None


def config_from_args(args):
    """A checked, device-resolved ScaleConfig from parsed arguments (InvalidArgumentError on bad input)."""
    from .bench.scale_plan import make_config, resolve_devices

    config = make_config(threads=args.threads, devices=args.devices, gpus_axis=args.gpus, processes=args.processes,
                         cross=args.cross, launches=_int("--launches", args.launches), launch=args.launch,
                         unroll=_int("--unroll", args.unroll), work=args.work, size=_int("--size", args.size),
                         stream=args.stream, repeats=_int("--repeats", args.repeats),
                         timeout_s=_float("--timeout", args.timeout), evidence=args.evidence,
                         gil_seconds=_float("--gil-seconds", args.gil_seconds), seed=args.seed)
    return resolve_devices(config)


def cmd_scale(args) -> int:
    """Validate, measure every point, print the table and findings, write JSON/CSV/figures; 0 when every point ran
    and every check passed, 1 otherwise."""
    from .bench.scale import run_scale
    from .report.scale import csv_rows, findings, render_scale

    config = config_from_args(args)

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    record = run_scale(config, progress=progress)
    record["findings"] = findings(record)
    written = []
    if args.plot:
        from .report.plots_scale import plot_scale

        written += plot_scale(record, args.plot)
    if args.json:
        from .report.files import write_json

        written.append(write_json(args.json, record))
    if args.csv:
        from .report.files import write_csv

        written.append(write_csv(args.csv, csv_rows(record)))
    print(render_scale(record, written))
    ok = all(r.get("ok") and r.get("verified") is not False for r in record["points"])
    return 0 if ok else EXIT_FAILED
