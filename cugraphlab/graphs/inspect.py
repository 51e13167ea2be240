"""Looking inside a graph: its nodes and edges, a comparable topology, a plain-text view, and the driver's DOT file.

Everything here walks a graph through its handle (``cuGraphGetNodes``, ``cuGraphGetEdges``, ``cuGraphNodeGetType``,
``cuGraphKernelNodeGetParams``, ``cuFuncGetName``; CUDA Driver API, "Graph Management"), so it works as well on a
graph owned by a ``Graph`` object as on a conditional node's body graph, which the node owns.

The text view lists every node with its kind (for kernel nodes the kernel and its grid x block, for graph memory
nodes the size and address allocated or the address freed: ``cuGraphMemAllocNodeGetParams``,
``cuGraphMemFreeNodeGetParams``), every edge as ``[i] -> [j]``, and draws the nodes layer by layer: a node's depth is
one more than its deepest predecessor, so nodes that may run at the same time (parallel branches) share a line.

Pictures without a floor pointing up: ``GraphView`` and ``Topology`` show themselves in a notebook (``_repr_svg_``,
``_repr_png_``, ``_repr_html_``) through ``DRAWERS``, a registry of drawing functions that a higher floor fills
when it is imported (``cugraphlab.report.plots.graphs`` registers its matplotlib drawing under "matplotlib").
The graph floor never imports the report floor, not even lazily inside a method: it only calls what was
registered. With nothing registered (report not imported, or matplotlib missing) the rich reprs return None and
Jupyter falls back to the plain repr (``render_text(view)`` is the text view).
Import ``cugraphlab.report`` (or ``cugraphlab.report.plots.graphs``) in a notebook to get the drawings.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..core._calls import cu, driver_module, func_name, graph_edges
from .handles import GraphLike, as_handle

__all__ = [
    "node_kind", "kernel_name", "node_label", "graph_nodes", "edge_pairs", "edge_kinds", "dependency_order",
    "Topology", "topology", "NodeInfo", "GraphView", "graph_view", "depths", "render_text", "write_dot",
    "kernel_nodes_in_order", "same_topology", "node_detail", "DRAWERS", "register_drawer", "drawing",
]

#: name -> draw(view, fmt) returning the picture as bytes ("png") or text ("svg"); filled from above (report).
DRAWERS: dict[str, Callable] = {}


def register_drawer(name: str, draw: Callable) -> None:
    """Register ``draw(view: GraphView, fmt: "png" | "svg") -> bytes | str`` under ``name`` (the newest wins)."""
    DRAWERS.pop(name, None)
    DRAWERS[name] = draw


def drawing(view, fmt: str = "svg"):
    """The picture of a GraphView or Topology from the newest registered drawer: SVG text or PNG bytes; None when
    no drawer is registered (import cugraphlab.report.plots.graphs) or the drawer could not draw (no matplotlib)."""
    if fmt not in ("svg", "png"):
        raise ValueError(f"fmt must be 'svg' or 'png', got {fmt!r}")
    if not DRAWERS:
        return None
    draw = list(DRAWERS.values())[-1]
    try:
        return draw(view, fmt)
    except ImportError:  # matplotlib went missing after registration: the text view still shows the graph
        return None


class _Shown:
    """Notebook display of a graph view: the registered drawing, else None (Jupyter shows the text repr)."""

    def to_svg(self) -> str | None:
        """The drawing as SVG text (None without a registered drawer)."""
        return drawing(self, "svg")

    def to_png(self) -> bytes | None:
        """The drawing as PNG bytes (None without a registered drawer)."""
        return drawing(self, "png")

    def _repr_svg_(self):
        return self.to_svg()

    def _repr_png_(self):
        return self.to_png()

    def _repr_html_(self):
        svg = self.to_svg()
        text = f"<pre>{html.escape(render_text(self))}</pre>"
        if svg is None:
            return text
        return f"<div>{svg}</div><details><summary>text view</summary>{text}</details>"



def node_kind(node) -> str:
    """A node's type without the CU_GRAPH_NODE_TYPE_ prefix: KERNEL, MEMSET, MEMCPY, CONDITIONAL, ..."""
    t = cu("cuGraphNodeGetType", node)
    return getattr(t, "name", str(t)).replace("CU_GRAPH_NODE_TYPE_", "")


def kernel_name(node) -> str:
    """The name of a kernel node's function (cuFuncGetName, CUDA 12.3+), or "?" where the driver cannot say.

    A handle member of a bindings struct (``params.func``) is a view into the struct's own memory, not a copy: the
    params are held in a local until cuFuncGetName has returned, never dropped right after ``.func`` is read.
    """
    try:
        params = cu("cuGraphKernelNodeGetParams", node)
        return func_name(params.func) or "?"
    except Exception:  # the kind alone still describes the node
        return "?"


def node_label(node) -> str:
    """"KERNEL:add" for a kernel node, the kind ("MEMSET", ...) for others."""
    kind = node_kind(node)
    return f"KERNEL:{kernel_name(node)}" if kind == "KERNEL" else kind


