"""Text of ``cugraphlab scale``: the table, the findings (sentences computed from the numbers) and the CSV rows.

Pure: a record (``bench.scale.run_scale``'s dict, or the same loaded from JSON) in, strings and dicts out.
"""
from __future__ import annotations

from ..bench.scale.findings import LAUNCH_BOUND_IDLE, SCALES_EFFICIENCY, _m, findings
from .tables import format_table

__all__ = ["render_scale", "findings", "csv_rows", "LAUNCH_BOUND_IDLE", "SCALES_EFFICIENCY"]


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
