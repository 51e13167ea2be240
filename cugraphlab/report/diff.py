"""What ``cugraphlab diff`` prints and draws: a DiffResult (or its JSON dict) in, text or figure files out.

``render_diff`` gives the per-row table (samples, medians, B/A with its interval, p-value, verdict; a row whose
verdict does not count marked "(not judged)", ``bench.diff.judged_rows``), the reasons of
every row that is not SAME, the rows found on one side only, the environments side by side with differences marked,
and the counts per verdict. ``plot_diff`` draws a forest plot: one row per label, the interval as a bar, the
threshold band shaded, coloured by verdict. Pure: no device, no measurement.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping

from .tables import format_table

__all__ = ["render_diff", "plot_diff", "require_matplotlib", "VERDICT_COLORS"]

#: Colours of the verdicts in the figure.
VERDICT_COLORS = {"SAME": "#4d4d4d", "FASTER": "#1f77b4", "SLOWER": "#d62728", "AMBIGUOUS": "#ff9f1c"}
_NICE_TICKS = sorted({*(1 / v for v in (1.01, 1.02, 1.05, 1.1, 1.25, 1.5, 2, 3, 5, 10, 100)), 1.0,
                      1.01, 1.02, 1.05, 1.1, 1.25, 1.5, 2, 3, 5, 10, 100})


def _as_dict(result: Any) -> Mapping[str, Any]:
    to_dict = getattr(result, "to_dict", None)
    return to_dict() if callable(to_dict) else result


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _num(x: Any) -> str:
    """A median in bounded width, 4 significant digits kept with their zeros (``12.00`` beside ``10.24``);
    thousands grouped below a million, scientific notation from there (a 1e300 sample is 9 characters)."""
    if not _finite(x):
        return "n/a"
    if abs(x) >= 1e6 or (x != 0 and abs(x) < 1e-3):
        return f"{x:.3e}"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:#.4g}"


def _ratio(x: Any) -> str:
    """A ratio: 3 decimals, scientific notation from 10,000 up."""
    if not _finite(x):
        return "n/a"
    return f"{x:.3f}" if abs(x) < 1e4 else f"{x:.3e}"


def _p(x: Any) -> str:
    if not _finite(x):
        return "n/a"
    return "<1e-4" if x < 1e-4 else f"{x:.2g}"


def _env_text(name: str, v: Any) -> str:
    if v is None:
        return "-"
    if name == "commit" and isinstance(v, str) and len(v) > 12:
        return v[:12] + ("+dirty" if v.endswith("+dirty") else "")
    return str(v)


def _counts_line(d: Mapping[str, Any]) -> str:
    counts = d.get("counts") or {}
    text = " · ".join(f"{k} {v}" for k, v in counts.items())
    if d.get("not_judged"):
        text += f" · not judged {d['not_judged']}"
    worst = d.get("worst")
    if worst:
        slow = worst.get("slowdown")
        how = f", B takes {_ratio(slow)}x the time of A" if _finite(slow) else ""
        text += f"  | worst: {worst['label']} ({worst['verdict']}{how})"
    return "counts: " + text


def render_diff(result: Any) -> str:
    """The text ``cugraphlab diff`` prints for a DiffResult (or the dict its JSON holds)."""
    d = _as_dict(result)
    cfg = d.get("config") or {}
    src = d.get("sources") or {}
    t = float(cfg.get("threshold", 0.05))
    kind_b = d.get("compared_kind_b")
    what = (f"records of two tools: {d.get('compared_kind')} (A) against {kind_b} (B)" if kind_b
            else f"two {d.get('compared_kind')} records (schema {d.get('compared_schema')})")
    lines = [f"cugraphlab diff of {what}", f"  A = {src.get('a')}", f"  B = {src.get('b')}"]
    lines += [f"NOTE: {n}" for n in d.get("notes") or []]
    lines += [f"B/A = median(B) / median(A), {cfg.get('confidence', 0.95) * 100:g}% bootstrap interval "
              f"({cfg.get('resamples')} resamples, seed {cfg.get('seed')}); p: Mann-Whitney U; "
              f"SAME: interval inside [{1 / (1 + t):.3f}, {1 + t:.3f}] (±{t * 100:g}%)", ""]
    rows = d.get("rows") or []
    if rows:
        table = []
        nvbench = any(r.get("nvbench") for r in rows)
        for r in rows:
            unit = r["unit"] + (" (rate)" if r.get("direction") == "rate" else "")
            interval = f"[{_ratio(r['low'])}, {_ratio(r['high'])}]" if _finite(r.get("low")) else "n/a"
            p = _p(r["p_value"]) if r.get("n_a") and r.get("n_b") else "n/a"  # no test without samples on both sides
            table.append([r["label"], unit, r["n_a"], r["n_b"], _num(r["median_a"]), _num(r["median_b"]),
                          _ratio(r["ratio"]), interval, p,
                          r["verdict"] + ("" if r.get("judged", True) else " (not judged)")]
                         + ([r.get("nvbench") or "-"] if nvbench else []))
        lines.append(format_table(["row", "unit", "n A", "n B", "median A", "median B", "B/A", "interval", "p",
                                   "verdict"] + (["nvbench-compare"] if nvbench else []), table,
                                  align="llrrrrrlrl" + ("l" if nvbench else "")))
        if not all(r.get("judged", True) for r in rows):
            lines.append("(not judged: host rows move 30-40% between processes): their verdicts do not count; judged "
                         f"are x ref, held, cold and device-bound rows (device >= {cfg.get('device_bound', 2):g}x "
                         "host); --judge all judges every row")
        if any(r.get("label_b") for r in rows):
            lines.append("A_ROW ~ B_ROW: a pair compared on request (--pair), rows of two labels")
        if nvbench:
            lines.append("nvbench-compare: cuda-bench's own verdict (SAME when the means differ by at most the "
                         "smaller relative noise)")
        if any(r.get("direction") == "rate" for r in rows):
            lines.append("(rate): bigger is faster, so B/A > 1 there is FASTER")
        notes = [f"  {r['label']}: {r['verdict']}: {r['reason']}" for r in rows if r["verdict"] != "SAME"]
        if notes:
            lines += ["", "why:"] + notes
    else:
        lines.append("no row is in both records")
    for side, key in (("A", "only_a"), ("B", "only_b")):
        if d.get(key):
            lines.append(f"only in {side}: " + ", ".join(d[key]))
    env = d.get("environment") or []
    if env:
        lines += ["", format_table(["environment", "A", "B", "differs"],
                                   [[e["name"], _env_text(e["name"], e["a"]), _env_text(e["name"], e["b"]),
                                     "≠" if e["differs"] else ""] for e in env], align="llll")]
    changes = d.get("config_changes") or []
    if changes:
        lines.append("config differs: " + "; ".join(f"{c['name']}: {c['a']!r} -> {c['b']!r}" for c in changes))
    lines += ["", _counts_line(d)]
    return "\n".join(lines)


def require_matplotlib() -> Any:
    """matplotlib.pyplot through report.plots' one loader (PlotUnavailableError, a bad-input error, with the pip
    hint when it is missing)."""
    from .plots import pyplot

    return pyplot()


def _ticks(span: float) -> list[float]:
    # Nice ratios inside [e^-span, e^span], at least a tenth of the axis apart (1 always), nearest to 1 first.
    inside = sorted((v for v in _NICE_TICKS if abs(math.log(v)) <= span), key=lambda v: abs(math.log(v)))
    kept: list[float] = []
    for v in inside:
        if all(abs(math.log(v / k)) >= span / 5 for k in kept):
            kept.append(v)
    return sorted(kept)


def plot_diff(result: Any, stem: str | Path) -> list[Path]:
    """A forest plot of a DiffResult: ``<stem>.png`` (150 dpi) and ``<stem>.svg``; returns the paths written.

    One row per shared label, top to bottom in the table's order. The x axis is the slowdown, how many times
    longer B takes than A (B/A for a time unit, A/B for a rate unit, so right is always slower), on a log scale;
    the bar is the interval, the black tick the ratio of medians, the shaded band the threshold's SAME zone; colour says
    the verdict. Rows without an interval show the dot alone (hollow); rows of a unit with no direction, none.
    """
    plt = require_matplotlib()
    from matplotlib.patches import Patch

    d = _as_dict(result)
    rows = d.get("rows") or []
    t = float((d.get("config") or {}).get("threshold", 0.05))
    fig, ax = plt.subplots(figsize=(9, 1.4 + 0.42 * max(1, len(rows))))
    ax.axvspan(1 / (1 + t), 1 + t, color="#d9d9d9", alpha=0.6, lw=0)
    ax.axvline(1.0, color="black", lw=0.8)
    labels, xs = [], [1 / (1 + t), 1 + t]
    for y, r in enumerate(rows):
        rate = r.get("direction") == "rate"
        labels.append(r["label"] + (" (rate, A/B)" if rate else ""))
        color = VERDICT_COLORS.get(r["verdict"], "black")
        if r.get("direction") not in ("time", "rate"):
            continue
        flip = (lambda v: 1.0 / v) if rate else (lambda v: v)
        point = flip(r["ratio"]) if _finite(r["ratio"]) and r["ratio"] > 0 else None
        if _finite(r.get("low")) and _finite(r.get("high")) and r["low"] > 0:
            lo, hi = sorted((flip(r["low"]), flip(r["high"])))
            ax.hlines(y, lo, hi, color=color, lw=7, alpha=0.85)
            xs += [lo, hi]
            if point is not None:
                ax.plot([point], [y], "|", color="black", mew=1.5, ms=14)
        elif point is not None:
            ax.plot([point], [y], "o", mfc="none", mec=color, mew=1.5, ms=7)
        if point is not None:
            xs.append(point)
    ax.set_xscale("log")
    span = max(abs(math.log(x)) for x in xs if x > 0) * 1.15
    ax.set_xlim(math.exp(-span), math.exp(span))
    ticks = _ticks(span)
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{v:.3g}" for v in ticks])
    ax.minorticks_off()
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels)
    for tick, r in zip(ax.get_yticklabels(), rows):
        tick.set_color(VERDICT_COLORS.get(r["verdict"], "black"))
    ax.set_ylim(len(rows) - 0.5, -0.5)
    src = d.get("sources") or {}
    ax.set_xlabel("B takes this many times as long as A (median ratio, bootstrap interval; log scale)")
    ax.set_title(f"{d.get('compared_kind')}: {Path(str(src.get('b'))).name} against {Path(str(src.get('a'))).name}")
    ax.grid(axis="x", which="both", alpha=0.3)
    handles = [Patch(color=c, label=v) for v, c in VERDICT_COLORS.items()]
    handles.append(Patch(color="#d9d9d9", label=f"SAME band ±{t * 100:g}%"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    from .plots import save

    return save(fig, stem)
