"""What a graph costs as it grows: every step of a graph's life timed against its node count (``cugraphlab scaling``).

For each Shape of the plan (experiment.scaling: a line of L nodes, or a fork/join of W branches), with the empty
kernel or the chain as the work, all on stream 0 of one ScalingWorkload:

    once:      capture it and build it explicitly; both have the expected nodes and edges (cuGraphGetNodes,
               cuGraphGetEdges); with the chain, both run bit-exact against NumPy on poisoned outputs
    lifecycle  (one fresh graph per sample)
               t capture (cuStreamBeginCapture ... cuStreamEndCapture)      explicit build (cuGraphAddKernelNode x N)
               t cuGraphInstantiate     first cuGraphLaunch of that exec, not uploaded: API time, and until
               cuStreamSynchronize returns; a second launch the same way (repeat launch, idle stream)
               free memory (cuMemGetInfo) before and after instantiate + cuGraphUpload of C copies: bytes per exec;
               the upload of the first copy: API time and until complete; its first launch (API)
    paired     (line points, and the fork/joins from 4 to 128 nodes) each sample: one fresh capture, then
               Python cuGraphInstantiate and the C one (bench.native_graph) back to back, twice (P C C P, the
               next sample C P P C), each exec destroyed outside the timing (bench.scaling_paired reads the pairs)
    steady     R eager iterations of the same work (the calls capture records, issued directly) and R graph
               replays, each timed from before the first call until the stream's sync returns: µs per iteration

    held       after every point's sets, in ROUNDS over all the points (round r rotated by r * points / rounds,
               so each point sits at a different place each time), so a point's figure does not depend on where
               it sits in the sweep: per
               visit, K cuGraphLaunch (K <= 64) while a spinning kernel holds the stream (bench.hold), from Python
               and from C (bench.native NativeFloor.graph_loop) behind the same hold, alternating which goes first:
               host µs per launch; device µs per graph from %globaltimer (hold released -> stamp after the K graphs)

Each set is sampled adaptively (``bench.stats.measure``: until the median's ~95% interval is within 2%, or a time cap
per set, at least ``repeats`` samples); raw samples are kept per point and cost (``keep_samples``, labels
``<series>:L<length>:<cost>``, series ``line`` or ``forkjoin:w<W>``; at most ``KEPT_SAMPLES``, evenly thinned, µs
to the nanosecond, so a default record stays well under 1 MB), and every point keeps its raw Python/C pairs in full
(``point["paired"]``). The C loops are built once (``_native_floors``; where there is no C compiler or no
libcuda.so.1 the Python figures stand alone and ``native["unavailable"]`` says why). Then ``analyze``: each cost
fitted against nodes (bench.fits), the flatness verdict on launch, break-even replays against eager launches per
length, the replays at which unrolling K iterations pays off, the paired figures (bench.scaling_paired: per point
Python, C, ratio and difference with intervals, the per-node slope ratio) and the issue's goals read from them.
Module loading: the record keeps ``CUDA_MODULE_LOADING`` and the cold first launch of the empty kernel against a
warm one (with lazy loading, the default since CUDA 12.2, a kernel loads at its first launch; every kernel is
launched before any timing here).
"""
from __future__ import annotations

import math
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, ClassVar, Iterable

from ...core._calls import cu, driver_fn
from ...core.errors import InvalidArgumentError, check, positive_int
from ...experiment.scaling import MAX_WIDTH, TOPOLOGIES, WORKS, ScalingWorkload, Shape, scaling_kernel_names
from ..stats.fits import FLAT_RANGE, FLAT_TOLERANCE, fit_linear, flatness
from ..probes.hold import HOLD_KERNEL, MAX_HELD_GRAPH_LAUNCHES, DeviceHold
from ..stats.paired_stats import round_order
from ..records.record import Record, bounded, clocks
from .paired import (INSTANTIATE_GOAL, LAUNCH_GOAL_RANGE, LAUNCH_GOAL_US, evaluate_goals,
                             paired_analysis)
from ..stats.summary import sample_adaptively, median_ci_halfwidth, summarize

__all__ = ["ScalingPlan", "ScalingResult", "make_plan", "make_scaling_plan", "measure_scaling", "analyze",
           "MEASURES", "series_key",
           "break_even", "unroll_payoff", "evaluate_goals", "DEFAULT_LENGTHS", "DEFAULT_WIDTHS", "QUICK_LENGTHS",
           "QUICK_WIDTHS", "LAUNCH_GOAL_US", "INSTANTIATE_GOAL", "KEPT_SAMPLES", "kept_samples", "HELD_ROUNDS",
           "QUICK_HELD_ROUNDS", "HELD_PAIRS", "PAIR_MIN_SAMPLES", "PAIR_MAX_SAMPLES"]

