"""Looking at a graph: a plain-text view (nodes, edges, layers by dependency depth) and Graphviz DOT/SVG.

The text view lists every node with its kind (and, for kernel nodes, the kernel and its grid x block), every edge as
``[i] -> [j]``, and draws the nodes layer by layer: a node's depth is one more than its deepest predecessor, so
nodes that may run at the same time (parallel branches) share a line.

``write_dot`` asks the driver for its own description of the graph (cuGraphDebugDotPrint); ``render_svg`` turns
it into SVG with Graphviz's ``dot`` when that program is installed.
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .graph import Topology, _kernel_name, node_kind

__all__ = ["NodeInfo", "GraphView", "graph_view", "depths", "render_text", "write_dot", "render_svg"]


@dataclass(frozen=True)
class NodeInfo:
    """One node as the text view shows it."""

    label: str  # "KERNEL:add", "MEMSET", ...
    detail: str = ""  # "grid 4096 x block 256" for kernel nodes


@dataclass(frozen=True)
class GraphView:
    """A graph reduced to its nodes (in dependency order) with details, and edges as index pairs."""

    nodes: tuple[NodeInfo, ...]
    edges: tuple[tuple[int, int], ...]

    @classmethod
    def from_topology(cls, topology: Topology, details=None) -> "GraphView":
        """A view from a Topology; ``details`` optionally maps node index -> text (grid/block)."""
        details = details or {}
        return cls(tuple(NodeInfo(label, details.get(i, "")) for i, label in enumerate(topology.nodes)),
                   tuple(topology.edges))

    @property
    def topology(self) -> Topology:
        return Topology(tuple(n.label for n in self.nodes), self.edges)


def _kernel_detail(node) -> str:
    try:
        from .calls import cu

        p = cu("cuGraphKernelNodeGetParams", node)
        grid = (p.gridDimX, p.gridDimY, p.gridDimZ)
        block = (p.blockDimX, p.blockDimY, p.blockDimZ)

        def dims(t):
            return " x ".join(str(v) for v in t) if t[1:] != (1, 1) else str(t[0])

        return f"grid {dims(grid)}, block {dims(block)}"
    except Exception:  # the kind and name still describe the node
        return ""


def graph_view(graph) -> GraphView:
    """The view of a live Graph: nodes in dependency order (ties by label, as Graph.topology orders them)."""
    nodes = graph.nodes()
    ids = [int(n) for n in nodes]
    by_id = dict(zip(ids, nodes))
    labels, details = {}, {}
    for n, i in zip(nodes, ids):
        kind = node_kind(n)
        if kind == "KERNEL":
            labels[i] = f"KERNEL:{_kernel_name(n)}"
            details[i] = _kernel_detail(by_id[i])
        else:
            labels[i], details[i] = kind, ""
    edges = [(int(a), int(b)) for a, b in graph.edges()]
    preds = {i: {a for a, b in edges if b == i} for i in ids}
    order, placed = [], set()
    while len(order) < len(ids):
        ready = sorted((i for i in ids if i not in placed and preds[i] <= placed), key=lambda i: labels[i])
        if not ready:
            ready = [i for i in ids if i not in placed]
        order.append(ready[0])
        placed.add(ready[0])
    index = {i: k for k, i in enumerate(order)}
    return GraphView(tuple(NodeInfo(labels[i], details[i]) for i in order),
                     tuple(sorted((index[a], index[b]) for a, b in edges)))


def depths(n_nodes: int, edges) -> list[int]:
    """Each node's dependency depth: 0 for roots, else 1 + the deepest predecessor (edges as index pairs)."""
    preds: dict[int, list[int]] = {i: [] for i in range(n_nodes)}
    for a, b in edges:
        preds[b].append(a)
    memo: dict[int, int] = {}

    def depth(i: int, seen=()) -> int:
        if i in memo:
            return memo[i]
        if i in seen:  # a cycle cannot be in a valid graph; do not loop forever on a bad input
            return 0
        d = 1 + max((depth(p, seen + (i,)) for p in preds[i]), default=-1)
        memo[i] = d
        return d

    return [depth(i) for i in range(n_nodes)]


def _short(label: str) -> str:
    return label.split(":", 1)[1] if label.startswith("KERNEL:") else label.lower()


def render_text(view, title: str = "") -> str:
    """The text view of a GraphView or Topology: nodes, edges, then the layers by depth."""
    if isinstance(view, Topology):
        view = GraphView.from_topology(view)
    n = len(view.nodes)
    lines = [title] if title else []
    lines.append(f"{n} nodes, {len(view.edges)} edges")
    width = max((len(node.label) for node in view.nodes), default=0)
    for i, node in enumerate(view.nodes):
        after = [f"[{a}]" for a, b in view.edges if b == i]
        text = f"  [{i}] {node.label:<{width}}"
        if node.detail:
            text += f"  {node.detail}"
        if after:
            text += f"  after {', '.join(after)}"
        lines.append(text.rstrip())
    if view.edges:
        lines.append("edges: " + "  ".join(f"[{a}] -> [{b}]" for a, b in view.edges))
    if n:
        lines.append("layers (nodes on one line may run at the same time):")
        d = depths(n, view.edges)
        cells = [f"[{i}] {_short(view.nodes[i].label)}" for i in range(n)]
        cell_w = max(len(c) for c in cells)
        for level in range(max(d) + 1):
            row = [cells[i].ljust(cell_w) for i in range(n) if d[i] == level]
            lines.append(f"  {level:>2} | " + "  ".join(row).rstrip())
    return "\n".join(lines)


def write_dot(graph, path) -> Path:
    """Write the driver's DOT description of ``graph`` (cuGraphDebugDotPrint, verbose) to ``path``."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    graph.debug_dot(str(path))
    return path


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
