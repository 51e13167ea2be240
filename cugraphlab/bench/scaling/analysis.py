"""The pure reading of a ``cugraphlab scaling`` record (numbers in, numbers out; works on a record read back).

``analyze`` fills a ScalingResult's ``fits`` (each cost against nodes, bench.stats.fits), ``verdict`` (how far each
launch series is from flat over 4..4,096 nodes), ``launch_model`` (the straight-line launch series against NVIDIA's
model of CUDA 12.6+, bench.scaling.model), ``break_even`` (replays after which a graph repays its setup against eager
launches), ``unroll`` (the replays at which unrolling K iterations pays off) and ``paired`` (bench.scaling.paired).
The record carries figures; development goals read from them are the benchmark's (benchmarks/scaling.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

from ..records.record import Record
from ..stats.fits import FLAT_RANGE, FLAT_TOLERANCE, fit_linear, flatness
from .model import MODEL_SERIES, launch_model
from .paired import paired_analysis
from .plan import MEASURES, sample_label, series_key

__all__ = ["ScalingResult", "analyze", "launch_model_of", "break_even", "unroll_payoff"]


# --- pure analysis: break-even, unrolling, fits ---------------------------------------------------------------
def _ceil(x: float) -> int:
    return int(math.ceil(x - 1e-9))


def break_even(setup_us: float, eager_us: float, graph_us: float) -> int | None:
    """Replays after which a graph has repaid ``setup_us`` against eager launches of the same work: the least N
    with ``N * eager >= setup + N * graph``; None when a replay saves nothing (never pays)."""
    saving = eager_us - graph_us
    if not (math.isfinite(setup_us) and math.isfinite(saving)) or saving <= 0:
        return None
    return max(1, _ceil(setup_us / saving))


def unroll_payoff(base_setup_us: float, base_graph_us: float, k: int, setup_us: float,
                  graph_us: float) -> int | None:
    """Replays of a graph holding ``k`` iterations after which it has repaid its extra setup against replaying the
    one-iteration graph ``k`` times: least N with ``N * (k * base_graph - graph) >= setup - base_setup``; None
    when unrolling saves nothing per iteration."""
    saving = k * base_graph_us - graph_us
    extra = setup_us - base_setup_us
    if not (math.isfinite(saving) and math.isfinite(extra)) or saving <= 0:
        return None
    return max(1, _ceil(extra / saving)) if extra > 0 else 1



def _samples_of(result, label: str) -> list[float]:
    entry = result.samples.get(label) if hasattr(result, "samples") else (result.get("samples") or {}).get(label)
    return list(entry["values"]) if entry else []


def launch_model_of(result) -> dict:
    """The straight-line launch series of a record (a ScalingResult, or its dict read back: a record written before
    the model was part of it) against NVIDIA's model (bench.scaling.model.launch_model)."""
    points = result.points if hasattr(result, "points") else result.get("points", [])
    env = result.env if hasattr(result, "env") else result.get("env")
    line = [p for p in points if series_key(p["topology"], p["width"]) == "line"]
    model_input = {}
    for cost in MODEL_SERIES:
        pts = sorted((p for p in line if cost in p.get("summaries", {})), key=lambda p: p["nodes"])
        if pts:
            model_input[cost] = ([p["nodes"] for p in pts],
                                 [_samples_of(result, sample_label("line", p["length"], cost))
                                  or [p["summaries"][cost]["median"]] for p in pts])
    return launch_model(model_input, (env or {}).get("driver"))