DEFAULT_LENGTHS = tuple(1 << i for i in range(13))  # 1 .. 4096
DEFAULT_WIDTHS = (1, 2, 4, 8, 16)
QUICK_LENGTHS = (1, 4, 16, 64, 256, 1024)
QUICK_WIDTHS = (1, 4)
MAX_LENGTH = 1 << 16
DEFAULT_BUDGET_S = 120.0  # the default sweep, within the 3 minutes on an H200
QUICK_BUDGET_S = 12.0
SETS_PER_POINT = 4  # lifecycle, paired instantiate, steady eager, steady graph: the per-point share of the budget
HELD_SHARE = 0.3  # of the budget for the held rounds (after at least two rounds they stop once it is spent)
TARGET_SPREAD = 0.02
HELD_ROUNDS = 4  # rounds of held launches over every point (quick: QUICK_HELD_ROUNDS)
QUICK_HELD_ROUNDS = 3
HELD_PAIRS = 3  # Python/C pairs of holds per point per round
PAIR_MIN_SAMPLES = 8  # paired-instantiate samples (two pairs each) at least, at most PAIR_MAX_SAMPLES
PAIR_MAX_SAMPLES = 20
KEPT_SAMPLES = 32  # raw samples kept per point and cost (evenly thinned; summaries use all): a default record < 1 MB
#: costs whose raw samples are Python/C pairs: kept whole (never thinned, at most 2 * PAIR_MAX_SAMPLES, or rounds x
#: pairs), in the order of the point's ``paired`` groups
PAIRED_COSTS = ("held_launch_us", "held_launch_c_us", "pair_instantiate_python_us", "pair_instantiate_c_us")

#: cost key -> (what it is, unit, clock key of bench.records.CLOCKS, "c_monotonic" (bench.native_graph.NATIVE_CLOCK),
#: or None)
MEASURES: dict[str, tuple[str, str, str | None]] = {
    "capture_us": ("capture (begin ... end)", "us", "host_api"),
    "build_us": ("explicit build (cuGraphAddKernelNode x N)", "us", "host_api"),
    "instantiate_us": ("cuGraphInstantiate", "us", "host_api"),
    "upload_api_us": ("cuGraphUpload (API)", "us", "host_api"),
    "upload_total_us": ("cuGraphUpload until complete", "us", "wall"),
    "first_launch_api_us": ("first launch, not uploaded (API)", "us", "host_api"),
    "first_launch_total_us": ("first launch, not uploaded, until complete", "us", "wall"),
    "uploaded_launch_api_us": ("first launch after upload (API)", "us", "host_api"),
    "repeat_launch_api_us": ("repeat launch, idle stream (API)", "us", "host_api"),
    "repeat_launch_total_us": ("repeat launch, idle stream, until complete", "us", "wall"),
    "held_launch_us": ("cuGraphLaunch with the device held (host)", "us", "host_call"),
    "held_launch_c_us": ("cuGraphLaunch from C with the device held (host), paired", "us", "c_monotonic"),
    "pair_instantiate_python_us": ("cuGraphInstantiate from Python, paired with C", "us", "host_api"),
    "pair_instantiate_c_us": ("cuGraphInstantiate from C, paired with Python", "us", "c_monotonic"),
    "device_us": ("device time per graph, back to back (%globaltimer)", "us", "globaltimer"),
    "exec_bytes": ("device memory per executable (cuMemGetInfo)", "bytes", None),
    "eager_us_per_iter": ("eager launches of the same work, per iteration", "us", "wall"),
    "graph_us_per_iter": ("graph replay, per iteration", "us", "wall"),
}
_LIFECYCLE = ("capture_us", "build_us", "instantiate_us", "first_launch_api_us", "first_launch_total_us",
              "repeat_launch_api_us", "repeat_launch_total_us", "upload_api_us", "upload_total_us",
              "uploaded_launch_api_us", "exec_bytes")


def series_key(topology: str, width: int) -> str:
    """"line", or "forkjoin:w4": the curve a point belongs to."""
    return "line" if topology == "line" else f"forkjoin:w{width}"


def _sample_label(series: str, length: int, cost: str) -> str:
    return f"{series}:L{length}:{cost}"


# --- the plan --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScalingPlan:
    """Every point to measure and how: shapes, work, samples per set, the time cap per set."""

    work: str
    topologies: tuple[str, ...]
    lengths: tuple[int, ...]
    widths: tuple[int, ...]
    shapes: tuple[Shape, ...]
    skipped: tuple[str, ...]  # points the plan leaves out, and why
    repeats: int  # at least this many samples per set
    max_samples: int
    time_cap_s: float  # per set of samples at one point
    budget_s: float
    size: int  # chain floats
    quick: bool
    held_rounds: int = HELD_ROUNDS  # rounds of held launches over every point
    held_pairs: int = HELD_PAIRS  # Python/C pairs of holds per point and round

    @property
    def max_width(self) -> int:
        return max((s.width for s in self.shapes), default=1)

    def to_dict(self) -> dict:
        return {"work": self.work, "topologies": list(self.topologies), "lengths": list(self.lengths),
                "widths": list(self.widths), "points": len(self.shapes), "skipped": list(self.skipped),
                "repeats": self.repeats, "max_samples": self.max_samples, "time_cap_s": self.time_cap_s,
                "budget_s": self.budget_s, "size": self.size, "quick": self.quick,
                "held_rounds": self.held_rounds, "held_pairs": self.held_pairs}


def _int_list(name: str, values, maximum: int) -> tuple[int, ...]:
    if isinstance(values, str):
        parts = [p.strip() for p in values.split(",")]
        try:
            values = [int(p.replace("_", "")) for p in parts]
        except ValueError:
            raise InvalidArgumentError(f"{name} must be integers separated by commas, got {values!r}") from None
    values = list(values)
    if not values:
        raise InvalidArgumentError(f"{name}: give at least one value")
    return tuple(sorted({positive_int(name, v, maximum) for v in values}))


