"""Graph launch against NVIDIA's model of it: which launch path the measured driver is on (pure: numbers in, out).

CUDA 12.6 introduced "constant time launch for straight-line CUDA graphs" (NVIDIA technical blog, "Constant Time
Launch for Straight-Line CUDA Graphs and Other Performance Enhancements", 2024): a repeat ``cuGraphLaunch`` of a
straight-line graph into an idle stream, after the graph has been uploaded, costs about 2.5 µs + about 1 ns per
node; before 12.6 the same launch cost about 2 µs + 200 ns per node. So "constant" means a small per-node slope,
not a flat line: the 12.6+ model itself grows +163% from 4 to 4,096 nodes. NVIDIA's own harness of it is
cuda-samples ``cudaGraphsPerfScaling``.

``launch_model`` fits ``cost = a + b * nodes`` (bench.stats.fits, 95% bootstrap intervals) to the straight-line
series of the repeat launch (the model's protocol) and of the held launch (the same call while a kernel holds the
stream, for comparison), over 4..4,096 nodes, and ``driver_path`` reads the slope: within a factor of
``PATH_FACTOR`` of 1 ns per node, the 12.6+ path; within that factor of 200 ns per node, the pre-12.6 path;
otherwise between the two, with the figure and the path it is nearer on a log scale.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

from ..stats.fits import fit_linear

__all__ = ["NVIDIA_MODEL", "MODEL_SOURCE", "MODEL_RANGE", "PATH_FACTOR", "MODEL_SERIES", "model_us", "model_growth",
           "driver_path", "fit_against_model", "launch_model"]

#: path -> (intercept µs, slope µs per node, what it is)
NVIDIA_MODEL: dict[str, tuple[float, float, str]] = {
    "12.6+": (2.5, 0.001, "CUDA 12.6+ straight-line path: about 2.5 µs + about 1 ns per node"),
    "pre-12.6": (2.0, 0.2, "before CUDA 12.6: about 2 µs + 200 ns per node"),
}
MODEL_SOURCE = ("NVIDIA, CUDA 12.6, 'Constant time launch for straight-line CUDA graphs': a repeat cuGraphLaunch of "
                "a straight-line graph into an idle stream after upload costs about 2.5 µs + about 1 ns per node "
                "(before 12.6: about 2 µs + 200 ns per node)")
MODEL_RANGE = (4, 4096)
PATH_FACTOR = 3.0  # a slope within this factor of a model's slope is on that model's path
#: the launch series read against the model: cost key -> what it is beside the model's protocol
MODEL_SERIES = {"repeat_launch_api_us": "repeat launch into an idle stream (API), the model's protocol",
                "held_launch_us": "cuGraphLaunch with the stream held by a kernel (queued), for comparison"}


def model_us(path: str, nodes: float) -> float:
    """The model's launch cost in µs of a straight line of ``nodes`` nodes on ``path`` ("12.6+" or "pre-12.6")."""
    a, b, _ = NVIDIA_MODEL[path]
    return a + b * nodes


def model_growth(path: str, lo: int, hi: int) -> float:
    """The model's own relative rise from ``lo`` to ``hi`` nodes (+1.63 for 12.6+ over 4..4,096)."""
    return model_us(path, hi) / model_us(path, lo) - 1.0


def _ns(v: float) -> str:
    av = abs(v)
    return f"{v:.0f}" if av >= 100 else (f"{v:.1f}" if av >= 1 else f"{v:.2g}")


def driver_path(slope_us: float | None, slope_ci: Sequence[float] | None = None) -> dict:
    """Which path a fitted slope (µs per node, with its interval) is on: ``{"path": "12.6+" | "pre-12.6" | "between"
    | None, "nearer", "slope_ns", "slope_ns_ci", "times_12_6", "of_pre_12_6", "text", "short"}``."""
    _, new, _ = NVIDIA_MODEL["12.6+"]
    _, old, _ = NVIDIA_MODEL["pre-12.6"]
    if slope_us is None or not math.isfinite(slope_us):
        return {"path": None, "nearer": None, "slope_ns": None, "times_12_6": None, "of_pre_12_6": None,
                "text": "no verdict: no slope could be fitted", "short": "no verdict"}
    ns = slope_us * 1e3
    ci = [c * 1e3 for c in slope_ci] if slope_ci and all(c is not None and math.isfinite(c) for c in slope_ci) \
        else None
    ci_text = f" [{_ns(ci[0])}, {_ns(ci[1])}]" if ci else ""
    if ns <= new * 1e3 * PATH_FACTOR:
        path, nearer = "12.6+", "12.6+"
    elif ns >= old * 1e3 / PATH_FACTOR:
        path, nearer = "pre-12.6", "pre-12.6"
    else:
        path = "between"
        nearer = "12.6+" if math.log(ns / (new * 1e3)) <= math.log(old * 1e3 / ns) else "pre-12.6"
    times, frac = ns / (new * 1e3), ns / (old * 1e3)
    figure = f"{_ns(ns)} ns per node{ci_text}"
    if path == "12.6+":
        text = (f"on the CUDA 12.6+ straight-line path: {figure}, about NVIDIA's 1 ns "
                f"(within x{PATH_FACTOR:g}; pre-12.6 would be 200 ns)")
    elif path == "pre-12.6":
        text = f"on the pre-12.6 path: {figure}, near its 200 ns per node (12.6+ would be about 1 ns)"
    else:
        text = (f"between the two paths: {figure}, {times:.3g}x the 12.6+ figure of 1 ns and 1/{1 / frac:.0f} of "
                f"the pre-12.6 200 ns; nearer the {nearer} path (log scale)")
    short = {"12.6+": f"on the CUDA 12.6+ straight-line path ({_ns(ns)} ns per node)",
             "pre-12.6": f"on the pre-12.6 path ({_ns(ns)} ns per node)",
             "between": f"between the two paths, nearer the {nearer} one ({_ns(ns)} ns per node)"}[path]
    if ci and path != "between":
        lo_path = driver_path(ci[0] / 1e3)["path"] if ci[0] > 0 else "12.6+"
        hi_path = driver_path(ci[1] / 1e3)["path"]
        if lo_path != path or hi_path != path:
            text += "; its interval reaches outside that path"
    return {"path": path, "nearer": nearer, "slope_ns": ns, "slope_ns_ci": ci, "times_12_6": times,
            "of_pre_12_6": frac, "text": text, "short": short}


