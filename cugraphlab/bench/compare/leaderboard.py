"""The leaderboard of a ``compare`` record: its conclusion, which the text and the plots only format.

``leaderboard(result, size)`` folds the flat rows into one line per (stack, way): each figure is the median over
rounds of that round's median over repeats; "rounds_spread_pct" is the largest spread between rounds over that line's
figures, (max - min) / min. The launch figure carries its 95% interval (``CompareResult.interval``), and lines are
ranked by it: lines whose launch intervals overlap share a rank (``tied``), so an order that the noise could reverse
is never claimed (a line's rank is 1 + the number of lines whose whole interval lies below its own).
"""
from __future__ import annotations

from statistics import median

__all__ = ["leaderboard", "MODES"]


MODES = ("launch", "eager", "graph", "fused")

def _figure(rows, key: str = "wall_us"):
    vals = [getattr(r, key) for r in rows if r.measured and getattr(r, key) is not None]
    return median(vals) if vals else None

def _spread_pct(rows) -> float | None:
    by_round = {}
    for r in rows:
        if r.measured:
            by_round.setdefault(r.round, []).append(r.wall_us)
    vals = [median(v) for v in by_round.values()]
    if len(vals) < 2 or min(vals) <= 0:
        return None
    return (max(vals) - min(vals)) / min(vals) * 100.0

def leaderboard(result, size: int) -> list[dict]:
    """One record per (stack, way) at ``size``, sorted by host µs per launch (then eager µs per iteration)."""
    groups: dict[tuple, list] = {}
    for r in result.rows_for(size):
        groups.setdefault((r.stack, r.way), []).append(r)
    # a stack whose only rows are "-" (unavailable/failed as a whole) keeps one line; its ways' lines otherwise
    out = []
    for (stack, way), rows in groups.items():
        if way == "-" and any(k[0] == stack and k[1] != "-" for k in groups):
            continue
        rec = {"stack": stack, "way": way, "size": size}
        spreads = []
        for mode in MODES:
            mrows = [r for r in rows if r.mode == mode]
            rec[mode] = _figure(mrows)
            rec[f"{mode}_device"] = _figure(mrows, "device_us")
            s = _spread_pct(mrows)
            if s is not None:
                spreads.append(s)
            rec[f"{mode}_status"] = next((r.status for r in mrows), None)
            rec[f"{mode}_why"] = next((r.note for r in mrows if r.status != "ok"), "")
        rec["rounds_spread_pct"] = max(spreads) if spreads else None
        iv = result.interval(f"{stack}/{way} launch n={size}") if hasattr(result, "interval") else None
        rec["launch_lo"], rec["launch_hi"] = (iv.lo, iv.hi) if iv is not None else (None, None)
        measured = [r for r in rows if r.measured]
        bad = [(r.mode, r.mismatches) for r in measured if r.mismatches]
        if not measured:
            rec["check"] = "-"
        elif bad:
            rec["check"] = "; ".join(f"{m}: {n:,} differ" for m, n in dict(bad).items())
        else:
            rec["check"] = "bit-exact"
        rec["same_cubin"] = any(r.same_cubin for r in rows)
        notes = [r.note for r in rows if r.status in ("unavailable", "failed") and r.note]
        notes += [r.note for r in measured if r.note]
        g = [r for r in rows if r.mode == "graph" and r.status == "unsupported"]
        if g and g[0].note:
            notes.append(f"graph: {g[0].note}")
        rec["note"] = "; ".join(dict.fromkeys(notes))
        out.append(rec)
    inf = float("inf")
    out.sort(key=lambda d: (d["launch"] if d["launch"] is not None else inf,
                            d["eager"] if d["eager"] is not None else inf,
                            min((d[m] for m in ("graph", "fused") if d[m] is not None), default=inf)))
    _rank_with_ties(out)
    out.sort(key=lambda d: d["rank"])  # stable: by median within a rank
    return out

def _rank_with_ties(lines: list[dict]) -> None:
    """``rank`` and ``tied``: a line's rank is 1 + the number of lines measurably faster than it (their whole launch
    interval below its whole interval), so lines that the noise could swap share a rank; a line without an interval
    counts as its median alone; a line without a launch figure ranks after every line that has one."""
    def span(d):
        if d.get("launch") is None:
            return None
        lo, hi = d.get("launch_lo"), d.get("launch_hi")
        return (lo, hi) if lo is not None and hi is not None else (d["launch"], d["launch"])

    spans = [span(d) for d in lines]
    measured = sum(s is not None for s in spans)
    for d, s in zip(lines, spans):
        if s is None:
            d["rank"] = measured + 1 + sum(1 for e in lines[:lines.index(d)] if span(e) is None)
        else:
            d["rank"] = 1 + sum(1 for o in spans if o is not None and o[1] < s[0])
    counts: dict = {}
    for d in lines:
        counts[d["rank"]] = counts.get(d["rank"], 0) + 1
    for d in lines:
        d["tied"] = counts[d["rank"]] > 1
