"""Plots of launch-cost results, drawn from plain records loaded from JSON.

matplotlib is imported lazily so the measuring side of cugraphlab (which may
run on a headless GPU box without it) never pays for or depends on it.
Every function writes ``<out>.png`` (150 dpi) and ``<out>.svg`` and returns
the written paths; given ``out=None`` it returns the matplotlib Figure instead
(a notebook shows it inline).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ...bench.measure.break_even import _curve, _filter_chain, break_even_size
from ..tables import fmt_count, fmt_us
from . import PlotUnavailableError, pyplot, save

__all__ = [
    "PlotUnavailableError",
    "break_even_size",
    "plot_bandwidth",
    "plot_gap_histogram",
    "plot_sweep_chain",
    "plot_sweep_size",
    "plot_timeline",
]

_SIZE_LABEL = "size (elements)"


def _pyplot() -> Any:
    return pyplot()


def _save(fig: Any, out: str | Path | None) -> list[Path] | Any:
    # out=None: the figure itself, for a notebook to show inline (the caller owns it: plt.close when done)
    return fig if out is None else save(fig, out)


def _colors(n: int) -> list[Any]:
    plt = _pyplot()
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def _plain_ticks(axis: Any) -> None:
    # "0.5, 1, 10, 100" reads faster than "10^0" for times and chain lengths.
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))


def _unique(values: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(values))


def _spans_decade(values: Sequence[float]) -> bool:
    pos = [v for v in values if v > 0]
    return bool(pos) and max(pos) / min(pos) > 10


# ------------------------------------------------------------------ timeline

def _sorted_events(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return sorted(events, key=lambda e: (int(e["start_ns"]), int(e["end_ns"])))


def _gaps_us(events: Sequence[Mapping[str, Any]]) -> np.ndarray:
    ev = _sorted_events(events)
    return np.array(
        [(int(b["start_ns"]) - int(a["end_ns"])) / 1e3 for a, b in zip(ev, ev[1:])],
        dtype=float,
    )


def plot_timeline(timeline: Mapping[str, Any], out: str | Path | None) -> list[Path]:
    """Draw kernel execution intervals, one horizontal row per launch mode.

    Args:
        timeline: ``{"title": str, "modes": {mode: [{"kernel", "start_ns",
            "end_ns"}, ...]}}``. Times are shown in µs relative to each
            mode's first start, so modes line up at 0.
        out: output path stem (no extension).

    Kernels share a color across rows; each row's tick label carries the
    median idle gap between consecutive kernels.
    """
    plt = _pyplot()
    from matplotlib.patches import Patch

    modes: Mapping[str, Sequence[Mapping[str, Any]]] = timeline.get("modes", {})
    kernels = _unique(e["kernel"] for evs in modes.values() for e in _sorted_events(evs))
    color_of = dict(zip(kernels, _colors(len(kernels))))

    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.9 * max(1, len(modes))))
    labels = []
    for row, (mode, events) in enumerate(modes.items()):
        ev = _sorted_events(events)
        gaps = _gaps_us(ev)
        gap_txt = fmt_us(float(np.median(gaps))) if gaps.size else "n/a"
        labels.append(f"{mode}\nmedian gap {gap_txt}")
        if not ev:
            continue
        t0 = int(ev[0]["start_ns"])
        spans = [((int(e["start_ns"]) - t0) / 1e3, (int(e["end_ns"]) - int(e["start_ns"])) / 1e3)
                 for e in ev]
        ax.broken_barh(spans, (row - 0.35, 0.7),
                       facecolors=[color_of[e["kernel"]] for e in ev],
                       edgecolor="none")

    ax.set_yticks(range(len(modes)))
    ax.set_yticklabels(labels)
    ax.set_ylim(len(modes) - 0.5, -0.5)  # first mode on top
    ax.set_xlim(left=0)
    ax.set_xlabel("time since first kernel start (µs)")
    ax.set_title(timeline.get("title") or "Kernel timeline")
    ax.grid(axis="x", alpha=0.3)
    if kernels:
        ax.legend(handles=[Patch(color=color_of[k], label=k) for k in kernels],
                  title="kernel", loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  fontsize="small")
    return _save(fig, out)


def plot_gap_histogram(timeline: Mapping[str, Any], out: str | Path | None) -> list[Path]:
    """Overlay per-mode histograms of idle gaps between consecutive kernels.

    A gap is next start minus previous end, in µs. The x axis is logarithmic
    when positive gaps span more than 10x; non-positive gaps (overlapping
    kernels) cannot be shown there and are counted in the legend instead.
    """
    plt = _pyplot()
    modes: Mapping[str, Sequence[Mapping[str, Any]]] = timeline.get("modes", {})
    gaps = {m: _gaps_us(evs) for m, evs in modes.items()}
    everything = np.concatenate([g for g in gaps.values()] or [np.array([])])
    log_x = _spans_decade(everything.tolist())

    fig, ax = plt.subplots(figsize=(8, 4.5))
    colors = _colors(len(gaps))
    if everything.size == 0:
        ax.text(0.5, 0.5, "no gaps (fewer than two kernels per mode)",
                ha="center", va="center", transform=ax.transAxes)
    else:
        if log_x:
            pos = everything[everything > 0]
            bins = np.geomspace(pos.min(), pos.max(), 40)
        else:
            lo, hi = float(everything.min()), float(everything.max())
            if lo == hi:  # all gaps identical: give the single bar some width
                lo, hi = lo - 0.5, hi + 0.5
            bins = np.linspace(lo, hi, 40)
        for color, (mode, g) in zip(colors, gaps.items()):
            shown = g[g > 0] if log_x else g
            label = f"{mode} (n={g.size}, median {fmt_us(float(np.median(g))) if g.size else 'n/a'})"
            if log_x and shown.size < g.size:
                label += f", {g.size - shown.size} ≤0 not shown"
            if shown.size:
                ax.hist(shown, bins=bins, alpha=0.5, color=color, label=label,
                        edgecolor=color, linewidth=0.8)
            else:
                ax.plot([], [], color=color, label=label)
        if log_x:
            ax.set_xscale("log")
            _plain_ticks(ax.xaxis)
        ax.legend(fontsize="small")
    ax.set_xlabel("gap between consecutive kernels (µs)")
    ax.set_ylabel("count")
    title = timeline.get("title") or "Kernel timeline"
    ax.set_title(f"{title}: inter-kernel gaps")
    ax.grid(alpha=0.3)
    return _save(fig, out)


# --------------------------------------------------------------------- sweeps


def _band(ax: Any, x: np.ndarray, lo: np.ndarray | None, hi: np.ndarray | None, color: Any) -> None:
    if lo is not None and hi is not None and lo.size == x.size and hi.size == x.size:
        ax.fill_between(x, lo, hi, color=color, alpha=0.2, linewidth=0)


def _curve_with_band(rows: Sequence[Mapping[str, Any]], mode: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    x, y = _curve(rows, mode)
    x5, p5 = _curve(rows, mode, "p5")
    x95, p95 = _curve(rows, mode, "p95")
    ok = np.array_equal(x5, x) and np.array_equal(x95, x)
    return x, y, (p5 if ok else None), (p95 if ok else None)


def plot_sweep_size(
    rows: Sequence[Mapping[str, Any]],
    out: str | Path | None,
    *,
    chain_len: int | None = None,
) -> list[Path]:
    """Log-log time per iteration vs problem size, one line per mode.

    Each line has a p5-p95 band. Rows are restricted to ``chain_len``
    (default the smallest present). The graph/eager break-even size from
    :func:`break_even_size` is marked with a dashed vertical line; if the
    curves never cross the title says so.
    """
    plt = _pyplot()
    sel, c = _filter_chain(rows, chain_len)
    modes = _unique(r["mode"] for r in sel)
    fig, ax = plt.subplots(figsize=(8, 5))
    for color, mode in zip(_colors(len(modes)), modes):
        x, y, lo, hi = _curve_with_band(sel, mode)
        ax.plot(x, y, marker="o", markersize=4, color=color, label=mode)
        _band(ax, x, lo, hi, color)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _plain_ticks(ax.yaxis)
    ax.set_xlabel(_SIZE_LABEL)
    ax.set_ylabel("time per iteration (µs)")
    title = "Time per iteration vs size" + (f" (chain length {c})" if c is not None else "")
    if "graph" in modes and "eager" in modes:
        be, label = break_even_size(sel, "graph", "eager", chain_len=c), "break-even"
        if be is None:
            be, label = break_even_size(sel, "graph", "eager", chain_len=c, rel_tol=0.05), "graph within 5% of eager"
            title += "\ngraph and eager never cross" + (" (they meet asymptotically)" if be is not None else "")
        if be is not None:
            ax.axvline(be, color="0.3", linestyle="--", linewidth=1)
            ax.annotate(f"{label} ≈ {fmt_count(round(be))}", xy=(be, 0.95),
                        xycoords=("data", "axes fraction"), xytext=(4, 0),
                        textcoords="offset points", ha="left", va="top", fontsize="small")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    if modes:
        ax.legend(title="mode")
    return _save(fig, out)


def plot_sweep_chain(
    rows: Sequence[Mapping[str, Any]],
    out: str | Path | None,
    *,
    size: float | None = None,
) -> list[Path]:
    """Time per kernel (``us_per_iter / chain_len``) against chain length.

    One line per mode at a single ``size`` (default the smallest present),
    showing how launch overhead amortizes as chains grow. Axes go
    logarithmic when the data spans more than 10x.
    """
    plt = _pyplot()
    sizes = [float(r["size"]) for r in rows if r.get("size") is not None]
    s = float(size) if size is not None else (min(sizes) if sizes else None)
    sel = [r for r in rows if s is None or float(r["size"]) == s]
    modes = _unique(r["mode"] for r in sel)
    fig, ax = plt.subplots(figsize=(8, 5))
    xs_all, ys_all = [], []
    for color, mode in zip(_colors(len(modes)), modes):
        pts = sorted((int(r["chain_len"]), r) for r in sel
                     if r["mode"] == mode and r.get("chain_len"))
        if not pts:
            continue
        x = np.array([p[0] for p in pts], dtype=float)
        y = np.array([float(r["us_per_iter"]) for _, r in pts]) / x
        ax.plot(x, y, marker="o", markersize=4, color=color, label=mode)
        if all(r.get("p5") is not None and r.get("p95") is not None for _, r in pts):
            lo = np.array([float(r["p5"]) for _, r in pts]) / x
            hi = np.array([float(r["p95"]) for _, r in pts]) / x
            _band(ax, x, lo, hi, color)
        xs_all.extend(x.tolist())
        ys_all.extend(y.tolist())
    if _spans_decade(xs_all):
        ax.set_xscale("log")
        _plain_ticks(ax.xaxis)
    if _spans_decade(ys_all):
        ax.set_yscale("log")
        _plain_ticks(ax.yaxis)
    ax.set_xlabel("chain length (kernels per iteration)")
    ax.set_ylabel("time per kernel (µs)")
    ax.set_title("Time per kernel vs chain length"
                 + (f" (size {fmt_count(s)})" if s is not None else ""))
    ax.grid(True, which="both", alpha=0.3)
    if modes:
        ax.legend(title="mode")
    return _save(fig, out)


def plot_bandwidth(
    rows: Sequence[Mapping[str, Any]],
    out: str | Path | None,
    *,
    copy_gbps: float,
    chain_len: int | None = None,
) -> list[Path]:
    """Achieved bandwidth (GB/s) vs size against the device-copy roofline.

    Rows carry ``"gbps"`` (bytes read+written per iteration / time). When
    ``us_per_iter``, ``p5`` and ``p95`` are present the timing band is
    converted into a bandwidth band (bandwidth is inversely proportional to
    time). Rows are restricted to ``chain_len`` (default the smallest).
    """
    plt = _pyplot()
    sel, c = _filter_chain(rows, chain_len)
    modes = _unique(r["mode"] for r in sel)
    fig, ax = plt.subplots(figsize=(8, 5))
    ys_all = [float(copy_gbps)]
    for color, mode in zip(_colors(len(modes)), modes):
        x, g = _curve(sel, mode, "gbps")
        ax.plot(x, g, marker="o", markersize=4, color=color, label=mode)
        ys_all.extend(g.tolist())
        xt, t, lo, hi = _curve_with_band(sel, mode)
        if lo is not None and np.array_equal(xt, x) and np.all(lo > 0) and np.all(hi > 0):
            _band(ax, x, g * t / hi, g * t / lo, color)
    ax.axhline(copy_gbps, color="0.2", linestyle="--", linewidth=1.2,
               label=f"device copy (roof) {copy_gbps:,.0f} GB/s")
    ax.set_xscale("log")
    if _spans_decade(ys_all):
        ax.set_yscale("log")
        _plain_ticks(ax.yaxis)
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(_SIZE_LABEL)
    ax.set_ylabel("achieved bandwidth (GB/s)")
    ax.set_title("Achieved bandwidth vs size" + (f" (chain length {c})" if c is not None else ""))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return _save(fig, out)