def analyze(result: "ScalingResult") -> "ScalingResult":
    """Fill ``fits``, ``verdict``, ``launch_model``, ``break_even``, ``unroll`` and ``paired`` from the
    points and raw samples (pure: works on a record read back as well as on one just measured). Returns ``result``."""
    by_series: dict[str, list[dict]] = {}
    for p in result.points:
        by_series.setdefault(series_key(p["topology"], p["width"]), []).append(p)
    fits: dict = {}
    for cost in MEASURES:
        for s, pts in by_series.items():
            pts = sorted(pts, key=lambda p: p["nodes"])
            nodes = [p["nodes"] for p in pts if cost in p.get("summaries", {})]
            vals = [(_samples_of(result, sample_label(s, p["length"], cost))
                     or [p["summaries"][cost]["median"]]) for p in pts if cost in p.get("summaries", {})]
            if len(nodes) >= 2:
                fits.setdefault(cost, {})[s] = fit_linear(nodes, vals, seed=0).to_dict()
    result.fits = fits
    verdict = {}
    for cost in ("held_launch_us", "repeat_launch_api_us", "device_us"):
        for s, pts in by_series.items():
            pts = [p for p in pts if cost in p.get("summaries", {})]
            if len(pts) < 2:
                continue
            nodes = [p["nodes"] for p in pts]
            vals = [_samples_of(result, sample_label(s, p["length"], cost)) or [p["summaries"][cost]["median"]]
                    for p in pts]
            extra = 0 if s == "line" else 2  # a fork/join has its fork and join nodes beside the units
            verdict.setdefault(cost, {})[s] = flatness(nodes, vals, lo=FLAT_RANGE[0], hi=FLAT_RANGE[1] + extra,
                                                       tolerance=FLAT_TOLERANCE).to_dict()
    result.verdict = verdict
    result.launch_model = launch_model_of(result)
    rows = []
    for p in result.points:
        m = {k: v["median"] for k, v in p.get("summaries", {}).items()}
        if not {"capture_us", "instantiate_us", "eager_us_per_iter", "graph_us_per_iter"} <= set(m):
            continue
        setup = m["capture_us"] + m["instantiate_us"]
        rows.append({"series": series_key(p["topology"], p["width"]), "length": p["length"], "nodes": p["nodes"],
                     "setup_us": setup, "eager_us": m["eager_us_per_iter"], "graph_us": m["graph_us_per_iter"],
                     "replays": break_even(setup, m["eager_us_per_iter"], m["graph_us_per_iter"]),
                     "replays_with_upload": break_even(setup + m.get("upload_total_us", 0.0),
                                                       m["eager_us_per_iter"], m["graph_us_per_iter"]),
                     "replays_explicit": break_even(m.get("build_us", math.nan) + m["instantiate_us"],
                                                    m["eager_us_per_iter"], m["graph_us_per_iter"])})
    result.break_even = rows
    unroll = []
    line = sorted((p for p in result.points if p["topology"] == "line"
                   and {"capture_us", "instantiate_us", "graph_us_per_iter"} <= set(p.get("summaries", {}))),
                  key=lambda p: p["length"])
    if line:
        base = line[0]
        bm = {k: v["median"] for k, v in base["summaries"].items()}
        b_setup = bm["capture_us"] + bm["instantiate_us"]
        for p in line[1:]:
            if p["length"] % base["length"]:
                continue
            k = p["length"] // base["length"]
            m = {c: v["median"] for c, v in p["summaries"].items()}
            setup = m["capture_us"] + m["instantiate_us"]
            n = unroll_payoff(b_setup, bm["graph_us_per_iter"], k, setup, m["graph_us_per_iter"])
            unroll.append({"k": k, "length": p["length"], "base_length": base["length"],
                           "us_per_iteration": m["graph_us_per_iter"] / k,
                           "base_us_per_iteration": bm["graph_us_per_iter"], "extra_setup_us": setup - b_setup,
                           "replays": n, "iterations": None if n is None else n * k})
    result.unroll = unroll
    result.paired = paired_analysis(result.points, result.samples)
    return result


# --- the record ------------------------------------------------------------------------------------------------
@dataclass(kw_only=True)
class ScalingResult(Record):
    """``cugraphlab scaling``: per point (shape, nodes, edges, checks, a Summary per cost, the raw Python/C pairs),
    raw samples per point and cost, the fits, the flatness verdicts, break-even and unrolling figures, the paired
    figures, module loading; ``native``: which C loops ran (or why not). Records written before 0.2.0's last
    change also kept ``goals``; reading them ignores it, ``render_scaling`` still shows it."""

    KIND: ClassVar[str] = "cugraphlab.scaling"
    SCHEMA: ClassVar[int] = 2  # 2: paired Python/C figures, held launches in rounds

    points: list = field(default_factory=list)
    fits: dict = field(default_factory=dict)
    verdict: dict = field(default_factory=dict)
    launch_model: dict = field(default_factory=dict)  # the straight-line launch against NVIDIA's model
    break_even: list = field(default_factory=list)
    unroll: list = field(default_factory=list)
    paired: dict = field(default_factory=dict)
    module_loading: dict = field(default_factory=dict)
    native: dict | None = None
    elapsed_s: float = 0.0

    @property
    def verified(self) -> bool:
        """Every point had the expected structure, ran bit-exact (chain work) and released its hold."""
        return bool(self.points) and all(p.get("ok") for p in self.points)

    def _extra_dict(self) -> dict:
        return {"verified": self.verified}