def _names(name: str, values, known: tuple[str, ...]) -> tuple[str, ...]:
    items = [s.strip() for s in values.split(",")] if isinstance(values, str) else [str(s).strip() for s in values]
    items = [s for s in items if s]
    if not items:
        raise InvalidArgumentError(f"{name}: give at least one of {', '.join(known)}")
    bad = [s for s in items if s not in known]
    if bad:
        raise InvalidArgumentError(f"unknown {name} {bad[0]!r}; known: {', '.join(known)}")
    return tuple(k for k in known if k in items)


def make_plan(lengths=None, widths=None, *, work: str = "empty", topologies="line,forkjoin", quick: bool = False,
              repeats: int | None = None, budget_s: float | None = None, size: int = 1024,
              max_samples: int = 200, rounds: int | None = None) -> ScalingPlan:
    """The checked plan of a sweep; InvalidArgumentError (one line) for any bad input, before any GPU work.

    ``lengths``: units per graph (empty kernels, or chain iterations), default 1..4096 doubling (``quick``: 1, 4,
    16, 64, 256, 1024); ``widths``: fork/join branches, default 1, 2, 4, 8, 16 (``quick``: 1, 4); fork/join points
    with fewer units than branches are skipped (and listed). ``repeats``: at least this many samples per set
    (default 5, quick 3). ``budget_s``: the sweep's time target (default 120 s, quick 12 s), shared out as a cap per
    set of samples. ``size``: the chain's floats. ``rounds``: rounds of held launches over every point (default 4,
    quick 3; ``HELD_PAIRS`` Python/C pairs of holds per point and round).
    """
    if work not in WORKS:
        raise InvalidArgumentError(f"--work must be one of {', '.join(WORKS)}, got {work!r}")
    tops = _names("topology", topologies, TOPOLOGIES)
    lengths = _int_list("graph length", lengths if lengths is not None else
                        (QUICK_LENGTHS if quick else DEFAULT_LENGTHS), MAX_LENGTH)
    widths = _int_list("width", widths if widths is not None else (QUICK_WIDTHS if quick else DEFAULT_WIDTHS),
                       MAX_WIDTH)
    repeats = positive_int("repeats", repeats if repeats is not None else (3 if quick else 5), 1000)
    rounds = positive_int("held rounds", rounds if rounds is not None else (QUICK_HELD_ROUNDS if quick else
                                                                            HELD_ROUNDS), 100)
    max_samples = max(positive_int("max samples", max_samples), repeats)
    size = positive_int("size (floats)", size)
    budget = float(budget_s if budget_s is not None else (QUICK_BUDGET_S if quick else DEFAULT_BUDGET_S))
    if not (math.isfinite(budget) and budget > 0):
        raise InvalidArgumentError(f"the time budget must be a number of seconds > 0, got {budget_s!r}")
    shapes, skipped = [], []
    if "line" in tops:
        shapes += [Shape("line", n) for n in lengths]
    if "forkjoin" in tops:
        for w in widths:
            for n in lengths:
                if n < w:
                    skipped.append(f"forkjoin W={w} L={n}: fewer units than branches")
                else:
                    shapes.append(Shape("forkjoin", n, w))
    if not shapes:
        raise InvalidArgumentError("the plan has no point: every fork/join width exceeds every length")
    cap = min(max(budget * (1 - HELD_SHARE) / (len(shapes) * SETS_PER_POINT), 0.01), 2.0)
    return ScalingPlan(work, tops, lengths, widths, tuple(shapes), tuple(skipped), repeats, max_samples, cap,
                       budget, size, bool(quick), rounds, HELD_PAIRS)


make_scaling_plan = make_plan  # the name the package re-exports (cugraphlab.make_scaling_plan)


# --- pure analysis: break-even, unrolling, goals, fits ---------------------------------------------------------
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


def kept_samples(values, unit: str, limit: int | None = KEPT_SAMPLES) -> list[float]:
    """The raw samples a record keeps of one point and cost: at most ``limit`` (None: all), evenly thinned in order
    (``records.bounded``), each to 5 significant digits and µs to the nanosecond at most (the host clocks'
    resolution; a relative 1e-5 is far below any spread measured here), bytes to the byte."""
    kept = bounded(values, limit) if limit is not None else bounded(values)
    if unit != "us":
        return [float(round(v)) for v in kept]
    return [float(f"{round(v, 3):.5g}") for v in kept]


def _samples_of(result, label: str) -> list[float]:
    entry = result.samples.get(label) if hasattr(result, "samples") else result["samples"].get(label)
    return list(entry["values"]) if entry else []


