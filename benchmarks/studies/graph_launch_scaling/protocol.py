"""NVIDIA's repeat-launch protocol (cuda-samples ``cudaGraphsPerfScaling``) from C and from Python, and its reading.

The protocol, per straight line of L empty kernels without parameters (L = 4, 16, 64, 256, 1,024, 4,096): capture
the line, instantiate, ``cuGraphUpload``, launch once and drain; then per trial: drain the stream (idle), time one
``cuGraphLaunch`` (API time), then until ``cuStreamSynchronize`` returns (total). The ways, on the same executable,
stream and moment, interleaved round by round (the order rotated each round):

    C               repeat_launch.c: the loop above in C, CLOCK_MONOTONIC (the driver's own cost)
    cugraphlab      GraphExec.launch(stream) from a Python loop, perf_counter_ns (what a user of the package calls)
    cuda.bindings   the binding's cuGraphLaunch, result checked, from the same loop (the binding without cugraphlab)

``summarize`` gives per way and length the median, mean, p5 / p95 and count of the API and total times, and
Python - C (difference of medians); ``model_fits`` reads each way's API series against NVIDIA's model (CUDA 12.6+:
about 2.5 µs + 1 ns per node; before 12.6: 2 µs + 200 ns; ``cugraphlab.bench.scaling.model``): intercept and slope
with 95% bootstrap intervals, and the launch path. ``render`` prints both. Pure: numbers in, text out.
"""
from __future__ import annotations

import ctypes
import math
import statistics
from pathlib import Path
from typing import Callable, Mapping, Sequence

from cugraphlab.bench.scaling.model import MODEL_SOURCE, fit_against_model, launch_model
from cugraphlab.report.tables import format_table

__all__ = ["LENGTHS", "WAYS", "C_WAY", "KIND", "CRepeat", "python_trials", "summarize", "model_fits", "render",
           "C_SOURCE"]

KIND = "cugraphlab.study.graph_launch_scaling"
LENGTHS = (4, 16, 64, 256, 1024, 4096)
C_WAY = "C"
WAYS = (C_WAY, "cugraphlab", "cuda.bindings")
C_SOURCE = (Path(__file__).resolve().parent / "repeat_launch.c").read_text()
_CALLS = {1: "cuGraphLaunch", 2: "cuStreamSynchronize"}


class CRepeat:
    """The C loop of repeat launches (``repeat_launch.c``, built by ``cugraphlab.core.native.load_c_library``).

    ``entry``: ``{"cuGraphLaunch": address, "cuStreamSynchronize": address}`` (default: libcuda.so.1's; a test
    gives ctypes callbacks). UnsupportedError without a C compiler, NoDeviceError without libcuda.so.1."""

    def __init__(self, entry: Mapping[str, int] | None = None, cache=None):
        from cugraphlab.bench.native.loops import driver_entry_points
        from cugraphlab.core.native import load_c_library

        self.lib = load_c_library(C_SOURCE, "repeat_launch", cache=cache)
        f = self.lib.cgl_repeat_launches
        vp, i64 = ctypes.c_void_p, ctypes.c_int64
        f.argtypes = (vp, vp, vp, vp, i64, ctypes.POINTER(i64), ctypes.POINTER(i64), ctypes.POINTER(i64),
                      ctypes.POINTER(ctypes.c_int32))
        f.restype = ctypes.c_int
        self.entry = dict(entry) if entry is not None else driver_entry_points(("cuGraphLaunch",
                                                                                "cuStreamSynchronize"))

    def trials(self, exec_handle: int, stream_handle: int, n: int) -> tuple[list[float], list[float]]:
        """``n`` repeat launches from C: (API µs, total µs) per trial. A CUresult that is not success raises its
        typed CudaError, naming the call and the trials done."""
        from cugraphlab.bench.native.loops import raise_for_status

        api, total = (ctypes.c_int64 * n)(), (ctypes.c_int64 * n)()
        done, failed = ctypes.c_int64(0), ctypes.c_int32(0)
        status = self.lib.cgl_repeat_launches(self.entry["cuGraphLaunch"], self.entry["cuStreamSynchronize"],
                                              exec_handle, stream_handle, n, api, total, ctypes.byref(done),
                                              ctypes.byref(failed))
        raise_for_status(status, _CALLS.get(failed.value, "cuGraphLaunch"), done.value)
        return [v / 1e3 for v in api], [v / 1e3 for v in total]


def python_trials(launch: Callable[[], object], sync: Callable[[], object], n: int,
                  clock: Callable[[], int]) -> tuple[list[float], list[float]]:
    """``n`` repeat launches from Python: ``sync()`` (idle stream, untimed), then ``clock()`` (ns) around
    ``launch()`` (API) and until ``sync()`` returns (total): (API µs, total µs) per trial."""
    api, total = [], []
    for _ in range(n):
        sync()
        t0 = clock()
        launch()
        t1 = clock()
        sync()
        t2 = clock()
        api.append((t1 - t0) / 1e3)
        total.append((t2 - t0) / 1e3)
    return api, total


