"""Figure of ``cugraphlab scale``: speedup against workers with the ideal line, and the launch rate itself.

Drawn through ``report.plots``' one loader; writes STEM.png (150 dpi) and STEM.svg.
"""
from __future__ import annotations

from pathlib import Path

from . import pyplot, save

__all__ = ["plot_scale", "series"]

_AXIS_NAMES = {"threads": "threads, one GPU", "gpus": "a thread per GPU, one process",
               "processes": "a process per GPU", "cross": "threads x a process per GPU"}
_MARKERS = {"threads": "o", "gpus": "s", "processes": "D", "cross": "^"}


def series(record: dict) -> dict[tuple[str, str], list[tuple[int, float, float]]]:
    """(axis, kind) -> [(workers, speedup, M launches/s)] sorted by workers; multi-GPU axes start from the
    one-worker baseline of their kind so that each draws a line."""
    points = [r for r in record.get("points", []) if r.get("speedup") is not None]
    base = {r["kind"]: r for r in points if r["axis"] == "threads" and r["workers"] == 1}
    out: dict = {}
    for r in points:
        out.setdefault((r["axis"], r["kind"]), []).append((r["workers"], r["speedup"], r["calls_per_s"] / 1e6))
    for (axis, kind), pts in out.items():
        if axis != "threads" and kind in base and all(w != 1 for w, _, _ in pts):
            b = base[kind]
            pts.append((1, 1.0, b["calls_per_s"] / 1e6))
        pts.sort()
    return out


def plot_scale(record: dict, out) -> list[Path]:
    """Left: speedup (all workers' iteration rate / one worker's) against workers, one line per axis and launch
    kind, with y = x. Right: the rate of all workers together in M launches/s. Returns [STEM.png, STEM.svg]."""
    plt = pyplot()
    data = series(record)
    kinds = list(dict.fromkeys(k for _, k in data))
    cmap = plt.get_cmap("tab10")
    color = {k: cmap(i % 10) for i, k in enumerate(kinds)}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    max_w = max([w for pts in data.values() for w, _, _ in pts] or [1])
    ax1.plot([1, max_w], [1, max_w], color="0.6", linestyle="--", linewidth=1, label="ideal (y = x)")
    for (axis, kind), pts in data.items():
        ws = [p[0] for p in pts]
        style = "-" if axis == "threads" else ":"
        label = f"{kind}: {_AXIS_NAMES.get(axis, axis)}"
        ax1.plot(ws, [p[1] for p in pts], style, marker=_MARKERS.get(axis, "o"), color=color[kind], label=label)
        ax2.plot(ws, [p[2] for p in pts], style, marker=_MARKERS.get(axis, "o"), color=color[kind], label=label)
        w, s, _ = pts[-1]
        ax1.annotate(f"{s:.2f}x", (w, s), textcoords="offset points", xytext=(5, 2 - 10 * kinds.index(kind)),
                     fontsize=8, color=color[kind])
    ticks = sorted({w for pts in data.values() for w, _, _ in pts}) or [1]
    for ax in (ax1, ax2):
        ax.set_xlabel("launching workers (threads, in all processes)")
        ax.set_xticks(ticks)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    ax1.set_ylabel("speedup over one thread (iterations/s)")
    ax2.set_ylabel("launches/s of all workers together (millions)")
    c = record.get("config", {})
    gpu = (record.get("env") or {}).get("gpu", {}).get("name", "GPU")
    work = "empty kernel" if c.get("work") == "empty" else f"4-op chain, {c.get('size', 0):,} floats"
    fig.suptitle(f"Launch rate from threads, GPUs and processes ({gpu}; {work}; "
                 f"{c.get('launches', 0):,} iterations per worker; median of {c.get('repeats')})", fontsize=10)
    ax1.set_title("speedup (dashed grey: ideal)", fontsize=9)
    ax2.set_title("rate of all workers together", fontsize=9)
    ax1.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return save(fig, out)
