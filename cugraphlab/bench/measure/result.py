"""The record of ``measure``: per way, host / wall / device µs per call with intervals, the graph's one-off costs
and break-even, the SM clock, the user's check, and the raw samples ``diff`` judges.

One process or several: each process's raw outcome (a plain dict, ``part``: what a worker sends back) goes into
``build_result(parts)``. Samples are pooled over the processes and keep, per value, the process it came from
(``groups``), so that ``diff`` and the intervals here resample processes, not samples: launch cost has modes that
are set per process (docs/studies/launch-cost-modes.md), and two processes are two observations of it, however
many samples each took.

Rows kept for ``diff``: ``"WAY: host"``, ``"WAY: wall"``, ``"WAY: device"``, ``"WAY: held"`` and ``"WAY: cold"``
for every way measured (each sample dict names its clock: ``host_call``, ``wall``, ``device``, ``held``,
``cold``; a way that cannot be held has no held or cold row, and its ``gpu_note`` says why), and with the
reference (the bare launch of an empty kernel timed in the same rounds) ``"WAY: host / reference"``, unit "time
ratio": the per-round ratio, paired, so that a process's launch-cost mode divides out. The capture and instantiate
samples stay in ``graph_costs`` (a few per process: too few to judge, and not per-call figures).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

from ..records.record import CLOCKS, MAX_SAMPLES, Record, bounded, clocks
from ..stats.paired_stats import hierarchical_bootstrap
from ..stats.summary import Summary, summarize
from .way import REFERENCES, reference_of

__all__ = ["WayResult", "MeasureResult", "build_result", "CLOCK_OF", "MEASURE_CLOCKS", "ANSWERS"]

#: the clock of each figure of a way -> its key in ``records.CLOCKS``
CLOCK_OF = {"host": "host_call", "wall": "wall", "device": "device", "held": "held", "cold": "cold"}
MEASURE_CLOCKS = ("host", "wall", "device", "held", "cold")
#: which figure answers which question (the text, ``show`` and docs/measure.md say it the same way)
ANSWERS = {"held": "how long the work runs on the GPU (K calls queued behind the hold, no host gap)",
           "cold": "how long one call runs on the GPU with a cold L2 (a first touch)",
           "host": "what a call costs the launching thread",
           "wall": "what a call costs until the GPU is done",
           "device": "CUDA events around calls the host makes one by one (the host's pace when calls are short)"}


@dataclass
class WayResult:
    """One way: its five figures (µs per call; None where it was not measured, ``note`` says why; ``held`` and
    ``cold`` None with ``gpu_note`` saying why, e.g. "n/a: the work synchronises ..."), ``held_calls`` (K, the calls
    of a held sample), ``relative``
    (its host cost over the reference's, round by round: the call's cost in bare launches of an empty kernel; None
    without a reference), their intervals (clock -> ``{"median", "lo", "hi", "n", "groups", "level"}``, processes
    as the unit when there were several), a failed capture's ``diagnosis`` (the doctor's), and ``check``:
    "passed", "FAILED: ..." or None."""

    way: str
    what: str
    host: Summary | None = None
    wall: Summary | None = None
    device: Summary | None = None
    held: Summary | None = None
    cold: Summary | None = None
    relative: Summary | None = None
    intervals: dict = field(default_factory=dict)
    note: str = ""
    diagnosis: dict | None = None
    check: str | None = None
    gpu_note: str = ""
    held_calls: int | None = None

    @property
    def measured(self) -> bool:
        return self.wall is not None

    def figure(self, clock: str = "wall") -> Summary | None:
        if clock not in MEASURE_CLOCKS:
            raise KeyError(f"clock must be one of {', '.join(MEASURE_CLOCKS)}, got {clock!r}")
        return getattr(self, clock)


@dataclass(kw_only=True)
class MeasureResult(Record):
    """What ``cugraphlab.measure`` returns (and ``cugraphlab measure`` writes with ``--json``)."""

    KIND: ClassVar[str] = "cugraphlab.measure"

    work: str
    ways: list[WayResult] = field(default_factory=list)
    graph_costs: dict = field(default_factory=dict)
    sm_clock: dict = field(default_factory=dict)
    stop_reason: str = "fixed"
    calls_per_sample: int = 0
    processes: int = 1
    process_notes: list = field(default_factory=list)
    sampling: dict = field(default_factory=dict)

    def way(self, name: str) -> WayResult:
        for w in self.ways:
            if w.way == name:
                return w
        raise KeyError(f"no way {name!r} in this result; ways: {', '.join(w.way for w in self.ways)}")

    def __getitem__(self, name: str) -> WayResult:
        return self.way(name)

    @property
    def capture_failed(self) -> bool:
        return any(w.diagnosis is not None for w in self.ways)

    @property
    def verified(self) -> bool | None:
        """True when every check passed, False when one failed, None when nothing was checked."""
        checks = [w.check for w in self.ways if w.check is not None]
        if not checks:
            return None
        return all(c == "passed" for c in checks)

    @property
    def break_even(self) -> dict:
        """After how many calls the graph (its capture, instantiate and upload paid once, then one replay per
        call) costs less than calling eagerly, on the wall clock: ``{"calls": N or None, "setup_us", "saved_us",
        "reason"}``."""
        setup = self.graph_costs.get("setup_us")
        try:
            eager, graph = self.way("eager").wall, self.way("graph").wall
        except KeyError:
            return {"calls": None, "setup_us": setup, "saved_us": None, "reason": "needs the eager and graph ways"}
        if eager is None or graph is None or setup is None:
            return {"calls": None, "setup_us": setup, "saved_us": None, "reason": "eager or graph not measured"}
        saved = eager.median - graph.median
        if saved <= 0:
            return {"calls": None, "setup_us": setup, "saved_us": saved,
                    "reason": "a replay costs no less than an eager call: the graph never pays off"}
        return {"calls": int(math.ceil(setup / saved)), "setup_us": setup, "saved_us": saved, "reason": ""}

    def _extra_dict(self) -> dict:
        return {"break_even": self.break_even, "verified": self.verified}

    def save(self, path) -> str:
        """Write this record as JSON to ``path`` (what ``cugraphlab measure --json`` writes; ``cugraphlab diff``
        and ``cugraphlab show`` read it). Returns the path written."""
        from ...core.files import write_json

        write_json(path, self)
        return str(path)

    def _html_table(self):
        headers = ["way", "held µs/call", "cold µs/call", "host µs/call", "wall µs/call", "device µs/call", "x ref",
                   "check", "note"]
        rows = []
        for w in self.ways:
            cells = [f"{s.median:.3f}" if s is not None else "" for s in (w.held, w.cold, w.host, w.wall, w.device,
                                                                         w.relative)]
            rows.append([w.way, *cells, w.check or "", w.note or w.gpu_note])
        return headers, rows


def _interval(groups: list[list[float]]) -> dict | None:
    iv = hierarchical_bootstrap(groups)
    return iv.to_dict() if iv is not None else None


def _pooled(parts: list[dict], way: str, clock: str) -> tuple[list[float], list[int]]:
    """Every process's samples of one row, pooled, and the process of each; thinned evenly within each process
    when together they exceed what a record keeps (``records.MAX_SAMPLES``), so that no value loses its group."""
    per = [[float(x) for x in p.get("values", {}).get(way, {}).get(clock, [])] for p in parts]
    if sum(map(len, per)) > MAX_SAMPLES:
        per = [bounded(v, max(1, MAX_SAMPLES // len(per))) for v in per]
    values, groups = [], []
    for i, v in enumerate(per):
        values += v
        groups += [i] * len(v)
    return values, groups


def _ratios(part: dict, way: str) -> list[float]:
    """host(way) / host(its reference), round by round, in one process (the rounds are the samples' order): a
    graph way over the graph reference where one was timed, every other way over the reference."""
    values = part.get("values", {})
    ref = reference_of(way) if reference_of(way) in values else "reference"
    a, b = values.get(way, {}).get("host", []), values.get(ref, {}).get("host", [])
    return [x / y for x, y in zip(a, b) if y > 0]


def _costs(parts: list[dict]) -> dict:
    out: dict = {}
    for key in ("capture_us", "instantiate_us", "upload_us"):
        v = [float(x) for p in parts for x in p.get("costs", {}).get(key, [])]
        if v:
            out[key] = summarize(v, unit="us", clock=CLOCKS["host_api"]).to_dict()
            out[key]["values"] = v
    nodes = [p.get("costs", {}).get("nodes") for p in parts if p.get("costs", {}).get("nodes") is not None]
    if nodes:
        out["nodes"] = nodes[0]
    setup = [out[k]["median"] for k in ("capture_us", "instantiate_us", "upload_us") if k in out]
    if "instantiate_us" in out:
        out["setup_us"] = float(sum(setup))
    return out


def _sm_clock(parts: list[dict]) -> dict:
    from ..probes.sm_clock import LOW_CLOCK_FRACTION, clock_low

    mhz = [m for p in parts for m in p.get("mhz", []) if m is not None and math.isfinite(m)]
    rated = next((p.get("rated_mhz") for p in parts if p.get("rated_mhz")), None)
    notes = sorted({p.get("sm_note", "") for p in parts if p.get("sm_note")})
    out = {"rated_mhz": rated, "rounds": len(mhz), "low_rounds": sum(1 for m in mhz if clock_low(m, rated)),
           "low_fraction": LOW_CLOCK_FRACTION, "note": "; ".join(notes), "clock": CLOCKS["sm_clock"]}
    if mhz:
        s = summarize(mhz, unit="MHz", clock=CLOCKS["sm_clock"])
        out.update(median_mhz=s.median, min_mhz=s.min, max_mhz=s.max)
    return out


def _stop_reason(parts: list[dict]) -> str:
    reasons = [p.get("stop_reason", "fixed") for p in parts]
    for r in ("time_cap", "max_samples", "spread", "fixed"):  # the weakest reason of any process
        if r in reasons:
            return r
    return "fixed"


def _keep_relative(result, w: WayResult, per_process: list[list[float]], grouped: bool, reason: str) -> None:
    if sum(map(len, per_process)) > MAX_SAMPLES:
        per_process = [bounded(v, max(1, MAX_SAMPLES // len(per_process))) for v in per_process]
    values = [v for p in per_process for v in p]
    if not values:
        return
    w.relative = summarize(values, unit="time ratio", clock=CLOCKS["host_call"], stop_reason=reason)
    w.intervals["relative"] = _interval(per_process)
    label = f"{w.way}: host / reference"
    result.keep_samples(label, values, unit="time ratio", clock="host_call")
    if grouped:
        result.samples[label]["groups"] = [i for i, p in enumerate(per_process) for _ in p]


def build_result(parts: list[dict], *, config: dict, env: dict, sampling: dict | None = None,
                 notes: list[str] | None = None) -> MeasureResult:
    """One MeasureResult from the raw outcome of each process (``parts``, in process order). ``config``: what
    defines the measurement (two records of different configs measure different things); ``sampling``: how long
    it sampled (budgets, sample counts), which does not change what is measured."""
    first = parts[0]
    reason = _stop_reason(parts)
    grouped = len(parts) > 1
    result = MeasureResult(config=dict(config), env=env, clocks=clocks(*CLOCK_OF.values()),
                           work=first.get("work", ""), graph_costs=_costs(parts), sm_clock=_sm_clock(parts),
                           stop_reason=reason, calls_per_sample=int(first.get("calls", 0)), processes=len(parts),
                           process_notes=list(notes or []), sampling=dict(sampling or {}))
    if result.sm_clock.get("rounds"):
        result.clocks["sm_clock"] = CLOCKS["sm_clock"]
    for spec in first.get("ways", []):
        name = spec["name"]
        w = WayResult(way=name, what=spec.get("what", ""), note=spec.get("note", ""),
                      diagnosis=spec.get("diagnosis"))
        gpu_notes = sorted({p.get("gpu_notes", {}).get(name, "") for p in parts} - {""})
        w.gpu_note = "; ".join(gpu_notes)
        ks = [p.get("held_calls", {}).get(name) for p in parts if p.get("held_calls", {}).get(name)]
        w.held_calls = min(ks) if ks else None
        checks = [p.get("checks", {}).get(name) for p in parts]
        checks = [c for c in checks if c is not None]
        if checks:
            failed = [c for c in checks if c != "passed"]
            w.check = failed[0] if failed else "passed"
        for clock in MEASURE_CLOCKS:
            values, groups = _pooled(parts, name, clock)
            if not values:
                continue
            setattr(w, clock, summarize(values, unit="us", clock=CLOCKS[CLOCK_OF[clock]], stop_reason=reason))
            per_process = [[v for v, g in zip(values, groups) if g == i] for i in range(len(parts))]
            w.intervals[clock] = _interval(per_process)
            label = f"{name}: {clock}"
            result.keep_samples(label, values, unit="us", clock=CLOCK_OF[clock])
            if grouped and len(result.samples[label]["values"]) == len(values):
                result.samples[label]["groups"] = groups
        if name not in REFERENCES and w.host is not None:
            _keep_relative(result, w, [_ratios(p, name) for p in parts], grouped, reason)
        result.ways.append(w)
    return result
