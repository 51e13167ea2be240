"""The findings of a ``cugraphlab scale`` record: sentences computed from its numbers (the GIL, threads on one GPU,
what limits them, the device's idle time, the layout that scales, the checks). The record's conclusions; the report
(report.scale) prints them. Pure: a record (``run_scale``'s dict, or the same loaded from JSON) in, strings out.
"""
from __future__ import annotations

from .gil import gil_verdict

__all__ = ["findings", "LAUNCH_BOUND_IDLE", "SCALES_EFFICIENCY"]


def _m(rate) -> str:
    return "-" if rate is None else f"{rate / 1e6:.3f}"


LAUNCH_BOUND_IDLE = 0.5  # the GPU idle more than this share of the time between kernels: launching is the limit

SCALES_EFFICIENCY = 0.8  # speedup / workers at least this: the layout scales

def _find(points, axis, kind, workers=None):
    for r in points:
        if r["axis"] == axis and r["kind"] == kind and (workers is None or r["workers"] == workers) and \
                r.get("calls_per_s"):
            return r
    return None

def _threads_findings(points, kind) -> list[str]:
    base = _find(points, "threads", kind, 1)
    many = [r for r in points if r["axis"] == "threads" and r["kind"] == kind and r["workers"] > 1 and
            r.get("calls_per_s")]
    if base is None or not many:
        return []
    top = max(many, key=lambda r: r["workers"])
    best = max(many, key=lambda r: r["speedup"] or 0)
    out = [f"{kind}: {top['workers']} threads on one GPU launch {_m(top['calls_per_s'])} M/s together, "
           f"{top['speedup']:.2f}x one thread's {_m(base['calls_per_s'])} M/s; each thread's launch takes "
           f"{top['us_per_call']['median']:.2f} us instead of {base['us_per_call']['median']:.2f} us"]
    if best is not top:
        out[-1] += f" (best: {best['workers']} threads, {best['speedup']:.2f}x)"
    return out

def _limit_findings(points, kind, released) -> list[str]:
    out = []
    t_rows = [r for r in points if r["axis"] == "threads" and r["kind"] == kind and r["workers"] > 1 and
              r.get("speedup")]
    gpus = _find(points, "gpus", kind)
    same = _find(points, "threads", kind, gpus["workers"]) if gpus else None
    per_context = bool(gpus and same and gpus.get("speedup") and same.get("speedup")
                       and gpus["speedup"] > same["speedup"] * 1.1)
    if released is True and t_rows and max(r["speedup"] for r in t_rows) < 1.2:
        where = ("the driver takes launches into one context one at a time (its own lock)" if per_context else
                 "launches from one process are serialized, on one context or several (inside the driver, or in "
                 "taking the GIL back after every call)")
        out.append(f"{kind}: the binding releases the GIL, yet more threads on one context gain at most "
                   f"{max(r['speedup'] for r in t_rows):.2f}x: {where}, and threads waiting only add contention")
    elif released is False and t_rows:
        out.append(f"{kind}: the GIL is held through the driver call, so threads of one process cannot launch "
                   "in parallel: the GIL is the first limit")
    procs = _find(points, "processes", kind)
    if gpus and same and gpus.get("speedup") and same.get("speedup"):
        if gpus["speedup"] > same["speedup"] * 1.1:
            out.append(f"{kind}: {gpus['workers']} threads on {gpus['workers']} contexts in one process reach "
                       f"{gpus['speedup']:.2f}x, on one context {same['speedup']:.2f}x: part of the limit is per "
                       "context (the driver's lock)")
        else:
            out.append(f"{kind}: {gpus['workers']} threads reach {gpus['speedup']:.2f}x on separate contexts and "
                       f"{same['speedup']:.2f}x on one: in one process the context is not what limits them")
    if procs and gpus and procs.get("speedup") and gpus.get("speedup"):
        if procs["speedup"] > gpus["speedup"] * 1.1:
            out.append(f"{kind}: a process per GPU reaches {procs['speedup']:.2f}x against {gpus['speedup']:.2f}x "
                       "for one process driving the same GPUs: what one process shares (the GIL each return from "
                       "the driver must take back, process-wide driver state) costs the difference")
        else:
            out.append(f"{kind}: a process per GPU ({procs['speedup']:.2f}x) does no better than one process "
                       f"({gpus['speedup']:.2f}x) here")
    return out

def _evidence_findings(points, kind) -> list[str]:
    out = []
    for r in points:
        if r["kind"] != kind or r.get("idle_fraction") is None or r["axis"] != "threads":
            continue
        state = "idle most of the time: launch-bound" if r["idle_fraction"] > LAUNCH_BOUND_IDLE else \
            "busy most of the time: the device, not launching, is the limit"
        out.append(f"{kind}, {r['label']}: in the probe round the GPU sat idle {r['idle_fraction']:.0%} of the "
                   f"span, median gap "
                   f"{r['gap_us']:.2f} us between kernels: {state}")
    return out

def findings(record: dict) -> list[str]:
    """Sentences computed from the record's numbers: the GIL, threads on one GPU, what limits them, device idle
    time, the layout that scales, and the checks."""
    points = record.get("points", [])
    kinds = list(dict.fromkeys(r["kind"] for r in points))
    gil = record.get("gil") or {}
    verdict = record.get("gil_verdict") or (gil_verdict(gil) if gil and "error" not in gil else None)
    out = []
    if verdict:
        out.append(verdict["text"])
    elif gil.get("error"):
        out.append(f"the GIL probe failed: {gil['error']}")
    released = verdict["released"] if verdict else None
    for kind in kinds:
        out += _threads_findings(points, kind)
        out += _limit_findings(points, kind, released)
        out += _evidence_findings(points, kind)
        multi = [r for r in points if r["kind"] == kind and r["workers"] > 1 and r.get("speedup")]
        good = [r for r in multi if r["efficiency"] >= SCALES_EFFICIENCY]
        if good:
            names = "; ".join(f"{r['label']} ({r['speedup']:.2f}x with {r['workers']})" for r in good)
            out.append(f"{kind}: scales (at least {SCALES_EFFICIENCY:.0%} of ideal): {names}")
        elif multi:
            best = max(multi, key=lambda r: r["speedup"])
            out.append(f"{kind}: nothing scales; best {best['label']}, {best['speedup']:.2f}x with "
                       f"{best['workers']} workers")
    base_e, base_g = _find(points, "threads", "eager", 1), _find(points, "threads", "graph", 1)
    if base_e and base_g:
        out.append(f"one thread: graph launches run {base_g['iters_per_s'] / base_e['iters_per_s']:.2f}x the eager "
                   "iteration rate")
    failed = [r for r in points if r.get("errors") or r.get("verified") is False]
    checks = sum(r.get("checks") or 0 for r in points)
    if failed:
        out.append("CHECK FAILED: " + "; ".join(f"{r['label']} {r['kind']}: "
                                                 f"{r['errors'][0] if r.get('errors') else 'wrong result'}"
                                                 for r in failed[:4]))
    elif checks:
        what = "bit-exact against NumPy" if record.get("config", {}).get("work") == "chain" else \
            "kernel count equal to the launches"
        out.append(f"all {checks} worker checks passed ({what})")
    return out