def graph_nodes(graph: GraphLike) -> list:
    """The nodes (CUgraphNode) of a Graph or graph handle, in the driver's order."""
    h = as_handle(graph)
    count = cu("cuGraphGetNodes", h, 0)[1]
    if count == 0:
        return []
    nodes, _ = cu("cuGraphGetNodes", h, count)
    return list(nodes[:count])


def edge_pairs(graph: GraphLike) -> list[tuple]:
    """Dependency edges of a Graph or graph handle as (from_node, to_node) pairs."""
    return [(a, b) for a, b, _ in graph_edges(as_handle(graph))]


def edge_kinds(graph: GraphLike) -> list[tuple[int, int, int]]:
    """(type, from_port, to_port) of every edge; type 1 is CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC. Edges whose
    bindings report no edge data count as (0, 0, 0): a full dependency."""
    out = []
    for _a, _b, data in graph_edges(as_handle(graph)):
        out.append((0, 0, 0) if data is None else (int(data.type), int(data.from_port), int(data.to_port)))
    return out


def dependency_order(ids: list[int], edges: list[tuple[int, int]], key=None) -> list[int]:
    """``ids`` so that every node comes after its predecessors; among ready nodes, by ``key`` (default: the given
    order). A cycle cannot happen in a valid graph; should one appear, the rest keep the given order."""
    preds: dict[int, set[int]] = {i: set() for i in ids}
    for a, b in edges:
        preds[b].add(a)
    rank = {i: k for k, i in enumerate(ids)}
    sort_key = key or rank.__getitem__
    order: list[int] = []
    placed: set[int] = set()
    while len(order) < len(ids):
        ready = sorted((i for i in ids if i not in placed and preds[i] <= placed), key=sort_key)
        if not ready:
            ready = [i for i in ids if i not in placed]
        order.append(ready[0])
        placed.add(ready[0])
    return order


@dataclass(frozen=True)
class Topology(_Shown):
    """A graph reduced to what can be compared: node labels in a stable order and edges between their indices."""

    nodes: tuple[str, ...]  # "KERNEL:add", "MEMSET", ...
    edges: tuple[tuple[int, int], ...]

    def describe(self) -> str:
        lines = [f"{len(self.nodes)} nodes, {len(self.edges)} edges"]
        for i, label in enumerate(self.nodes):
            after = [str(a) for a, b in self.edges if b == i]
            lines.append(f"  [{i}] {label}" + (f"  <- {', '.join(after)}" if after else ""))
        return "\n".join(lines)


@dataclass(frozen=True)
class NodeInfo:
    """One node as the text view shows it."""

    label: str  # "KERNEL:add", "MEMSET", ...
    detail: str = ""  # "grid 4096, block 256" for kernel nodes


@dataclass(frozen=True)
class GraphView(_Shown):
    """A graph reduced to its nodes (in dependency order) with details, and edges as index pairs.

    ``edge_types``: one CUgraphDependencyType per edge, in the order of ``edges`` (0 full dependency,
    1 programmatic), or () where unknown (all full dependencies)."""

    nodes: tuple[NodeInfo, ...]
    edges: tuple[tuple[int, int], ...]
    edge_types: tuple[int, ...] = ()

    def edge_type(self, k: int) -> int:
        """The dependency type of edge ``k`` (0 where unknown)."""
        return self.edge_types[k] if k < len(self.edge_types) else 0

    @classmethod
    def from_topology(cls, topo: Topology, details=None) -> "GraphView":
        """A view from a Topology; ``details`` optionally maps node index -> text (grid/block)."""
        details = details or {}
        return cls(tuple(NodeInfo(label, details.get(i, "")) for i, label in enumerate(topo.nodes)),
                   tuple(topo.edges))

    @property
    def topology(self) -> Topology:
        return Topology(tuple(n.label for n in self.nodes), self.edges)


def _kernel_detail(node) -> str:
    try:
        p = cu("cuGraphKernelNodeGetParams", node)
        grid = (p.gridDimX, p.gridDimY, p.gridDimZ)
        block = (p.blockDimX, p.blockDimY, p.blockDimZ)

        def fmt(t):
            return " x ".join(str(v) for v in t) if t[1:] != (1, 1) else str(t[0])

        return f"grid {fmt(grid)}, block {fmt(block)}"
    except Exception:  # the kind and name still describe the node
        return ""


def _node_detail(node, kind: str) -> str:
    """What the text view says beside a node that is not a kernel: a child graph's kernels, a host node's
    function, an event node's event. Cosmetic: "" where the driver cannot say."""
    try:
        if kind == "GRAPH":
            inner = cu("cuGraphChildGraphNodeGetGraph", node)
            labels = [node_label(n) for n in graph_nodes(inner)]
            names = [lab.split(":", 1)[1] if lab.startswith("KERNEL:") else lab.lower() for lab in labels]
            shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
            return f"child graph of {len(labels)} nodes: {shown}"
        if kind == "HOST":
            params = cu("cuGraphHostNodeGetParams", node)  # .fn is a view into params: keep them while reading
            return f"host fn {int(params.fn):#x}"
        if kind == "EVENT_RECORD":
            return f"records event {int(cu('cuGraphEventRecordNodeGetEvent', node)):#x}"
        if kind == "WAIT_EVENT":
            return f"waits for event {int(cu('cuGraphEventWaitNodeGetEvent', node)):#x}"
        if kind == "EMPTY":
            return "join point (no work)"
    except Exception:
        return ""
    return ""


