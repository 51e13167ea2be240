"""Text of ``cugraphlab scale``: the table, the findings (sentences computed from the numbers) and the CSV rows.

Pure: a record (``bench.scale.run_scale``'s dict, or the same loaded from JSON) in, strings and dicts out.
"""
from __future__ import annotations

from ..bench.scale.gil import gil_verdict
from .tables import format_table

__all__ = ["render_scale", "findings", "csv_rows", "LAUNCH_BOUND_IDLE", "SCALES_EFFICIENCY"]

LAUNCH_BOUND_IDLE = 0.5  # the GPU idle more than this share of the time between kernels: launching is the limit
SCALES_EFFICIENCY = 0.8  # speedup / workers at least this: the layout scales


def _m(rate) -> str:
    return "-" if rate is None else f"{rate / 1e6:.3f}"


def _x(v) -> str:
    return "-" if v is None else f"{v:.2f}x"


def _pct(v) -> str:
    return "-" if v is None else f"{v:.0%}"


def _check(row) -> str:
    if row.get("errors"):
        return "FAILED"
    v = row.get("verified")
    if v is None:
        return "not checked"
    if not v:
        return "MISMATCH"
    return "bit-exact" if row.get("work") == "chain" else "count ok"


def _rows_table(points) -> str:
    rows = []
    for r in points:
        rs = r.get("calls_per_s_spread") or {}
        us = r.get("us_per_call") or {}
        wr = r.get("worker_calls_per_s") or {}
        rng = "-" if rs.get("min") is None else f"{rs['min'] / 1e6:.3f}-{rs['max'] / 1e6:.3f}"
        us_txt = "-" if us.get("median") is None else f"{us['median']:.2f} ({us['p5']:.2f}-{us['p95']:.2f})"
        gap = "-" if r.get("gap_us") is None else f"{r['gap_us']:.2f}"
        rows.append([r["label"], r["workers"], r["kind"], _m(r.get("calls_per_s")), rng, _x(r.get("speedup")),
                     _m(wr.get("median")), us_txt, _pct(r.get("idle_fraction")), gap, _check(r)])
    headers = ["layout", "workers", "launch", "M launches/s (all)", "repeats min-max", "speedup",
               "M/s per worker", "us/launch per worker (p5-p95)", "GPU idle", "gap us", "check"]
    return format_table(headers, rows, align="lrlrrrrrrrl")


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


def render_scale(record: dict, written=()) -> str:
    """The whole text: configuration line, table, GIL probe figures, findings, clocks, files written."""
    c = record.get("config", {})
    work = "empty kernel (1 block of 32 threads)" if c.get("work") == "empty" else \
        f"4-op chain on {c.get('size', 0):,} floats"
    lines = [f"cugraphlab scale: {work}, {c.get('launches', 0):,} iterations per worker, {c.get('repeats')} "
             f"repeats (median shown), stream {c.get('stream')}", "", _rows_table(record.get("points", []))]
    gil = record.get("gil") or {}
    if gil and "error" not in gil:
        lines += ["", f"GIL probe ({gil['seconds']:g} s per phase): busy thread {gil['busy_alone'] / 1e6:.2f} M "
                      f"loops/s alone, {gil['busy_beside'] / 1e6:.2f} M beside launching; launching "
                      f"{gil['launch_alone']:,.0f} launches/s alone, {gil['launch_beside']:,.0f} launches/s beside "
                      f"the busy thread"]
    lines += ["", "findings:"] + [f"- {s}" for s in findings(record)]
    clocks = record.get("clocks", {})
    lines += ["", f"host clock: {clocks.get('host_monotonic', clocks.get('host', '?'))}",
              f"device clock: {clocks.get('globaltimer', clocks.get('device', '?'))}"]
    if written:
        lines.append("files: " + ", ".join(str(p) for p in written))
    return "\n".join(lines)


_CSV_KEYS = ("axis", "label", "workers", "processes", "kind", "unroll", "work", "size", "stream",
             "launches_per_worker", "calls_per_s", "iters_per_s", "speedup", "efficiency", "idle_fraction",
             "gap_us", "probe_calls_per_s", "verified", "checks", "mismatches")


def csv_rows(record: dict) -> list[dict]:
    """One flat dict per point and launch kind (the CSV)."""
    out = []
    for r in record.get("points", []):
        row = {k: r.get(k) for k in _CSV_KEYS}
        row["devices"] = " ".join(str(d) for d in r.get("devices", []))
        for name in ("us_per_call", "worker_calls_per_s", "calls_per_s_spread"):
            s = r.get(name) or {}
            for stat in ("median", "p5", "p95"):
                row[f"{name}_{stat}"] = s.get(stat)
        row["error"] = r["errors"][0] if r.get("errors") else ""
        out.append(row)
    return out
