"""CUDA graphs through the driver API: capture, inspection, instantiation, upload and launch.

    with capture(stream) as cap:        # cuStreamBeginCapture ... cuStreamEndCapture
        for launch in launches:
            launch()                    # recorded into the graph, not run
    with cap.graph.instantiate() as exe:  # cuGraphInstantiate
        exe.upload(stream)              # cuGraphUpload: move the work of the first launch out of the timed loop
        exe.launch(stream)              # cuGraphLaunch: the whole chain in one call
"""
from __future__ import annotations

from dataclasses import dataclass

from .calls import cu, driver_fn, driver_module
from .errors import check
from .resource import Resource

__all__ = ["Graph", "GraphExec", "capture", "ready_exec", "Topology", "node_kind"]


def node_kind(node) -> str:
    """A node's type without the CU_GRAPH_NODE_TYPE_ prefix: KERNEL, MEMSET, MEMCPY, CONDITIONAL, ..."""
    t = cu("cuGraphNodeGetType", node)
    return getattr(t, "name", str(t)).replace("CU_GRAPH_NODE_TYPE_", "")


def _kernel_name(node) -> str:
    try:
        params = cu("cuGraphKernelNodeGetParams", node)
        name = cu("cuFuncGetName", params.func)
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # older drivers lack cuFuncGetName; the kind alone still describes the node
        return "?"


@dataclass(frozen=True)
class Topology:
    """A graph reduced to what can be compared: node labels in a stable order and edges between their indices."""

    nodes: tuple[str, ...]  # "KERNEL:add", "MEMSET", ...
    edges: tuple[tuple[int, int], ...]

    def describe(self) -> str:
        lines = [f"{len(self.nodes)} nodes, {len(self.edges)} edges"]
        for i, label in enumerate(self.nodes):
            after = [str(a) for a, b in self.edges if b == i]
            lines.append(f"  [{i}] {label}" + (f"  <- {', '.join(after)}" if after else ""))
        return "\n".join(lines)


class Graph(Resource):
    """A CUDA graph (cuGraph*): owned and destroyed with the object."""

    def __init__(self, device, handle=None):
        self.device = device
        device._require_open()
        self.handle = handle if handle is not None else cu("cuGraphCreate", 0)
        h = self.handle
        self._own(lambda: cu("cuGraphDestroy", h))

    def nodes(self) -> list:
        """The graph's nodes (CUgraphNode handles) in the driver's order."""
        self._require_open()
        count = cu("cuGraphGetNodes", self.handle, 0)[1]
        if count == 0:
            return []
        nodes, _ = cu("cuGraphGetNodes", self.handle, count)
        return list(nodes[:count])

    @property
    def node_count(self) -> int:
        return len(self.nodes())

    def node_kinds(self) -> list[str]:
        return [node_kind(n) for n in self.nodes()]

    def edges(self) -> list[tuple]:
        """Dependency edges as (from_node, to_node) handle pairs."""
        self._require_open()
        r = cu("cuGraphGetEdges", self.handle, 0)
        count = r[-1]
        if count == 0:
            return []
        r = cu("cuGraphGetEdges", self.handle, count)
        src, dst = r[0], r[1]
        return list(zip(src[:count], dst[:count]))

    def topology(self) -> Topology:
        """Nodes in dependency order (ties broken by label) with edges as index pairs, for comparing graphs."""
        nodes = self.nodes()
        ids = [int(n) for n in nodes]
        labels = {}
        for n, i in zip(nodes, ids):
            kind = node_kind(n)
            labels[i] = f"{kind}:{_kernel_name(n)}" if kind == "KERNEL" else kind
        edges = [(int(a), int(b)) for a, b in self.edges()]
        preds = {i: {a for a, b in edges if b == i} for i in ids}
        order, placed = [], set()
        while len(order) < len(ids):
            ready = sorted((i for i in ids if i not in placed and preds[i] <= placed), key=lambda i: labels[i])
            if not ready:  # a cycle cannot happen in a valid graph; keep the rest in driver order
                ready = [i for i in ids if i not in placed]
            order.append(ready[0])
            placed.add(ready[0])
        index = {i: k for k, i in enumerate(order)}
        return Topology(tuple(labels[i] for i in order), tuple(sorted((index[a], index[b]) for a, b in edges)))

    def instantiate(self, flags: int = 0) -> "GraphExec":
        """cuGraphInstantiate: an executable graph, independent of this one afterwards."""
        self._require_open()
        return GraphExec(self.device, cu("cuGraphInstantiate", self.handle, flags))

    def debug_dot(self, path: str, verbose: bool = True) -> None:
        """Write the driver's own DOT description of the graph (cuGraphDebugDotPrint)."""
        d = driver_module()
        flags = (d.CUgraphDebugDot_flags.CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE if verbose else 0)
        cu("cuGraphDebugDotPrint", self.handle, str(path).encode(), int(flags))


class GraphExec(Resource):
    """An instantiated, launchable graph (CUgraphExec)."""

    def __init__(self, device, handle):
        self.device, self.handle = device, handle
        h = handle
        self._own(lambda: cu("cuGraphExecDestroy", h))
        self._launch = driver_fn("cuGraphLaunch")

    def upload(self, stream) -> None:
        """cuGraphUpload: do the one-time setup of a launch ahead of time, so the first launch is not slower."""
        self._require_open()
        cu("cuGraphUpload", self.handle, stream.handle)

    def launch(self, stream) -> None:
        """cuGraphLaunch on ``stream``."""
        r = self._launch(self.handle, stream.handle)
        if r[0]:
            check(r, "cuGraphLaunch")


def ready_exec(graph: Graph, stream) -> GraphExec:
    """Instantiate ``graph``, destroy it (the executable no longer needs it) and upload the executable to ``stream``
    so that its first launch costs no more than the others."""
    try:
        exe = graph.instantiate()
    finally:
        graph.close()
    try:
        exe.upload(stream)
    except BaseException:
        exe.close()
        raise
    return exe


class capture:
    """Context manager recording everything enqueued on ``stream`` into a Graph (``.graph`` after the block).

    ``mode`` is "global", "thread_local" (default) or "relaxed" (CUstreamCaptureMode). If the block raises, the
    capture is ended and the partial graph destroyed before the exception goes on; if the driver invalidated the
    capture, CaptureError says so.
    """

    def __init__(self, stream, mode: str = "thread_local"):
        d = driver_module()
        modes = {
            "global": d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL,
            "thread_local": d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            "relaxed": d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED,
        }
        if mode not in modes:
            from .errors import InvalidArgumentError

            raise InvalidArgumentError(f"capture mode must be one of {', '.join(modes)}, got {mode!r}")
        self.stream, self.mode = stream, modes[mode]
        self.graph: Graph | None = None

    def __enter__(self) -> "capture":
        cu("cuStreamBeginCapture", self.stream.handle, self.mode)
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        result = driver_fn("cuStreamEndCapture")(self.stream.handle)
        if exc_type is not None:
            if result[0] == 0 and result[1] is not None and int(result[1]):
                try:
                    cu("cuGraphDestroy", result[1])
                except Exception:
                    pass
            return False
        check(result, "cuStreamEndCapture")  # CaptureError when the driver invalidated the capture
        self.graph = Graph(self.stream.device, result[1])
        return False