def _memory_detail(node, kind: str) -> str:
    """"4 MiB (4,194,304 bytes) at 0x7f..." for an alloc node, "frees 0x7f..." for a free node."""
    try:
        if kind == "MEM_ALLOC":
            p = cu("cuGraphMemAllocNodeGetParams", node)
            size = int(p.bytesize)
            unit = f"{size / 2**20:.4g} MiB" if size >= 2**20 else f"{size / 2**10:.4g} KiB"
            return f"{unit} ({size:,} bytes) at {int(p.dptr):#x}"
        return f"frees {int(cu('cuGraphMemFreeNodeGetParams', node)):#x}"
    except Exception:  # the kind still describes the node
        return ""


def node_detail(node, label: str) -> str:
    """What the text view shows beside a node: grid and block of a kernel node, size and address of a graph memory
    node (cuGraphMemAllocNodeGetParams, cuGraphMemFreeNodeGetParams), a child graph's, host or event node's
    (``_node_detail``)."""
    if label.startswith("KERNEL"):
        return _kernel_detail(node)
    if label in ("MEM_ALLOC", "MEM_FREE"):
        return _memory_detail(node, label)
    return _node_detail(node, label)


def graph_view(graph: GraphLike) -> GraphView:
    """The view of a Graph or graph handle: nodes in dependency order (ties by label), with kernel and memory-node
    details."""
    nodes = graph_nodes(graph)
    ids = [int(n) for n in nodes]
    labels, details = {}, {}
    for n, i in zip(nodes, ids):
        labels[i] = node_label(n)
        details[i] = node_detail(n, labels[i])
    raw = graph_edges(as_handle(graph))
    edges = [(int(a), int(b)) for a, b, _ in raw]
    types = [0 if data is None else int(data.type) for _a, _b, data in raw]
    order = dependency_order(ids, edges, key=lambda i: labels[i])
    index = {i: k for k, i in enumerate(order)}
    typed = sorted(((index[a], index[b]), t) for (a, b), t in zip(edges, types))
    return GraphView(tuple(NodeInfo(labels[i], details[i]) for i in order), tuple(e for e, _ in typed),
                     tuple(t for _, t in typed) if any(types) else ())


def topology(graph: GraphLike) -> Topology:
    """Nodes in dependency order (ties broken by label) with edges as index pairs, for comparing graphs."""
    return graph_view(graph).topology


def kernel_nodes_in_order(graph: GraphLike) -> list:
    """The kernel nodes of a graph in dependency order (ties in driver order): a chain's ops, first to last."""
    nodes = graph_nodes(graph)
    ids = [int(n) for n in nodes]
    by_id = dict(zip(ids, nodes))
    order = dependency_order(ids, [(int(a), int(b)) for a, b in edge_pairs(graph)])
    return [by_id[i] for i in order if node_kind(by_id[i]) == "KERNEL"]


def same_topology(a, b) -> tuple[bool, str]:
    """Whether two graphs (Graph, handle or Topology) have the same nodes, kinds and edges; and a short diff if not."""
    ta = a if isinstance(a, Topology) else topology(a)
    tb = b if isinstance(b, Topology) else topology(b)
    if ta == tb:
        return True, f"same topology: {len(ta.nodes)} nodes, {len(ta.edges)} edges"
    lines = []
    if len(ta.nodes) != len(tb.nodes):
        lines.append(f"node count: {len(ta.nodes)} vs {len(tb.nodes)}")
    for i in range(max(len(ta.nodes), len(tb.nodes))):
        la = ta.nodes[i] if i < len(ta.nodes) else "-"
        lb = tb.nodes[i] if i < len(tb.nodes) else "-"
        if la != lb:
            lines.append(f"node [{i}]: {la} vs {lb}")
    only_a = sorted(set(ta.edges) - set(tb.edges))
    only_b = sorted(set(tb.edges) - set(ta.edges))
    if only_a:
        lines.append("edges only in the first: " + ", ".join(f"[{x}] -> [{y}]" for x, y in only_a))
    if only_b:
        lines.append("edges only in the second: " + ", ".join(f"[{x}] -> [{y}]" for x, y in only_b))
    return False, "different topology: " + "; ".join(lines)


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


def write_dot(graph: GraphLike, path, verbose: bool = True) -> Path:
    """Write the driver's own DOT description of a Graph or handle (cuGraphDebugDotPrint) to ``path``."""
    path = Path(path)
    from ..core.files import make_parents

    make_parents(path)
    d = driver_module()
    flags = d.CUgraphDebugDot_flags.CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE if verbose else 0
    cu("cuGraphDebugDotPrint", as_handle(graph), str(path).encode(), int(flags))
    return path