def fit_against_model(nodes: Sequence[int], values: Sequence, *, lo: int = MODEL_RANGE[0],
                      hi: int = MODEL_RANGE[1], seed: int | None = 0) -> dict:
    """One series (node counts and, per point, a cost in µs or its raw samples) against the model: the fit of
    ``a + b * nodes`` over the points from ``lo`` to ``hi`` nodes (intervals), the measured rise from the smallest
    to the largest of them (medians), the model's own rise and values there, and ``driver_path`` of the slope."""
    pts = sorted((int(n), v) for n, v in zip(nodes, values) if lo <= n <= hi)
    if len(pts) < 2:
        return {"points": len(pts), "path": driver_path(None),
                "text": f"no verdict: fewer than two straight-line sizes between {lo} and {hi} nodes"}
    fit = fit_linear([n for n, _ in pts], [v for _, v in pts], seed=seed)
    med = [_median(v) for _, v in pts]
    n_lo, n_hi = pts[0][0], pts[-1][0]
    growth = med[-1] / med[0] - 1.0 if med[0] else None
    path = driver_path(fit.slope, fit.slope_ci)
    return {"points": len(pts), "nodes_range": [n_lo, n_hi], "fit": fit.to_dict(),
            "measured_us": {"at_lo": med[0], "at_hi": med[-1]}, "growth": growth,
            "model_growth": {p: model_growth(p, n_lo, n_hi) for p in NVIDIA_MODEL},
            "model_at_hi_us": {p: model_us(p, n_hi) for p in NVIDIA_MODEL}, "path": path}


def _median(v) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    s = sorted(float(x) for x in v if x is not None and math.isfinite(x))
    if not s:
        return math.nan
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def _by_version(version_int) -> str | None:
    if not isinstance(version_int, int) or version_int <= 0:
        return None
    return "12.6+" if version_int >= 12060 else "pre-12.6"


def launch_model(series: Mapping[str, tuple[Sequence[int], Sequence]], driver: Mapping | None = None) -> dict:
    """The straight-line launch series against NVIDIA's model: ``series`` maps a cost of ``MODEL_SERIES`` to (node
    counts, costs or raw samples per point); ``driver``: the record's env driver entry (``version_int``, ``cuda``).
    Returns ``{"source", "model", "range", "series": {cost: fit_against_model(...)}, "driver", "path", "text"}``;
    ``path`` is read from the repeat launch (the model's protocol), else from the held launch."""
    out: dict = {"source": MODEL_SOURCE, "range": list(MODEL_RANGE), "path_factor": PATH_FACTOR,
                 "model": {p: {"intercept_us": a, "slope_us_per_node": b, "text": t}
                           for p, (a, b, t) in NVIDIA_MODEL.items()},
                 "series": {}}
    for cost in MODEL_SERIES:
        if cost in series:
            nodes, values = series[cost]
            out["series"][cost] = fit_against_model(nodes, values)
    d = dict(driver or {})
    version = d.get("version_int")
    out["driver"] = {"cuda": d.get("cuda"), "version_int": version, "by_version": _by_version(version)}
    ruling = next((out["series"][c] for c in MODEL_SERIES
                   if c in out["series"] and out["series"][c]["path"]["path"] is not None), None)
    if ruling is None:
        out["path"] = None
        out["text"] = "no verdict: no straight-line launch series of two sizes or more between 4 and 4,096 nodes"
        return out
    which = next(c for c in MODEL_SERIES if out["series"].get(c) is ruling)
    out["path"] = ruling["path"]["path"]
    by_version = out["driver"]["by_version"]
    text = f"by the {MODEL_SERIES[which].split(',')[0]}, the driver is {ruling['path']['short']}"
    if by_version == "12.6+" and out["path"] != "12.6+":
        text += (f"; its version (CUDA {d.get('cuda') or version}) has the 12.6+ path, and the measured slope is "
                 f"above NVIDIA's figure for it")
    elif by_version == "pre-12.6" and out["path"] == "pre-12.6":
        text += f"; as its version (CUDA {d.get('cuda') or version}) predicts"
    out["text"] = text
    return out