def analyze(result: "ScalingResult") -> "ScalingResult":
    """Fill ``fits``, ``verdict``, ``break_even``, ``unroll``, ``paired`` and ``goals`` from the points and raw
    samples (pure: works on a record read back as well as on one just measured). Returns ``result``."""
    by_series: dict[str, list[dict]] = {}
    for p in result.points:
        by_series.setdefault(series_key(p["topology"], p["width"]), []).append(p)
    fits: dict = {}
    for cost in MEASURES:
        for s, pts in by_series.items():
            pts = sorted(pts, key=lambda p: p["nodes"])
            nodes = [p["nodes"] for p in pts if cost in p.get("summaries", {})]
            vals = [(_samples_of(result, _sample_label(s, p["length"], cost))
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
            vals = [_samples_of(result, _sample_label(s, p["length"], cost)) or [p["summaries"][cost]["median"]]
                    for p in pts]
            extra = 0 if s == "line" else 2  # a fork/join has its fork and join nodes beside the units
            verdict.setdefault(cost, {})[s] = flatness(nodes, vals, lo=FLAT_RANGE[0], hi=FLAT_RANGE[1] + extra,
                                                       tolerance=FLAT_TOLERANCE).to_dict()
    result.verdict = verdict
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
    result.goals = evaluate_goals(result.points, result.paired, result.native)
    return result


# --- the record ------------------------------------------------------------------------------------------------
@dataclass(kw_only=True)
class ScalingResult(Record):
    """``cugraphlab scaling``: per point (shape, nodes, edges, checks, a Summary per cost, the raw Python/C pairs),
    raw samples per point and cost, the fits, the flatness verdicts, break-even and unrolling figures, the paired
    figures, the goals, module loading; ``native``: which C loops ran (or why not)."""

    KIND: ClassVar[str] = "cugraphlab.scaling"
    SCHEMA: ClassVar[int] = 2  # 2: paired Python/C figures, held launches in rounds

    points: list = field(default_factory=list)
    fits: dict = field(default_factory=dict)
    verdict: dict = field(default_factory=dict)
    break_even: list = field(default_factory=list)
    unroll: list = field(default_factory=list)
    paired: dict = field(default_factory=dict)
    goals: dict = field(default_factory=dict)
    module_loading: dict = field(default_factory=dict)
    native: dict | None = None
    elapsed_s: float = 0.0

    @property
    def verified(self) -> bool:
        """Every point had the expected structure, ran bit-exact (chain work) and released its hold."""
        return bool(self.points) and all(p.get("ok") for p in self.points)

    def _extra_dict(self) -> dict:
        return {"verified": self.verified}


# --- measuring -------------------------------------------------------------------------------------------------
def _us(t0: int, t1: int) -> float:
    return (t1 - t0) / 1e3


def _adaptive(plan: ScalingPlan, sample: Callable[[], float], clock: str, unit: str = "us") -> tuple[str, int]:
    """``measure`` with the plan's bounds: (stop reason, samples taken after the warm-up). The warm-up sample's
    duration stretches the cap so that at least ``repeats`` samples fit where one sample is slow; should the cap
    still come first (a slow sample later on), the missing ones are taken anyway."""
    t0 = time.perf_counter()
    sample()  # warm-up, timed only to size the cap
    one = time.perf_counter() - t0
    cap = max(plan.time_cap_s, plan.repeats * one * 1.2)
    summary = sample_adaptively(sample, warmup=0, min_samples=plan.repeats, max_samples=plan.max_samples,
                      target_rel_spread=TARGET_SPREAD, time_cap_s=cap, unit=unit, clock=clock)
    n = summary.n
    while n < plan.repeats:
        sample()
        n += 1
    return summary.stop_reason, n


def _held_batch(nodes: int) -> int:
    # about 20 ms of device work queued per hold, at least 4 launches, at most 64
    return int(min(MAX_HELD_GRAPH_LAUNCHES, max(4, 20000 // (nodes * 0.6 + 3))))


def _iterations(estimate_us: float) -> int:
    return int(min(100, max(1, 2000 // max(estimate_us, 1.0))))


class _Point:
    """The measurement of one Shape on a workload (all timing lives in here and in bench.hold)."""

    def __init__(self, workload: ScalingWorkload, hold: DeviceHold, shape: Shape, plan: ScalingPlan, device):
        self.w, self.hold, self.shape, self.plan, self.device = workload, hold, shape, plan, device
        self.s = workload.stream.handle
        self.launch = driver_fn("cuGraphLaunch")
        self.inst = driver_fn("cuGraphInstantiate")
        self.upload = driver_fn("cuGraphUpload")
        self.sync = driver_fn("cuStreamSynchronize")
        self.destroy = driver_fn("cuGraphExecDestroy")
        self.nodes = shape.nodes(workload.per_unit)

    def _call(self, fn, name, *args):
        r = fn(*args)
        if r[0]:
            check(r, name)
        return r[1] if len(r) > 1 else None

    # --- once per point: structure and bits ---------------------------------------------------------------------
    def check(self) -> dict:
        expected = self.w.expected_structure(self.shape)
        out = {"expected": list(expected)}
        mismatches = 0
        verifications = []
        for way, make in (("capture", self.w.capture), ("explicit", self.w.build)):
            with make(self.shape) as g:
                out[way] = list(self.w.structure(g))
                if self.w.work == "chain":
                    with g.instantiate() as exe:
                        exe.upload(self.w.stream)
                        vs = self.w.verify(exe, self.shape)
                    mismatches += sum(v.mismatches for v in vs)
                    verifications += [f"{way}: {v}" for v in vs if not v.ok]
        out["ok"] = out["capture"] == out["expected"] == out["explicit"]
        out["mismatches"] = mismatches
        out["verified"] = (mismatches == 0) if self.w.work == "chain" else None
        out["failures"] = verifications[:4]
        return out

    # --- lifecycle: one fresh graph per sample ------------------------------------------------------------------
    def lifecycle(self) -> tuple[dict, dict]:
        perf = time.perf_counter_ns
        got: dict[str, list[float]] = {k: [] for k in _LIFECYCLE}
        copies = max(1, min(8, 1024 // self.nodes))
        w, shape, s = self.w, self.shape, self.s

        def sample() -> float:
            t0 = perf()
            g = w.capture(shape)
            t1 = perf()
            execs = []
            try:
                t2 = perf()
                e = w.build(shape)
                t3 = perf()
                e.close()
                t4 = perf()
                h = self._call(self.inst, "cuGraphInstantiate", g.handle, 0)
                t5 = perf()
                execs.append(h)
                t6 = perf()
                self._call(self.launch, "cuGraphLaunch", h, s)
                t7 = perf()
                self._call(self.sync, "cuStreamSynchronize", s)
                t8 = perf()
                self._call(self.launch, "cuGraphLaunch", h, s)
                t9 = perf()
                self._call(self.sync, "cuStreamSynchronize", s)
                t10 = perf()
                self._call(self.destroy, "cuGraphExecDestroy", execs.pop())
                free0 = cu("cuMemGetInfo")[0]
                for _ in range(copies):
                    execs.append(self._call(self.inst, "cuGraphInstantiate", g.handle, 0))
                u0 = perf()
                self._call(self.upload, "cuGraphUpload", execs[0], s)
                u1 = perf()
                self._call(self.sync, "cuStreamSynchronize", s)
                u2 = perf()
                for h2 in execs[1:]:
                    self._call(self.upload, "cuGraphUpload", h2, s)
                self._call(self.sync, "cuStreamSynchronize", s)
                free1 = cu("cuMemGetInfo")[0]
                l0 = perf()
                self._call(self.launch, "cuGraphLaunch", execs[0], s)
                l1 = perf()
                self._call(self.sync, "cuStreamSynchronize", s)
            finally:
                for h2 in execs:
                    cu("cuGraphExecDestroy", h2)
                g.close()
            for key, v in (("capture_us", _us(t0, t1)), ("build_us", _us(t2, t3)), ("instantiate_us", _us(t4, t5)),
                           ("first_launch_api_us", _us(t6, t7)), ("first_launch_total_us", _us(t6, t8)),
                           ("repeat_launch_api_us", _us(t8, t9)), ("repeat_launch_total_us", _us(t8, t10)),
                           ("upload_api_us", _us(u0, u1)), ("upload_total_us", _us(u0, u2)),
                           ("uploaded_launch_api_us", _us(l0, l1)),
                           ("exec_bytes", max(0, free0 - free1) / copies)):
                got[key].append(v)
            return _us(t4, t5)

        reason, n = _adaptive(self.plan, sample, MEASURES["instantiate_us"][2])
        for k in got:  # the warm-up sample is in the lists too: drop it
            got[k] = got[k][-n:]
        return got, {k: reason for k in got}

    # --- steady state on one ready executable ---------------------------------------------------------------------
    def steady(self, exe) -> tuple[dict, dict, dict]:
        """Eager iterations and graph replays of the ready executable ``exe``: (samples per cost, facts, stop
        reason per cost). The held launches come later, in rounds over every point (``_held_rounds``)."""
        got: dict[str, list[float]] = {"eager_us_per_iter": [], "graph_us_per_iter": []}
        w, shape, s = self.w, self.shape, self.s
        perf = time.perf_counter_ns
        r_eager = _iterations(w.per_unit * shape.length * 4.0)
        r_graph = _iterations(max(3.0, self.nodes * 0.6))
        info = {"eager_iterations": r_eager, "graph_iterations": r_graph}
        reasons = {}
        launch, h = self.launch, exe.handle

        def eager() -> float:
            self._call(self.sync, "cuStreamSynchronize", s)
            t0 = perf()
            for _ in range(r_eager):
                w.enqueue(shape)
            self._call(self.sync, "cuStreamSynchronize", s)
            v = _us(t0, perf()) / r_eager
            got["eager_us_per_iter"].append(v)
            return v

        def graph() -> float:
            self._call(self.sync, "cuStreamSynchronize", s)
            t0 = perf()
            for _ in range(r_graph):
                r = launch(h, s)
                if r[0]:
                    check(r, "cuGraphLaunch")
            self._call(self.sync, "cuStreamSynchronize", s)
            v = _us(t0, perf()) / r_graph
            got["graph_us_per_iter"].append(v)
            return v

        for key, fn in (("eager_us_per_iter", eager), ("graph_us_per_iter", graph)):
            reason, n = _adaptive(self.plan, fn, MEASURES[key][2])
            got[key] = got[key][-n:]  # drop the warm-up sample
            reasons[key] = reason
        w.stream.synchronize()
        return got, info, reasons

    # --- Python against C, paired, on the same graph ---------------------------------------------------------------
    def paired_instantiate(self, floor) -> tuple[dict, str]:
        """Samples of (Python cuGraphInstantiate, C cuGraphInstantiateWithFlags) on one fresh capture each: two
        pairs per sample, P C then C P (the next sample C P then P C), each executable destroyed outside the
        timing; after one warm-up sample, until the per-pair ratio's median is known within 2% (at least
        ``PAIR_MIN_SAMPLES``, an even count) or the time cap, at most ``PAIR_MAX_SAMPLES``. Returns (raw pairs,
        stop reason)."""
        perf = time.perf_counter_ns
        out = {"python_us": [], "c_us": [], "group": [], "python_first": []}
        inst, destroy = self.inst, self.destroy

        def python_us(gh) -> float:
            t0 = perf()
            r = inst(gh, 0)
            t1 = perf()
            if r[0]:
                check(r, "cuGraphInstantiate")
            self._call(destroy, "cuGraphExecDestroy", r[1])
            return _us(t0, t1)

        def sample(i: int, keep: bool) -> None:
            with self.w.capture(self.shape) as g:
                order = ("python", "c") if i % 2 == 0 else ("c", "python")
                for seq in (order, order[::-1]):
                    got = {}
                    for way in seq:
                        got[way] = python_us(g.handle) if way == "python" else floor.instantiate_ns(g, 1)[0] / 1e3
                    if keep:
                        out["python_us"].append(got["python"])
                        out["c_us"].append(got["c"])
                        out["group"].append(i)
                        out["python_first"].append(seq[0] == "python")

        sample(1, keep=False)  # warm-up
        t0 = time.perf_counter()
        cap = self.plan.time_cap_s
        reason, i = "max_samples", 0
        while i < PAIR_MAX_SAMPLES:
            sample(i, keep=True)
            i += 1
            if i < PAIR_MIN_SAMPLES or i % 2:
                continue
            ratios = [a / b for a, b in zip(out["python_us"], out["c_us"]) if b > 0]
            if median_ci_halfwidth(ratios) <= TARGET_SPREAD:
                reason = "spread"
                break
            if time.perf_counter() - t0 > cap:
                reason = "time_cap"
                break
        return {k: [round(v, 4) if isinstance(v, float) else v for v in vs] for k, vs in out.items()}, reason


def _native_floors(entry: dict | None = None, cache=None) -> tuple[object | None, object | None, dict]:
    """The C loops the Python calls are paired with: (InstantiateFloor or None, NativeFloor or None, a note:
    ``{"source", "clock"}`` and ``"unavailable"`` where they cannot be built or have no driver library)."""
    from ...core.errors import CugraphlabError
    from ..native.loops import NativeFloor
    from ..native.instantiate import NATIVE_CLOCK, InstantiateFloor

    note = {"source": "C loops: bench.native_graph (cuGraphInstantiateWithFlags), bench.native (cuGraphLaunch), "
                      "paired with the Python calls on the same graph, stream and hold", "clock": NATIVE_CLOCK}
    try:
        return InstantiateFloor(entry=entry, cache=cache), NativeFloor(entry=entry, cache=cache), note
    except CugraphlabError as e:  # UnsupportedError (no compiler), NoDeviceError (no libcuda)
        note["unavailable"] = f"{type(e).__name__}: {e}".splitlines()[0]
        return None, None, note


class _Held:
    """One point's ready executable and its held launches, filled round by round."""

    def __init__(self, index: int, series: str, shape: Shape, nodes: int, graph, exe, c_loop):
        self.index, self.series, self.shape, self.nodes = index, series, shape, nodes
        self.graph, self.exe, self.c_loop = graph, exe, c_loop
        self.k = _held_batch(nodes)
        self.python, self.device, self.c, self.round, self.python_first = [], [], [], [], []
        self.timed_out = 0
        self.released = True

    def close(self) -> None:
        self.exe.close()
        self.graph.close()


def _held_rounds(states: list[_Held], hold: DeviceHold, plan: ScalingPlan, progress=None) -> dict:
    """Held launches in rounds over every point: round r visits the points rotated by r * n / rounds (so a point
    takes a different place in each round, spread evenly over the sweep); per visit ``plan.held_pairs`` pairs of holds (Python K launches, C K launches, alternating
    which goes first; Python alone without a C loop). A pair whose hold let go by its timeout is dropped and the
    point's K halved. After two rounds the rest stop once ``HELD_SHARE`` of the budget is spent. Returns facts."""
    n = len(states)
    t0 = time.perf_counter()
    budget = plan.budget_s * HELD_SHARE
    done = 0
    for r in range(plan.held_rounds):
        order = round_order(list(range(n)), (r * n) // max(1, plan.held_rounds))
        for pos, i in enumerate(order):
            st = states[i]
            h = st.exe.handle
            for j in range(plan.held_pairs):
                python_first = (r + j + i) % 2 == 0
                ways = ("python", "c") if python_first else ("c", "python")
                if st.c_loop is None:
                    ways = ("python",)
                for _attempt in range(3):
                    got = {}
                    for way in ways:
                        got[way] = hold.time_graph_launches(h, st.k, loop=None if way == "python" else st.c_loop)
                        st.released = st.released and hold.was_released
                    if not any(g.timed_out for g in got.values()):
                        break
                    st.timed_out += 1
                    st.k = max(1, st.k // 2)  # the queue may have filled: fewer launches behind the next hold
                else:
                    continue
                st.python.append(round(got["python"].host_us, 4))
                st.device.append(got["python"].device_us)
                st.c.append(round(got["c"].host_us, 4) if "c" in got else None)
                st.round.append(r)
                st.python_first.append(python_first if "c" in got else True)
        done = r + 1
        if progress:
            progress(f"held launches, round {done}/{plan.held_rounds}: {n} points, "
                     f"{time.perf_counter() - t0:.1f} s")
        if done >= 2 and time.perf_counter() - t0 > budget:
            break
    return {"rounds": done, "planned_rounds": plan.held_rounds, "pairs_per_round": plan.held_pairs,
            "seconds": round(time.perf_counter() - t0, 3), "order": "rotated by round_index * points / rounds"}


def _first_launches(workload: ScalingWorkload) -> dict:
    """The cold first launch of the empty kernel in this process (module loading included where lazy) against
    warm ones: API time and until complete, µs."""
    perf = time.perf_counter_ns
    s = workload.stream
    launch = workload.empty[0]
    t0 = perf()
    launch()
    t1 = perf()
    s.synchronize()
    t2 = perf()
    warm_api, warm_total = [], []
    for _ in range(20):
        a = perf()
        launch()
        b = perf()
        s.synchronize()
        c = perf()
        warm_api.append(_us(a, b))
        warm_total.append(_us(a, c))
    warm_api.sort()
    warm_total.sort()
    return {"cold_launch_api_us": _us(t0, t1), "cold_launch_total_us": _us(t0, t2),
            "warm_launch_api_us": warm_api[len(warm_api) // 2],
            "warm_launch_total_us": warm_total[len(warm_total) // 2]}


def _first_instantiate(workload: ScalingWorkload) -> dict:
    perf = time.perf_counter_ns
    out = []
    for _ in range(3):
        with workload.capture(Shape("line", 1)) as g:
            t0 = perf()
            h = cu("cuGraphInstantiate", g.handle, 0)
            t1 = perf()
            cu("cuGraphExecDestroy", h)
        out.append(_us(t0, t1))
    return {"first_instantiate_us": out[0], "later_instantiate_us": min(out[1:])}


def _module_loading(first: dict, instantiate: dict) -> dict:
    env = os.environ.get("CUDA_MODULE_LOADING")
    effective = env.upper() if env else "LAZY (the driver's default since CUDA 12.2; variable not set)"
    shift = first["cold_launch_total_us"] - first["warm_launch_total_us"]
    lazy = env is None or env.upper() == "LAZY"
    note = (f"first launch of the empty kernel in this process: {first['cold_launch_total_us']:.1f} µs until "
            f"complete against {first['warm_launch_total_us']:.1f} µs warm ({shift:+.1f} µs)"
            + ("; with lazy loading a kernel is loaded at its first launch, so a program's first launch carries "
               "it: every kernel here is launched before any timing, and the sweep's 'first launch' figures are "
               "a graph's first launch, not a module's" if lazy else "; eager loading: modules load whole at "
                                                                       "cuModuleLoadData"))
    return {"CUDA_MODULE_LOADING": env, "effective": effective, **first, **instantiate, "note": note}


def _paired_eligible(shape: Shape, nodes: int) -> bool:
    """Paired instantiation: every straight line (the per-node slope), and the fork/joins in the launch goal's
    range (cheap: under 130 nodes)."""
    lo, hi = LAUNCH_GOAL_RANGE
    return shape.topology == "line" or lo <= nodes <= hi


def measure_scaling(device=0, plan: ScalingPlan | None = None, *, seed: int | None = None,
                    progress: Callable[[str], None] | None = None, native: bool = True,
                    native_entry: dict | None = None, native_cache=None) -> ScalingResult:
    """Measure every point of ``plan`` (default: ``make_plan()``) on ``device`` (a Device or an index).

    Per point (in the plan's order): the checks, the lifecycle, eager and graph replays, the paired instantiation
    (Python and C on the same capture); then the held launches, Python and C paired, in rounds over every point.
    ``native``: False measures the Python side alone (no C loop is built); ``native_entry``/``native_cache``: the
    driver entry points the C loops call (default libcuda's; a test gives ctypes callbacks) and where the built
    libraries are kept. Returns a ScalingResult, analysed (fits, verdict, break-even, unrolling, paired, goals).
    """
    from ...core.device import Device
    from ..records.environment import collect

    plan = plan or make_plan()
    t_start = time.perf_counter()
    own = not hasattr(device, "compute_capability")
    dev = Device(device) if own else device
    states: list[_Held] = []
    try:
        names = [*scaling_kernel_names(plan.work), HOLD_KERNEL]
        with dev.load_kernels(names=names) as kernels, \
                ScalingWorkload(dev, plan.work, max_width=plan.max_width, n=plan.size, kernels=kernels,
                                seed=seed) as workload, \
                DeviceHold(dev, kernels, workload.stream) as hold:
            first = _first_launches(workload)
            inst0 = _first_instantiate(workload)
            env = collect(dev)
            env["driver"]["version_int"] = cu("cuDriverGetVersion")
            env["CUDA_MODULE_LOADING"] = os.environ.get("CUDA_MODULE_LOADING")
            if native:
                inst_floor, launch_floor, note = _native_floors(native_entry, native_cache)
            else:
                inst_floor, launch_floor, note = None, None, {"unavailable": "not asked for (native=False)"}
            result = ScalingResult(
                config={**plan.to_dict(), "device": getattr(dev, "ordinal", device), "seed": seed,
                        "kernels": names, "per_unit_nodes": workload.per_unit, "kept_samples": KEPT_SAMPLES,
                        "fork_join_nodes": "an empty-kernel fork node before the branches and a join node after",
                        "pair_samples": [PAIR_MIN_SAMPLES, PAIR_MAX_SAMPLES]},
                env=env, clocks=clocks("host_api", "host_call", "wall", "globaltimer"),
                module_loading=_module_loading(first, inst0), native=note)
            if "unavailable" not in note:
                result.clocks["c_monotonic"] = note["clock"]
            elif progress:
                progress(f"native C loops: {note['unavailable']}; the Python figures stand alone")
            for i, shape in enumerate(plan.shapes):
                point, state = _measure_point(result, workload, hold, shape, plan, dev, inst_floor, launch_floor,
                                              i)
                result.points.append(point)
                states.append(state)
                if progress:
                    sm = point["summaries"]
                    ratio = point["stop"].get("paired_ratio_median")
                    progress(f"[{i + 1}/{len(plan.shapes)}] {shape.label}: {point['nodes']} nodes, instantiate "
                             f"{sm['instantiate_us']['median']:.1f} µs"
                             + (f", python/C paired x{ratio:.3f}" if ratio else "")
                             + ("" if point["ok"] else "  CHECK FAILED"))
            held = _held_rounds(states, hold, plan, progress)
            result.config["held"] = held
            for point, st in zip(result.points, states):
                _finish_held(result, point, st)
    finally:
        for st in states:
            st.close()
        if own:
            dev.close()
    result.elapsed_s = time.perf_counter() - t_start
    return analyze(result)


def _summaries(result: ScalingResult, series: str, length: int, costs: dict, reasons: dict) -> dict:
    """Keep each cost's raw samples and return its Summary (a short dict) by cost."""
    out = {}
    for cost, values in costs.items():
        _title, unit, clock = MEASURES[cost]
        finite = [v for v in values if v is not None and math.isfinite(v)]
        if not finite:
            continue
        kept = kept_samples(finite, unit, None if cost in PAIRED_COSTS else KEPT_SAMPLES)
        result.keep_samples(_sample_label(series, length, cost), kept, unit, clock)
        out[cost] = _short(summarize(finite, unit=unit, clock=clock or "cuMemGetInfo",
                                     stop_reason=reasons.get(cost, "fixed")).to_dict())
    return out


def _measure_point(result: ScalingResult, workload, hold, shape: Shape, plan: ScalingPlan, device, inst_floor,
                   launch_floor, index: int) -> tuple[dict, _Held]:
    pt = _Point(workload, hold, shape, plan, device)
    checks = pt.check()
    life, life_reasons = pt.lifecycle()
    series = series_key(shape.topology, shape.width)
    graph = workload.capture(shape)
    try:
        exe = graph.instantiate()
    except BaseException:
        graph.close()
        raise
    state = _Held(index, series, shape, pt.nodes, graph, exe, None)
    exe.upload(workload.stream)
    for _ in range(3):
        exe.launch(workload.stream)
    workload.stream.synchronize()
    steady, info, steady_reasons = pt.steady(exe)
    paired: dict = {}
    pair_reason = None
    if inst_floor is not None and _paired_eligible(shape, pt.nodes):
        paired["instantiate"], pair_reason = pt.paired_instantiate(inst_floor)
    if launch_floor is not None:
        state.c_loop = launch_floor.graph_loop(exe, workload.stream)
    costs = {**life, **steady}
    if "instantiate" in paired:
        raw = paired["instantiate"]
        costs["pair_instantiate_python_us"] = raw["python_us"]
        costs["pair_instantiate_c_us"] = raw["c_us"]
        # the values live in the record's samples (kept whole); the point keeps how they pair up
        paired["instantiate"] = {"python": _sample_label(series, shape.length, "pair_instantiate_python_us"),
                                 "c": _sample_label(series, shape.length, "pair_instantiate_c_us"),
                                 "group": raw["group"], "python_first": [int(v) for v in raw["python_first"]]}
        point_ratio = [a / b for a, b in zip(raw["python_us"], raw["c_us"]) if b > 0]
    else:
        point_ratio = []
    reasons = {**life_reasons, **steady_reasons, "pair_instantiate_python_us": pair_reason,
               "pair_instantiate_c_us": pair_reason}
    summaries = _summaries(result, series, shape.length, costs, reasons)
    ok = checks["ok"] and checks["verified"] is not False
    point = {"topology": shape.topology, "length": shape.length, "width": shape.width, "work": plan.work,
             "nodes": pt.nodes, "edges": shape.edges(workload.per_unit), "series": series,
             "structure": {k: checks[k] for k in ("expected", "capture", "explicit")},
             "verified": checks["verified"], "mismatches": checks["mismatches"], "failures": checks["failures"],
             "iterations": {"eager": info["eager_iterations"], "graph": info["graph_iterations"]},
             "stop": {"lifecycle": life_reasons.get("instantiate_us"), "eager": steady_reasons.get("eager_us_per_iter"),
                      "graph": steady_reasons.get("graph_us_per_iter"), "paired_instantiate": pair_reason},
             "summaries": summaries, "paired": paired, "ok": bool(ok)}
    if point_ratio:
        point["stop"]["paired_ratio_median"] = round(statistics.median(point_ratio), 4)
    return point, state


def _finish_held(result: ScalingResult, point: dict, st: _Held) -> None:
    """A point's held launches (all rounds) into its summaries, raw samples and raw pairs."""
    costs = {"held_launch_us": st.python, "device_us": st.device,
             "held_launch_c_us": [v for v in st.c if v is not None]}
    point["summaries"].update(_summaries(result, st.series, st.shape.length, costs,
                                         {k: "fixed" for k in costs}))  # fixed: the rounds' count
    has_c = any(v is not None for v in st.c)
    point["paired"]["launch"] = {"python": _sample_label(st.series, st.shape.length, "held_launch_us"),
                                 "c": _sample_label(st.series, st.shape.length, "held_launch_c_us") if has_c else None,
                                 "group": st.round, "python_first": [int(v) for v in st.python_first],
                                 "launches": st.k}
    point["held"] = {"held_launches": st.k, "held_timed_out": st.timed_out, "held_released": st.released,
                     "pairs": len(st.python)}
    point["stop"]["held"] = "rounds"
    point["ok"] = bool(point["ok"] and st.released and st.timed_out == 0 and st.python)


def _short(summary: dict) -> dict:
    """A summary's floats to 6 significant digits (far below its spread): the record's size, not its meaning."""
    return {k: float(f"{v:.6g}") if isinstance(v, float) and math.isfinite(v) else v for k, v in summary.items()}
