"""What ``cugraphlab pdl`` and ``cugraphlab conditional`` show, built from their library results."""
from __future__ import annotations

from .env import versions_line
from .tables import bit_exact_cell as _status
from .tables import fmt_count, format_table

__all__ = ["render_pdl"]


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
    early = result.early_saving() if hasattr(result, "early_saving") else None
    if early is not None:
        notes.append(f"PDL early (y loaded before griddepcontrol.wait, the next launch triggered once the loads are "
                     f"issued) saves {early:.2f} us/iter in the graph ({early / kernels:.2f} per kernel).")
    return "\n".join([head, "", table, "", versions_line(result.env), *notes])
