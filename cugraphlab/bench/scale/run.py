"""``cugraphlab scale``: the launch rate from many threads, GPUs and processes, measured and checked.

    config = resolve_devices(make_config(threads="1,2,4,8", launch="eager,graph"))   # validates, cuInit only
    record = run_scale(config)                                                    # a ScaleResult record

Every point runs in fresh worker processes (spawn, ``bench.workers.run_workers``): the parent process never opens a
device, so no point inherits another's driver state. A point's processes start each timed round together; within a
round the rate of all workers together is total launches / (latest end - earliest start) on the host clock, and each
worker's own rate and µs per launch come from its own loop. Each point is repeated (kinds interleaved within a
repeat) and the median over repeats reported. Before the points, ``scale.gil.gil_probe_main`` asks whether the
binding releases the GIL around cuLaunchKernel.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar

import numpy as np

from ...core.errors import InvalidArgumentError
from ..records.record import Record, clocks
from ..workers import WorkerOutcome, run_workers
from .gil import gil_probe_main, gil_verdict
from .plan import KERNELS_PER_ITER, Point, ScaleConfig, kind_unroll, plan_points
from .rates import add_speedups, combine_repeats, round_rates
from .worker import process_main

__all__ = ["run_scale", "point_rows", "ScaleResult", "RECORD_KIND"]

RECORD_KIND = "cugraphlab.scale"


def _median(values) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.median(vals)) if vals else None


def point_rows(point: Point, config: ScaleConfig, outcomes: list[WorkerOutcome]) -> list[dict]:
    """One row per launch kind for ``point`` from its worker processes' outcomes (see scale.worker.process_main).

    A row: the point (axis, label, layout, workers, processes, devices), the kind, rates (combine_repeats), checks
    (``verified``: every check passed; None when nothing could be checked), probe rate, device evidence, errors.
    """
    errors = [f"process {o.index}: {o.error}" for o in outcomes if not o.ok]
    records = [r for o in outcomes if o.ok for r in o.result["records"]]
    evidence = [e for o in outcomes if o.ok for e in o.result.get("evidence", [])]
    names = {k: v for o in outcomes if o.ok for k, v in o.result.get("device_names", {}).items()}
    rows = []
    for kind in config.kinds:
        _, k = kind_unroll(kind)
        row = {**point.to_dict(), "kind": kind, "unroll": k, "work": config.work, "size": config.size,
               "stream": config.stream, "launches_per_worker": config.launches,
               "kernels_per_iter": KERNELS_PER_ITER[config.work], "device_names": names, "errors": errors,
               "ok": not errors, "calls_per_s": None, "iters_per_s": None, "verified": False if errors else None,
               "evidence": [], "idle_fraction": None, "gap_us": None}
        rows.append(row)
        if errors:
            continue
        timed = [r for r in records if r["kind"] == kind and not r["probe"]]
        per_repeat = [round_rates([r for r in timed if r["repeat"] == rep]) for rep in range(config.repeats)]
        row.update(combine_repeats(per_repeat))
        row["us_per_call_samples"] = [v for r in per_repeat for v in r["us_per_call"]]
        probe = [r for r in records if r["kind"] == kind and r["probe"]]
        row["probe_calls_per_s"] = round_rates(probe)["calls_per_s"] if probe else None
        checks = [r["verified"] for r in timed + probe if r.get("verified") is not None]
        row["checks"] = len(checks)
        row["verified"] = all(checks) if checks else None
        row["mismatches"] = sum(int(r.get("mismatches", 0)) for r in timed)
        row["launches_counted"] = all(r["verified"] for r in probe) if probe else None
        ev = [e for e in evidence if e["kind"] == kind]
        row["evidence"] = ev
        row["idle_fraction"] = _median(e["idle_fraction"] for e in ev)
        row["gap_us"] = _median(e["gap_us"]["median"] for e in ev)
    return rows


def _process_kwargs(point: Point, config: ScaleConfig) -> list[dict]:
    return [dict(devices=list(proc), kinds=list(config.kinds), launches=config.launches, work=config.work,
                 size=config.size, stream=config.stream, repeats=config.repeats, evidence=point.evidence,
                 timeout_s=config.timeout_s, seed=config.seed) for proc in point.layout]


def run_gil_probe(config: ScaleConfig) -> tuple[dict | None, dict | None]:
    """(probe result without env, env) from one spawned process on the first device; (error dict, None) on failure."""
    if config.gil_seconds <= 0:
        return None, None
    [out] = run_workers(gil_probe_main, [{"device": config.devices[0], "seconds": config.gil_seconds}],
                        timeout_s=min(config.timeout_s, 60 + 10 * config.gil_seconds), start_together=False)
    if not out.ok:
        return {"error": out.error}, None
    result = dict(out.result)
    env = result.pop("env", None)
    return result, env


@dataclass(kw_only=True)
class ScaleResult(Record):
    """``cugraphlab scale``: ``points`` (rows, see point_rows, with ``speedup`` and ``efficiency``), ``gil`` (probe
    rates) and ``gil_verdict``, ``findings`` (the report's sentences, filled by the CLI); raw samples: µs per call of
    every worker and repeat, per point and launch kind."""

    KIND: ClassVar[str] = RECORD_KIND

    points: list[dict] = field(default_factory=list)
    gil: dict | None = None
    gil_verdict: dict | None = None
    findings: list[str] = field(default_factory=list)


def run_scale(config: ScaleConfig, progress: Callable[[str], None] | None = None) -> ScaleResult:
    """Measure every point of ``config`` (devices resolved, see scale.plan.resolve_devices); returns the record
    (its ``env``: bench.records.environment.collect of the first device)."""
    say = progress or (lambda _msg: None)
    if config.devices is None:
        raise InvalidArgumentError("run_scale needs resolved devices: call bench.scale.plan.resolve_devices(config) first")
    say("GIL probe: a busy Python thread beside a launching one")
    gil, env = run_gil_probe(config)
    points = plan_points(config)
    rows: list[dict] = []
    for i, point in enumerate(points, 1):
        say(f"[{i}/{len(points)}] {point.label}")
        outcomes = run_workers(process_main, _process_kwargs(point, config), config.timeout_s,
                               start_together=True)
        rows.extend(point_rows(point, config, outcomes))
        for r in rows[-len(config.kinds):]:
            if r["errors"]:
                say(f"    {r['kind']}: FAILED: {r['errors'][0]}")
            else:
                say(f"    {r['kind']}: {r['calls_per_s'] / 1e6:.3f} M launches/s")
    add_speedups(rows)
    if env is None:
        from ..records.environment import collect

        env = collect()
    verdict = gil_verdict(gil) if gil and "error" not in gil else None
    result = ScaleResult(config=config.to_dict(), points=rows, gil=gil, gil_verdict=verdict, env=env,
                         clocks=clocks("host_monotonic", "globaltimer"))
    for r in rows:
        if r.get("us_per_call_samples"):
            result.keep_samples(f"{r['label']} {r['kind']}", r["us_per_call_samples"], clock="host_monotonic")
    return result
