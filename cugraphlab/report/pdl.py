"""What ``cugraphlab pdl`` and ``cugraphlab conditional`` show, built from their library results."""
from __future__ import annotations

from .env import versions_line
from .tables import fmt_count, format_table

__all__ = ["render_pdl", "render_conditional"]


def _status(ok: bool, mismatches: int) -> str:
    return "bit-exact" if ok else f"FAILED ({mismatches} bad)"


def render_pdl(result) -> str:
    """The plain-vs-PDL table (wall and device clocks), the programmatic edges found, and how to read it."""
    c = result.config
    head = (f"cugraphlab pdl: {c['chain']}, {fmt_count(c['iters'])} iterations x {c['repeats']} repeats "
            f"(grid {c['grid']} x {c['block']} threads; graphs hold {c['unroll']} iteration(s))")
    rows = []
    for v in result.variants:
        w, d = v.wall_us_per_iter, v.device_us_per_iter
        rows.append([v.name, f"{w.median:.2f}", f"{w.p5:.2f}-{w.p95:.2f}", f"{d.median:.2f}", v.launch,
                     _status(v.verified, v.mismatches)])
    table = format_table(["way", "us/iter", "p5-p95", "device us/iter", "launch", "vs NumPy"], rows,
                         align="lrrrll")
    kernels = len(c["ops"])
    per_kernel = {m: result.saving(m) / kernels for m in ("eager", "graph")}
    notes = [
        f"us/iter: {result.clocks['wall']}; device us/iter: {result.clocks['device']}.",
        f"Medians of {c['repeats']} repeats, interleaved; fresh random inputs and poisoned outputs before each.",
        (f"PDL saves {result.saving('graph'):.2f} us/iter in the graph ({per_kernel['graph']:.2f} per kernel) "
         f"and {result.saving('eager'):.2f} us/iter eager ({per_kernel['eager']:.2f} per kernel)."),
        (f"The captured PDL graph has {result.programmatic_edges} programmatic edge(s) "
         f"(the plain one {result.plain_graph_edges}): each next kernel is launched while its predecessor runs "
         f"and waits in griddepcontrol.wait for its results."),
    ]
    return "\n".join([head, "", table, "", versions_line(result.env), *notes])


def render_conditional(result) -> str:
    """The WHILE-node-vs-Python-loop table, then the threshold and IF checks."""
    c = result.config
    head = (f"cugraphlab conditional: {c['chain']}, a loop of {fmt_count(c['iterations'])} iterations x "
            f"{c['repeats']} repeats")
    rows = []
    for v in result.variants:
        w, d = v.wall_us_per_iter, v.device_us_per_iter
        count = "yes" if v.iterations_ok else "NO"
        rows.append([v.name, f"{w.median:.2f}", f"{w.p5:.2f}-{w.p95:.2f}", f"{d.median:.2f}", v.how,
                     count if v.name != "graphs, no decision" else "-", _status(v.verified, v.mismatches)])
    table = format_table(["loop", "us/iter", "p5-p95", "device us/iter", "driven by", "count ok", "vs NumPy"],
                         rows, align="lrrrlll")
    checks = [("ok   " if ch["ok"] else "FAIL ") + ch["text"] for ch in result.checks]
    w = result.variant("WHILE node").wall_us_per_iter.median
    p = result.variant("Python loop").wall_us_per_iter.median
    notes = [
        f"us/iter: {result.clocks['wall']}; device us/iter: {result.clocks['device']}; per loop iteration.",
        (f"Deciding on the GPU: {w:.2f} us per iteration against {p:.2f} with a round trip to Python "
         f"({p / w:.2f}x)." if w > 0 else ""),
        f"cuda_device_runtime_api.h: {c['header']}",
        "",
        "WHILE graph:",
        c["while_parent"],
        "its body:",
        c["while_body"],
        "",
        "Other conditional graphs, run once on fresh inputs:",
        *checks,
    ]
    return "\n".join([head, "", table, "", versions_line(result.env), *[n for n in notes if n is not None]])
