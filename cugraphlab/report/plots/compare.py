"""The comparison's figure: host µs per launch and per chain iteration (eager, graph) by stack, at each size.

One panel per size, horizontal bars (one group per stack/way, sorted fastest launch on top, each bar the median
over rounds), a log time axis (JAX's per-op jit is tens of times slower than the bare driver). Writes STEM.png and
STEM.svg. Uses matplotlib lazily with the Agg backend, through ``report.plots``' one loader.
"""
from __future__ import annotations

from pathlib import Path

from . import pyplot, save

__all__ = ["plot_compare_stacks"]

_SERIES = (("launch", "us per launch (add)"), ("eager", "eager us per iteration"),
           ("graph", "graph us per iteration"))



def plot_compare_stacks(result, out) -> list[Path]:
    """Draw ``result`` (a CompareResult) to ``out``.png and ``out``.svg; returns the two paths."""
    from ..compare import leaderboard

    plt = pyplot()
    sizes = result.sizes
    boards = {s: [r for r in leaderboard(result, s) if any(r[m] is not None for m, _ in _SERIES)] for s in sizes}
    height = max(3.0, 0.55 * max((len(b) for b in boards.values()), default=1) + 1.5)
    fig, axes = plt.subplots(1, max(1, len(sizes)), figsize=(7.5 * max(1, len(sizes)), height), squeeze=False)
    colors = {"launch": "#4C72B0", "eager": "#DD8452", "graph": "#55A868"}
    bar = 0.26
    for ax, size in zip(axes[0], sizes or [None]):
        board = list(reversed(boards.get(size, [])))  # fastest at the top
        labels = [f"{r['stack']} ({r['way']})" if r["way"] not in ("-", "") else r["stack"] for r in board]
        for j, (mode, label) in enumerate(_SERIES):
            ys, xs = [], []
            for i, r in enumerate(board):
                if r[mode] is not None:
                    ys.append(i + (1 - j) * bar)
                    xs.append(r[mode])
            if xs:
                ax.barh(ys, xs, height=bar * 0.95, color=colors[mode], label=label)
                for y, x in zip(ys, xs):
                    ax.annotate(f"{x:.1f}", xy=(x, y), xytext=(2, 0), textcoords="offset points", va="center",
                                fontsize="x-small")
        ax.set_yticks(range(len(board)))
        ax.set_yticklabels(labels, fontsize="small")
        ax.set_xscale("log")
        ax.set_xlabel("host wall-clock µs (log scale)")
        ax.set_title(f"{size:,} floats" if size is not None else "no data")
        ax.grid(axis="x", alpha=0.3, which="both")
    axes[0][-1].legend(fontsize="small", loc="lower right")
    c = result.config
    fig.suptitle(f"Which Python stack launches fastest: {c.get('chain', 'the chain')} "
                 f"(each stack in its own process; bars: median over {c.get('rounds', '?')} rounds)")
    fig.tight_layout()
    return save(fig, out)
