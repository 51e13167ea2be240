"""A graph's topology drawn with matplotlib alone (no Graphviz): what ``cugraphlab graph --draw`` writes and what a
``GraphView`` shows as the last expression of a notebook cell.

The drawing is made from a plain view (``graphs.inspect.GraphView`` or ``Topology``, the same data the text view
prints), never from a live graph, so a view loaded or built anywhere can be drawn. Layout:

- one row per dependency depth (``graphs.inspect.depths``: roots on top, a node one row below its deepest
  predecessor), so nodes that may run at the same time sit side by side, as in the text view's layers;
- each node a box coloured by kind (kernel, memset, memcpy, conditional, host, event record/wait, child graph,
  empty, memory alloc/free), labelled with its index and the kernel's name (or the kind), and its detail
  (grid x block, size) in small type;
- edges as arrows: full dependencies solid, programmatic ones (CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC, PDL) dashed
  and labelled "programmatic"; a conditional node is drawn as a double-bordered box marked with its kind
  (its body graphs are separate graphs: draw ``graph_view(body)`` to see one).

Importing this module registers the drawing in ``graphs.inspect.DRAWERS`` (the graph floor never imports this one;
see its docstring), so ``GraphView._repr_svg_`` works once ``cugraphlab.report`` has been imported.
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ...graphs.inspect import GraphView, Topology, depths, register_drawer
from . import pyplot, save

__all__ = ["draw_graph", "KIND_STYLE", "kind_of", "layout", "graph_image"]

#: kind -> (face colour, legend text); the kinds are CUgraphNodeType names without the prefix.
KIND_STYLE: dict[str, tuple[str, str]] = {
    "KERNEL": ("#cfe2ff", "kernel"),
    "MEMSET": ("#fde2c8", "memset"),
    "MEMCPY": ("#ffd6d6", "memcpy"),
    "CONDITIONAL": ("#e4d4f4", "conditional (owns body graphs)"),
    "HOST": ("#d8f0d2", "host function"),
    "EVENT_RECORD": ("#fff3b0", "event record"),
    "WAIT_EVENT": ("#fff3b0", "event wait"),
    "GRAPH": ("#d3f1f1", "child graph"),
    "EMPTY": ("#eeeeee", "empty (join)"),
    "MEM_ALLOC": ("#f8d5ec", "memory alloc"),
    "MEM_FREE": ("#f8d5ec", "memory free"),
}
_OTHER = ("#ffffff", "other")
PROGRAMMATIC = 1  # CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC


def kind_of(label: str) -> str:
    """The node kind of a view label: "KERNEL:add" -> "KERNEL", "MEMSET" -> "MEMSET"."""
    return label.split(":", 1)[0]


def _as_view(view_or_topology) -> GraphView:
    if isinstance(view_or_topology, Topology):
        return GraphView.from_topology(view_or_topology)
    if isinstance(view_or_topology, GraphView):
        return view_or_topology
    view = getattr(view_or_topology, "view", None)  # a GraphReport carries its view
    if isinstance(view, GraphView):
        return view
    raise TypeError(f"draw_graph needs a GraphView, Topology or GraphReport, got {type(view_or_topology).__name__}")


def layout(view) -> dict[int, tuple[float, float]]:
    """Node index -> (x, y): y = -depth (one row per dependency depth), x spread evenly and centred per row."""
    view = _as_view(view)
    d = depths(len(view.nodes), view.edges)
    rows: dict[int, list[int]] = {}
    for i, level in enumerate(d):
        rows.setdefault(level, []).append(i)
    pos = {}
    for level, members in rows.items():
        width = len(members)
        for k, i in enumerate(members):
            pos[i] = (k - (width - 1) / 2, -float(level))
    return pos


def _title(label: str) -> str:
    kind = kind_of(label)
    return label.split(":", 1)[1] if kind == "KERNEL" and ":" in label else kind.lower().replace("_", " ")


def draw_graph(view_or_topology, out: str | Path | None = None, title: str = "") -> list[Path] | Any:
    """Draw a graph's nodes (by kind and kernel name) and edges (by kind), layered by dependency depth.

    Parameters: ``view_or_topology``: a ``GraphView`` (``graphs.inspect.graph_view(graph)``), a ``Topology`` or a
    ``GraphReport``; ``out``: a file stem (writes ``out.png`` and ``out.svg``) or None; ``title``: above the drawing.
    Returns the written paths, or the matplotlib Figure when ``out`` is None (a notebook shows it inline).
    Nodes and edges are what cuGraphGetNodes / cuGraphGetEdges gave (CUDA Driver API, "Graph Management").
    """
    view = _as_view(view_or_topology)
    plt = pyplot()
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    pos = layout(view)
    n = len(view.nodes)
    cols = max((sum(1 for p in pos.values() if p[1] == y) for y in {p[1] for p in pos.values()}), default=1)
    levels = (1 - min((p[1] for p in pos.values()), default=0))
    fig, ax = plt.subplots(figsize=(max(4.0, 2.4 * cols + 1.0), max(2.0, 1.3 * levels + 0.8)))
    box_w, box_h = 0.8, 0.5
    kinds_seen: list[str] = []
    for i, node in enumerate(view.nodes):
        x, y = pos[i]
        kind = kind_of(node.label)
        face = KIND_STYLE.get(kind, _OTHER)[0]
        if kind not in kinds_seen:
            kinds_seen.append(kind)
        conditional = kind == "CONDITIONAL"
        ax.add_patch(FancyBboxPatch((x - box_w / 2, y - box_h / 2), box_w, box_h,
                                    boxstyle="round,pad=0.02", facecolor=face, edgecolor="#333333",
                                    linewidth=2.4 if conditional else 1.0, zorder=2,
                                    linestyle="-", gid=f"node{i}"))
        if conditional:  # a second border: this node owns body graphs
            ax.add_patch(FancyBboxPatch((x - box_w / 2 + 0.04, y - box_h / 2 + 0.04), box_w - 0.08, box_h - 0.08,
                                        boxstyle="round,pad=0.02", facecolor="none", edgecolor="#333333",
                                        linewidth=0.8, zorder=3))
        ax.text(x, y + 0.06, f"[{i}] {_title(node.label)}", ha="center", va="center", fontsize=9, zorder=4,
                fontweight="bold" if kind == "KERNEL" else "normal")
        sub = node.detail if kind != "CONDITIONAL" else (node.detail or "conditional: body graphs")
        if sub:
            ax.text(x, y - 0.13, sub if len(sub) <= 34 else sub[:31] + "...", ha="center", va="center",
                    fontsize=6.5, color="#333333", zorder=4)
    labelled = False
    for k, (a, b) in enumerate(view.edges):
        (xa, ya), (xb, yb) = pos[a], pos[b]
        programmatic = view.edge_type(k) == PROGRAMMATIC
        arrow = FancyArrowPatch((xa, ya - box_h / 2), (xb, yb + box_h / 2), arrowstyle="-|>", mutation_scale=12,
                                linewidth=1.2, color="#c0392b" if programmatic else "#444444",
                                linestyle="--" if programmatic else "-", zorder=1,
                                connectionstyle="arc3,rad=0.0" if xa == xb or abs(ya - yb) <= 1 else "arc3,rad=0.15")
        ax.add_patch(arrow)
        if programmatic:
            ax.text((xa + xb) / 2 + 0.05, (ya + yb) / 2, "programmatic", fontsize=7, color="#c0392b",
                    ha="left", va="center", zorder=4)
            labelled = True
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    ax.set_xlim(min(xs) - 0.7, max(xs) + 0.7)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.set_aspect("auto")
    ax.axis("off")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=KIND_STYLE.get(k, _OTHER)[0], edgecolor="#333333", label=KIND_STYLE.get(k, _OTHER)[1])
               for k in kinds_seen]
    if labelled:
        handles.append(Line2D([0], [0], color="#c0392b", linestyle="--", label="programmatic edge (PDL)"))
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)
    heading = title or f"{n} nodes, {len(view.edges)} edges"
    ax.set_title(heading if len(heading) <= 90 else heading[:87] + "...", fontsize=9)
    if out is None:
        return fig
    return save(fig, out)


def graph_image(view, fmt: str = "svg"):
    """The drawing of ``view`` as SVG text or PNG bytes (what ``GraphView._repr_svg_`` / ``_repr_png_`` show); None
    without matplotlib (the notebook then shows the text)."""
    from . import matplotlib_missing

    if matplotlib_missing():
        return None
    plt = pyplot()
    fig = draw_graph(view)
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=fmt, dpi=100, bbox_inches="tight")
    finally:
        plt.close(fig)
    data = buf.getvalue()
    return data.decode("utf-8") if fmt == "svg" else data


register_drawer("matplotlib", graph_image)
