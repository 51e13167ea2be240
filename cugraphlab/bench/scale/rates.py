"""The arithmetic of ``cugraphlab scale``, on plain numbers (no GPU): rates, spreads, speedups, device idle time.

Clocks: host times are ``time.perf_counter_ns`` (CLOCK_MONOTONIC on Linux: one clock for every process of the host,
so stamps from different worker processes compare); device stamps are ``%globaltimer`` (ns) read in the kernels,
one clock per GPU, compared only within a GPU.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from ...core.errors import InvalidArgumentError
from ..stats.summary import summarize

__all__ = ["spread", "round_rates", "combine_repeats", "add_speedups", "device_activity", ]

def spread(values: Iterable[float]) -> dict:
    """{"median", "p5", "p95", "min", "max", "n"} of ``values``, from the package's one statistics vocabulary
    (``bench.stats.summary.summarize``); Nones when empty."""
    vals = list(values)
    if not vals:
        return {"median": None, "p5": None, "p95": None, "min": None, "max": None, "n": 0}
    s = summarize(vals, unit="", clock="host_monotonic")
    return {"median": s.median, "p5": s.p5, "p95": s.p95, "min": s.min, "max": s.max, "n": s.n}


def round_rates(rounds: Sequence[dict]) -> dict:
    """Rates of one timed round of all workers together.

    ``rounds``: one dict per worker with ``t0_ns``, ``t1_ns`` (its own loop), ``calls`` (driver launch calls made)
    and ``iters`` (work iterations). Returns ``calls_per_s`` / ``iters_per_s`` of all workers together
    (total / (latest end - earliest start)), each worker's own ``worker_calls_per_s``, ``us_per_call`` per worker
    and ``span_s``.
    """
    if not rounds:
        raise InvalidArgumentError("a round needs at least one worker")
    t0 = min(int(r["t0_ns"]) for r in rounds)
    t1 = max(int(r["t1_ns"]) for r in rounds)
    span_ns = max(t1 - t0, 1)
    calls = sum(int(r["calls"]) for r in rounds)
    iters = sum(int(r["iters"]) for r in rounds)
    own = [max(int(r["t1_ns"]) - int(r["t0_ns"]), 1) for r in rounds]
    return {
        "calls_per_s": calls / span_ns * 1e9,
        "iters_per_s": iters / span_ns * 1e9,
        "worker_calls_per_s": [int(r["calls"]) / ns * 1e9 for r, ns in zip(rounds, own)],
        "us_per_call": [ns / 1e3 / max(int(r["calls"]), 1) for r, ns in zip(rounds, own)],
        "span_s": span_ns / 1e9,
    }


def combine_repeats(per_repeat: Sequence[dict]) -> dict:
    """One point's figures over its repeats (each a round_rates() result).

    ``calls_per_s``/``iters_per_s``: the median over repeats of the rate of all workers together, with its spread;
    ``worker_calls_per_s`` and ``us_per_call``: spread over every worker of every repeat.
    """
    calls = spread(r["calls_per_s"] for r in per_repeat)
    iters = spread(r["iters_per_s"] for r in per_repeat)
    return {
        "calls_per_s": calls["median"],
        "iters_per_s": iters["median"],
        "calls_per_s_spread": calls,
        "iters_per_s_spread": iters,
        "worker_calls_per_s": spread(v for r in per_repeat for v in r["worker_calls_per_s"]),
        "us_per_call": spread(v for r in per_repeat for v in r["us_per_call"]),
        "repeats": len(per_repeat),
    }


def add_speedups(rows: list[dict]) -> list[dict]:
    """Set ``speedup`` (iterations/s of all workers / the one-worker iterations/s, same launch kind) and
    ``efficiency`` (speedup / workers) on every row that has a rate; the baseline is the row with axis "threads"
    and one worker. Rows: dicts with axis, workers, kind, iters_per_s. Returns the rows."""
    base = {r["kind"]: r["iters_per_s"] for r in rows
            if r.get("axis") == "threads" and r.get("workers") == 1 and r.get("iters_per_s")}
    for r in rows:
        b = base.get(r["kind"])
        if b and r.get("iters_per_s"):
            r["speedup"] = r["iters_per_s"] / b
            r["efficiency"] = r["speedup"] / r["workers"]
        else:
            r["speedup"] = r["efficiency"] = None
    return rows


def device_activity(starts_ns: Sequence[int], ends_ns: Sequence[int]) -> dict:
    """How busy one GPU was, from the [start, end] %globaltimer stamps of every kernel that ran on it.

    Kernels are sorted by start; the busy time is the length of the union of their intervals, the span runs from the
    first start to the last end, ``idle_fraction`` = 1 - busy / span. The gap before a kernel is its start minus the
    latest end of the kernels that started before it (negative: it overlapped them, e.g. another stream's).
    ``complete`` is False when a stamp was never written (zero) or ends before it starts.
    """
    s = np.asarray(starts_ns, dtype=np.int64)
    e = np.asarray(ends_ns, dtype=np.int64)
    n = int(s.size)
    complete = bool(n > 0 and np.all(s > 0) and np.all(e >= s))
    if n == 0:
        return {"kernels": 0, "complete": False, "idle_fraction": None, "busy_us": None, "span_us": None,
                "gap_us": spread([]), "kernel_us": spread([])}
    valid = (s > 0) & (e >= s)
    s, e = s[valid], e[valid]
    if s.size == 0:
        return {"kernels": n, "complete": False, "idle_fraction": None, "busy_us": None, "span_us": None,
                "gap_us": spread([]), "kernel_us": spread([])}
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    running_end = np.maximum.accumulate(e)
    gaps = s[1:] - running_end[:-1]
    # busy time: union of intervals = sum of each interval's part beyond the running end of those before it
    prev_end = np.concatenate(([s[0]], running_end[:-1]))
    busy = int(np.sum(np.clip(e - np.maximum(s, prev_end), 0, None)))
    span = int(running_end[-1] - s[0])
    return {
        "kernels": n,
        "complete": complete,
        "idle_fraction": (1.0 - busy / span) if span > 0 else 0.0,
        "busy_us": busy / 1e3,
        "span_us": span / 1e3,
        "gap_us": spread(gaps / 1e3),
        "kernel_us": spread((e - s) / 1e3),
    }
