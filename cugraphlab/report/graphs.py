"""The text of ``cugraphlab graph`` and ``cugraphlab update``, from their records, and the SVG of a DOT file."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ..graphs.inspect import render_text
from .env import versions_line
from .tables import format_table

__all__ = ["render_graph", "render_update", "render_svg", "UPDATE_PATH_CALLS"]

UPDATE_PATH_CALLS = {"set_params": "cuGraphExecKernelNodeSetParams x nodes",
                     "exec_update": "cuGraphExecUpdate (graph captured before)",
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


def render_update(chain_text: str, kernel_nodes: int, demos, costs) -> str:
    """The update demonstrations (experiment.update.UpdateDemo) and the cost table (bench.update.UpdateCosts)."""
    lines = [f"cugraphlab update: {chain_text}, {kernel_nodes} kernel nodes", ""]
    for d in demos:
        if d.report is None:
            lines.append(f"{d.label}: {d.verification}")
        else:
            lines += [f"{d.label}: {d.report}", f"  {d.verification}"]
    rows = []
    for key, s in costs.costs.items():
        rows.append([key, UPDATE_PATH_CALLS.get(key, key), f"{s.median:.2f}", f"{s.p5:.2f}-{s.p95:.2f}", s.n,
                     "bit-exact" if costs.verified[key] else "FAILED"])
    lines += ["", format_table(["path", "driver calls", "us (median)", "p5-p95", "samples", "vs NumPy"], rows,
                               align="llrrrl"), "",
              versions_line(costs.env),
              f"clock: {costs.clock}; one sample per update, alternating two input sets, "
              f"after {costs.config['warmup']} warm-up updates."]
    return "\n".join(lines)
