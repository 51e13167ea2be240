"""Text for ``cugraphlab compare`` and ``run --compare``, built from a ``CompareResult`` (or its JSON) alone.

The leaderboard (``bench.compare.leaderboard``: one line per stack and way, ranked by the launch figure's interval,
tied where the noise could swap them) is the record's conclusion; this module formats it. When the record holds a paired section, the ways that share one context are also shown measured paired (one process,
one context and stream, interleaved, several fresh contexts): each as a ratio to the bare binding with its interval.
"""
from __future__ import annotations

from ..bench.compare.leaderboard import leaderboard

__all__ = ["leaderboard", "render_compare", "render_classic", "classic_rows", "render_baseline_rows",
           "LEADERBOARD_HEADERS"]

LEADERBOARD_HEADERS = ["#", "stack", "way", "us/launch [95%]", "eager us/iter", "graph us/iter", "fused/jit us/iter",
                       "device us/iter (eager|graph|fused)", "rounds d%", "vs NumPy", "note"]
_ALIGN = "rllrrrrrrll"


def _f(v, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _cell(rec, mode) -> str:
    if rec[mode] is not None:
        return _f(rec[mode])
    status = rec[f"{mode}_status"]
    return {"unsupported": "n/a", "failed": "FAILED", "unavailable": "-"}.get(status, "-")


def _device_cell(rec) -> str:
    vals = [rec[f"{m}_device"] for m in ("eager", "graph", "fused")]
    if all(v is None for v in vals):
        return "-"
    return "|".join(_f(v) for v in vals)


def _leaderboard_table(result, size: int) -> str:
    from .tables import format_table

    rows = []
    for rec in leaderboard(result, size):
        spread = rec["rounds_spread_pct"]
        stack = rec["stack"] + (" *" if rec["same_cubin"] else "")
        launch = _cell(rec, "launch")
        if rec.get("launch_lo") is not None:
            launch += f" [{rec['launch_lo']:.2f}, {rec['launch_hi']:.2f}]"
        rank = f"={rec['rank']}" if rec.get("tied") else str(rec["rank"])
        rows.append([rank, stack, rec["way"], launch, _cell(rec, "eager"), _cell(rec, "graph"),
                     _cell(rec, "fused"), _device_cell(rec), "-" if spread is None else f"{spread:.1f}",
                     rec["check"], rec["note"]])
    return format_table(LEADERBOARD_HEADERS, rows, align=_ALIGN)


def _fmt_count(n) -> str:
    from .tables import fmt_count

    return fmt_count(n)


def _versions_lines(result) -> list[str]:
    lines = []
    try:
        from .env import versions_line

        lines.append(versions_line(result.env))
    except Exception:
        pass
    gpu = (result.env or {}).get("gpu_seen_by_workers")
    if gpu:
        lines.append(f"GPU (as the workers saw it): {gpu.get('name')} (cc {gpu.get('compute_capability')}, "
                     f"{gpu.get('sm_count')} SMs), driver CUDA {gpu.get('driver_cuda')}")
    for stack, v in (result.versions or {}).items():
        text = ", ".join(f"{k} {val}" for k, val in v.items() if val is not None)
        lines.append(f"  {stack}: {text}")
    return lines


def render_compare(result) -> str:
    """The leaderboard at each size, then how to read it, the clocks and every stack's versions."""
    c = result.config
    head = (f"cugraphlab compare: {c.get('chain', '?')} on float32; {_fmt_count(c.get('iters', 0))} iterations "
            f"(launch rows: {_fmt_count(c.get('launches', c.get('iters', 0)))} launches of add) x "
            f"{c.get('repeats', '?')} repeats x {c.get('rounds', '?')} rounds; device {c.get('device', 0)}; "
            f"seed {c.get('seed')}")
    out = [head]
    for size in result.sizes:
        out += ["", f"size {_fmt_count(size)} floats (rank: 1 + the lines measurably faster, i.e. whose whole 95% interval lies below; '=N': tied)",
                _leaderboard_table(result, size)]
        out += _paired_lines(result, size)
    clocks = result.clocks or {}
    out += ["",
            "How to read it: us/launch is host wall time per launch of add (the launch cost); eager/graph/fused are "
            "wall us per chain iteration. * = launches cugraphlab's own NVRTC cubin with cugraphlab's grid, so its "
            "device time equals cugraphlab's and any wall difference is launch cost; other stacks run their own "
            "kernels, so compare their device column before reading a slower wall time as launch cost.",
            f"Each stack ran in its own fresh process ({c.get('process', 'spawned')}), on the same inputs "
            "(same seed); 'rounds d%' is the largest difference between rounds (processes) over the line's figures.",
            _interval_line(result),
            f"wall: {clocks.get('wall', '?')}; device: {clocks.get('device', '?')}.",
            "Every measured mode is checked bit for bit against NumPy float32 on fresh random inputs with outputs "
            "poisoned (0x7FC0DEAD) first."]
    out += _versions_lines(result)
    return "\n".join(out)


def _interval_line(result) -> str:
    spread = result.process_spread() if hasattr(result, "process_spread") else None
    text = ("us/launch [95%]: the median over rounds and repeats; its interval a two-level bootstrap (rounds, then "
            "repeats)")
    if spread is None:
        return text + "."
    return (text + f", widened to at least median x exp(+-t s / sqrt(rounds)), s = {spread['sigma'] * 100:.1f}% "
            f"the between-process spread of log(round median) pooled over {spread['lines']} launch and eager lines "
            f"(t = {spread['t']:.2f}, {spread['df']} degrees of freedom): a process's launch mode is shared by "
            "every stack, so a line whose rounds happened to agree is not ranked on luck.")


def _paired_lines(result, size: int) -> list[str]:
    paired = (getattr(result, "paired", None) or {}).get(str(size))
    if not paired:
        return []
    if "error" in paired:
        return ["", f"paired at {_fmt_count(size)} floats: FAILED ({paired['error']})"]
    from .paired import render_paired

    return ["", f"paired at {_fmt_count(size)} floats (the ways that share one context: one process, one stream, "
                "interleaved, over fresh contexts):", render_paired(paired)]


def classic_rows(result) -> list[dict]:
    """Per (stack, way) and size: eager and graph wall µs per iteration and their ratio."""
    out = []
    for size in result.sizes:
        for rec in leaderboard(result, size):
            e, g = rec["eager"], rec["graph"]
            out.append({"stack": rec["stack"], "way": rec["way"], "size": size, "eager_us": e, "graph_us": g,
                        "speedup": (e / g) if (e and g) else None, "fused_us": rec["fused"]})
    return out


def render_classic(result) -> str:
    """The classic summary: eager, graph and speedup per stack at each size (wall medians, µs per iteration)."""
    from .tables import format_table

    sizes, recs = result.sizes, classic_rows(result)
    keys = list(dict.fromkeys((r["stack"], r["way"]) for r in recs))
    headers = ["stack", "way"]
    for s in sizes:
        headers += [f"eager @{_fmt_count(s)}", f"graph @{_fmt_count(s)}", "speedup"]
    rows = []
    for stack, way in keys:
        cells = [stack, way]
        for s in sizes:
            r = next((x for x in recs if (x["stack"], x["way"], x["size"]) == (stack, way, s)), None)
            if r is None:
                cells += ["-", "-", "-"]
            else:
                cells += [_f(r["eager_us"]), _f(r["graph_us"]), "-" if r["speedup"] is None else f"{r['speedup']:.2f}x"]
        if any(c not in ("-",) for c in cells[2:]):
            rows.append(cells)
    c = result.config
    return "\n".join([f"classic table: {c.get('chain', '?')}, wall-clock us per iteration (median over "
                      f"{c.get('repeats', '?')} repeats and {c.get('rounds', '?')} rounds)", "",
                      format_table(headers, rows, align="ll" + "rrr" * len(sizes))])


def render_baseline_rows(result, size: int | None = None) -> str:
    """``run --compare``: the CuPy and PyTorch lines (and cugraphlab's from the same pass) at ``size``."""
    from .tables import format_table

    size = result.sizes[0] if size is None else size
    rows = []
    for rec in leaderboard(result, size):
        e, g = rec["eager"], rec["graph"]
        rows.append([rec["stack"], rec["way"], _cell(rec, "launch"), _cell(rec, "eager"), _cell(rec, "graph"),
                     "-" if not (e and g) else f"{e / g:.2f}x", _device_cell(rec), rec["check"], rec["note"]])
    head = (f"baselines at {_fmt_count(size)} floats (each library in its own process, "
            f"{result.config.get('repeats', '?')} repeats)")
    table = format_table(["stack", "way", "us/launch", "eager us/iter", "graph us/iter", "graph speedup",
                          "device us/iter (eager|graph|fused)", "vs NumPy", "note"], rows, align="llrrrrrll")
    return "\n".join([head, "", table])