def _stats(values: Sequence[float]) -> dict:
    v = sorted(float(x) for x in values if x is not None and math.isfinite(x))
    if not v:
        return {"n": 0}
    q = lambda p: v[min(len(v) - 1, max(0, int(round(p * (len(v) - 1)))))]  # noqa: E731
    return {"n": len(v), "median": statistics.median(v), "mean": statistics.fmean(v), "p5": q(0.05),
            "p95": q(0.95)}


def summarize(record: Mapping) -> dict:
    """Per length and way: API and total statistics (µs), and Python - C of the API medians."""
    out: dict = {}
    for point in record.get("points", []):
        row: dict = {"nodes": point["nodes"], "ways": {}}
        for way, got in (point.get("ways") or {}).items():
            row["ways"][way] = {"api": _stats(got.get("api_us") or []), "total": _stats(got.get("total_us") or [])}
        c = row["ways"].get(C_WAY, {}).get("api", {}).get("median")
        row["minus_c"] = {w: s["api"]["median"] - c for w, s in row["ways"].items()
                          if w != C_WAY and c is not None and s["api"].get("median") is not None}
        out[str(point["nodes"])] = row
    return out


def model_fits(record: Mapping) -> dict:
    """Per way: its API series against NVIDIA's model (``fit_against_model``: fit, rise, path)."""
    fits = {}
    pts = sorted(record.get("points", []), key=lambda p: p["nodes"])
    for way in WAYS:
        have = [p for p in pts if (p.get("ways") or {}).get(way, {}).get("api_us")]
        if have:
            fits[way] = fit_against_model([p["nodes"] for p in have], [p["ways"][way]["api_us"] for p in have])
    return fits


def verdict(record: Mapping) -> dict:
    """The launch path the driver is on, read from the C series (the driver's own cost; else cugraphlab's)."""
    pts = sorted(record.get("points", []), key=lambda p: p["nodes"])
    for way in (C_WAY, "cugraphlab"):
        have = [p for p in pts if (p.get("ways") or {}).get(way, {}).get("api_us")]
        if len(have) >= 2:
            m = launch_model({"repeat_launch_api_us": ([p["nodes"] for p in have],
                                                       [p["ways"][way]["api_us"] for p in have])},
                             (record.get("env") or {}).get("driver"))
            m["way"] = way
            return m
    return {"path": None, "text": "no verdict: no way measured two lengths", "way": None}


def _num(v) -> str:
    return "n/a" if v is None or not math.isfinite(v) else (f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.2f}")


def render(record: Mapping) -> str:
    """The study's text: per length the API medians (and means) of every way, Python - C, the totals; then each
    way's fit against NVIDIA's model and the verdict."""
    s = summarize(record)
    c = record.get("config") or {}
    ways = [w for w in WAYS if any(w in r["ways"] for r in s.values())]
    lines = [f"graph launch against size, NVIDIA's repeat-launch protocol: {c.get('trials', '?')} trials per way "
             f"and length in {c.get('rounds', '?')} rounds (order rotated), empty kernels without parameters in a "
             f"straight line, uploaded, one cuGraphLaunch into an idle stream per trial",
             "API: the call alone (C: CLOCK_MONOTONIC in C; Python: perf_counter_ns); total: until "
             "cuStreamSynchronize returns; µs, median (mean)"]
    rows = []
    for key, r in s.items():
        row = [f"{r['nodes']:,}"]
        for w in ways:
            a = r["ways"].get(w, {}).get("api", {})
            row.append(f"{_num(a.get('median'))} ({_num(a.get('mean'))})" if a.get("n") else "n/a")
        row += [f"{r['minus_c'][w]:+.2f}" if w in r["minus_c"] else "n/a" for w in ways if w != C_WAY]
        row += [_num(r["ways"].get(w, {}).get("total", {}).get("median")) for w in ways]
        rows.append(row)
    heads = (["nodes"] + [f"{w} API" for w in ways] + [f"{w} - C" for w in ways if w != C_WAY]
             + [f"{w} total" for w in ways])
    lines.append(format_table(heads, rows, align="l" + "r" * (len(heads) - 1)))
    lines += ["", f"against NVIDIA's model ({MODEL_SOURCE}); fit a + b * nodes, 95% bootstrap intervals:"]
    for way, e in model_fits(record).items():
        if "fit" not in e:
            lines.append(f"  {way}: {e.get('text')}")
            continue
        f = e["fit"]
        ci = lambda v, k=1.0: "" if not v or None in v else f" [{v[0] * k:.3g}, {v[1] * k:.3g}]"  # noqa: E731
        lines.append(f"  {way}: a = {f['intercept']:.3g}{ci(f.get('intercept_ci'))} µs, b = "
                     f"{f['slope'] * 1e3:.3g}{ci(f.get('slope_ci'), 1e3)} ns/node, {e['growth']:+.0%} from "
                     f"{e['nodes_range'][0]} to {e['nodes_range'][1]:,} nodes (the 12.6+ model "
                     f"{e['model_growth']['12.6+']:+.0%}); {e['path']['text']}")
    v = verdict(record)
    lines.append(f"verdict ({v.get('way') or 'no'} series): {v.get('text')}")
    bad = [f"{ck['text']}" for ck in record.get("checks", []) if not ck.get("ok")]
    if bad:
        lines += ["", "CHECKS FAILED:"] + [f"  {b}" for b in bad]
    return "\n".join(lines)
