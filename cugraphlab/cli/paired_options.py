"""Options of a paired measurement, for whichever command shows it (``latency --paired``, ``compare``): argparse only.

``add_paired_options(parser)`` adds them; ``paired_kwargs(args)`` turns the parsed values into keyword arguments of
``bench.paired.measure_paired`` (which validates them: bad values raise InvalidArgumentError, exit 2).
"""
from __future__ import annotations

import argparse

__all__ = ["add_paired_options", "paired_kwargs"]

_CONTEXT_KINDS = ("primary", "created", "spin", "yield", "blocking_sync")


def _percent(text: str) -> float:
    t = text.strip()
    try:
        return float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction or a percentage such as 1%, got {text!r}") from None


def add_paired_options(parser: argparse.ArgumentParser, *, prefix: str = "") -> argparse.ArgumentParser:
    """Add the paired options to ``parser`` (``prefix`` e.g. "paired-" gives ``--paired-contexts`` ...)."""
    g = parser.add_argument_group("paired measurement")
    o = lambda name: f"--{prefix}{name}"  # noqa: E731
    g.add_argument(o("contexts"), type=int, default=3, help="fresh contexts (default 3)")
    g.add_argument(o("context-kind"), choices=_CONTEXT_KINDS, default="primary",
                   help="primary: released and retained again; created/spin/yield/blocking_sync: cuCtxCreate")
    g.add_argument(o("rounds"), type=int, default=5, help="interleaved rounds per context at least (default 5)")
    g.add_argument(o("max-rounds"), type=int, default=None, help="rounds per context at most (default 4x rounds)")
    g.add_argument(o("launches"), type=int, default=2000, help="launches per timed block (default 2000)")
    g.add_argument(o("held"), type=int, default=512,
                   help="launches per held-device block, below the driver's queue depth (default 512; 0: none)")
    g.add_argument(o("target"), type=_percent, default=0.01, help="noise target per figure (default 1%%)")
    g.add_argument(o("time-cap"), type=float, default=30.0, help="seconds per context at most (default 30)")
    g.add_argument(o("ways"), default=None,
                   help="comma-separated ways (bindings, cugraphlab, cugraphlab_launch, ctypes, c, cuda_core, "
                        "cupy_raw); default all")
    g.add_argument(o("mode"), choices=("launch", "graph"), default="launch",
                   help="cuLaunchKernel of add, or cuGraphLaunch of a captured graph of add launches")
    return parser


def paired_kwargs(args: argparse.Namespace, *, prefix: str = "") -> dict:
    """The keyword arguments of ``measure_paired`` from parsed options (same ``prefix`` as when added)."""
    p = prefix.replace("-", "_")
    get = lambda name: getattr(args, p + name)  # noqa: E731
    return {"contexts": get("contexts"), "context_kind": get("context_kind"), "rounds": get("rounds"),
            "max_rounds": get("max_rounds"), "launches": get("launches"), "held_launches": get("held"),
            "target": get("target"), "time_cap_s": get("time_cap"), "ways": get("ways"), "mode": get("mode")}
