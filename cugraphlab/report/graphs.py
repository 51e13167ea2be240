"""The text of ``cugraphlab graph`` and ``cugraphlab update``, from their records, and the SVG of a DOT file."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ..graphs.inspect import render_text
from .env import versions_line
from .tables import bit_exact_cell as _status
from .tables import fmt_count, format_table

__all__ = ["render_graph", "render_update", "render_conditional", "render_svg", "UPDATE_PATH_CALLS"]

UPDATE_PATH_CALLS = {"set_params": "cuGraphExecKernelNodeSetParams x nodes",
                     "exec_update": "cuGraphExecUpdate (graph captured before)",
                     "exec_update (ctypes)": "cuGraphExecUpdate_v2 via ctypes, args + result info built once",
                     "recapture_update": "capture + cuGraphExecUpdate",
                     "reinstantiate": "cuGraphInstantiate + cuGraphExecDestroy",
                     "recapture_instantiate": "capture + instantiate + destroy"}


def render_svg(dot_path) -> tuple[Path | None, str]:
    """Run Graphviz ``dot -Tsvg`` on ``dot_path``; returns (svg path or None, a line saying what happened)."""
    dot = shutil.which("dot")
    dot_path = Path(dot_path)
    if dot is None:
        return None, "Graphviz 'dot' is not installed: no SVG (the .dot file opens in any Graphviz viewer)"
    svg = dot_path.with_suffix(".svg")
    r = subprocess.run([dot, "-Tsvg", str(dot_path), "-o", str(svg)], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return None, f"dot -Tsvg failed ({r.returncode}): {r.stderr.strip()[:200]}"
    return svg, f"SVG written to {svg}"


def render_graph(report) -> str:
    """The text view of an experiment.graph_report.GraphReport, its checks, and the DOT/SVG files written."""
    lines = [render_text(report.view, report.title)]
    if report.mode == "while":
        lines += report.notes
    else:
        lines += ["", *report.notes]
    if report.dot_path:
        _, note = render_svg(report.dot_path)
        lines += [f"DOT written to {report.dot_path} (cuGraphDebugDotPrint)", note]
    return "\n".join(lines)


def render_update(result) -> str:
    """The update demonstrations and the cost table of one ``bench.graphs.update.UpdateCosts`` record."""
    c = result.config
    lines = [f"cugraphlab update: {c.get('chain_text', c.get('chain'))}, {c['kernel_nodes']} kernel nodes", ""]
    for d in result.demos:
        if d["report"] is None:
            lines.append(f"{d['label']}: {d['verification']}")
        else:
            lines += [f"{d['label']}: {d['report']}", f"  {d['verification']}"]
    rows = []
    for key, s in result.costs.items():
        rows.append([key, UPDATE_PATH_CALLS.get(key, key), f"{s.median:.2f}", f"{s.p5:.2f}-{s.p95:.2f}", s.n,
                     "bit-exact" if result.verified[key] else "FAILED"])
    lines += ["", format_table(["path", "driver calls", "us (median)", "p5-p95", "samples", "vs NumPy"], rows,
                               align="llrrrl"), "",
              versions_line(result.env),
              f"clock: {result.clock}; one sample per update, alternating two input sets, "
              f"after {c['warmup']} warm-up updates."]
    return "\n".join(lines)


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
                     count if v.name != "graphs, no decision" and not v.name.startswith("unrolled") else "-",
                     _status(v.verified, v.mismatches)])
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
        *(["the PDL body (edge kinds):", c["while_pdl_body"]] if c.get("while_pdl_body") else []),
        *([f"PDL rows dropped: {c['pdl_refused']}"] if c.get("pdl_refused") else []),
        "",
        "Other conditional graphs, run once on fresh inputs:",
        *checks,
    ]
    return "\n".join([head, "", table, "", versions_line(result.env), *[n for n in notes if n is not None]])
