"""CUDA graphs through the driver API: a graph, its executable form, and a cache of ready executables.

    graph = capture_launches(stream, launches)   # or build it node by node (graphs.build)
    exe = graph.instantiate()                    # cuGraphInstantiate: validate and prepare once
    exe.upload(stream)                           # cuGraphUpload: the first launch's setup, out of the timed loop
    exe.launch(stream)                           # cuGraphLaunch: the whole graph in one call

An executable graph keeps what it needs of the graph it came from, so the graph can be destroyed once instantiated
(``ready_exec`` does instantiate, destroy, upload). ``ExecCache`` keeps one ready executable per key (an unroll count,
a loop's parameters) and owns them. CUDA Driver API, "Graph Management".
"""
from __future__ import annotations

from typing import Callable, Hashable

from ..core._calls import cu, driver_fn
from ..core._resource import Resource
from ..core.errors import check
from .inspect import Topology, edge_pairs, graph_nodes, node_kind, topology, write_dot
from .taken import register_owner

__all__ = ["Graph", "GraphExec", "ready_exec", "run_once", "ExecCache", "keep_alive"]


def keep_alive(owner, obj, wait_first: bool = False) -> None:
    """Make ``owner`` (a Graph or GraphExec) hold ``obj`` until it is closed: something the driver calls into while
    the graph exists, such as a host node's trampoline (graphs.host). The references live in a list that the
    owner's release clears (never in a closure over the owner). ``wait_first``: the release waits for the
    context's work first (cuCtxSynchronize), so no launch still in flight can call into a freed trampoline."""
    kept = owner.__dict__.get("_kept")
    if kept is None:
        kept = owner.__dict__["_kept"] = []

        def release() -> None:
            try:
                if wait_first and kept:
                    cu("cuCtxSynchronize")
            finally:
                kept.clear()

        owner._own(release)
    kept.append(obj)


class Graph(Resource):
    """A CUDA graph (CUgraph), made empty (cuGraphCreate) or adopted from a capture; destroyed with the object."""

    def __init__(self, device, handle=None):
        self.device = device
        if handle is None:
            device.require_open()
        try:
            self._live_in(device)  # lives in the device's context: keeps it alive until destroyed
        except BaseException:
            if handle is not None:  # adopted from a capture: ours to destroy
                cu("cuGraphDestroy", handle)
            raise
        self.handle = handle if handle is not None else cu("cuGraphCreate", 0)
        h = self.handle
        fate = self._fate = [True]  # False once the driver destroyed the graph itself (graphs.taken)
        self._own(lambda: cu("cuGraphDestroy", h) if fate[0] else None)
        register_owner(h, self)
        self.lost = ""  # why the graph was taken from this object (graphs.taken), "" while it is ours

    def _driver_took(self, why: str) -> None:
        """The driver destroyed this graph, or destroying it would crash it (graphs.taken): close this object
        without calling cuGraphDestroy; ``lost`` says why, and using the graph afterwards raises (it is closed)."""
        self._fate[0] = False
        self.lost = why
        self.close()

    def nodes(self) -> list:
        """The graph's nodes (CUgraphNode handles) in the driver's order (cuGraphGetNodes)."""
        self.require_open()
        return graph_nodes(self.handle)

    @property
    def node_count(self) -> int:
        return len(self.nodes())

    def node_kinds(self) -> list[str]:
        return [node_kind(n) for n in self.nodes()]

    def edges(self) -> list[tuple]:
        """Dependency edges as (from_node, to_node) handle pairs (cuGraphGetEdges)."""
        self.require_open()
        return edge_pairs(self.handle)

    def topology(self) -> Topology:
        """Nodes in dependency order (ties broken by label) with edges as index pairs, for comparing graphs."""
        self.require_open()
        return topology(self.handle)

    def instantiate(self, flags: int = 0) -> "GraphExec":
        """cuGraphInstantiate: an executable graph, independent of this one afterwards."""
        self.require_open()
        exe = GraphExec(self.device, cu("cuGraphInstantiate", self.handle, flags))
        exe.inherit(self)
        return exe

    def keep_alive(self, obj) -> None:
        """Hold ``obj`` while this graph and every executable made from it exist (see ``keep_alive``)."""
        keep_alive(self, obj)

    @property
    def kept(self) -> tuple:
        """What this graph keeps alive for the driver (host-node trampolines, ...)."""
        return tuple(self.__dict__.get("_kept", ()))

    def debug_dot(self, path: str, verbose: bool = True) -> None:
        """Write the driver's own DOT description of the graph (cuGraphDebugDotPrint)."""
        self.require_open()
        write_dot(self.handle, path, verbose)


class GraphExec(Resource):
    """An instantiated, launchable graph (CUgraphExec)."""

    def __init__(self, device, handle):
        self.device, self.handle = device, handle
        try:
            self._live_in(device)
        except BaseException:
            cu("cuGraphExecDestroy", handle)
            raise
        h = handle
        self._own(lambda: cu("cuGraphExecDestroy", h))
        self.fn = driver_fn("cuGraphLaunch")

    def inherit(self, graph) -> None:
        """Keep alive what ``graph`` (the graph this exec came from) keeps alive: its host nodes still run here."""
        for obj in getattr(graph, "kept", ()):
            keep_alive(self, obj, wait_first=True)

    @property
    def kept(self) -> tuple:
        return tuple(self.__dict__.get("_kept", ()))

    def upload(self, stream) -> None:
        """cuGraphUpload: do the one-time setup of a launch ahead of time, so the first launch is not slower."""
        self.require_open()
        cu("cuGraphUpload", self.handle, stream.handle)

    def launch(self, stream) -> None:
        """cuGraphLaunch on ``stream``."""
        r = self.fn(self.handle, stream.handle)
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


def run_once(graph: Graph, stream) -> None:
    """Instantiate ``graph``, upload, launch it once on ``stream`` and wait; the executable is destroyed after."""
    with graph.instantiate() as exe:
        exe.upload(stream)
        exe.launch(stream)
        stream.synchronize()


class ExecCache(Resource):
    """Ready executables by key, made on first use from a graph builder and owned here (destroyed on close)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self._execs: dict[Hashable, GraphExec] = {}
        execs = self._execs

        def forget() -> None:  # the execs themselves are children, closed before this runs
            execs.clear()

        self._own(forget)

    def get(self, key: Hashable, build: Callable[[], Graph]) -> GraphExec:
        """The executable for ``key``; on a miss, ``build()`` makes a Graph that is instantiated, uploaded, kept."""
        exe = self._execs.get(key)
        if exe is None:
            self.require_open()
            exe = ready_exec(build(), self.stream)
            self.adopt(exe)
            self._execs[key] = exe
        return exe

    def __contains__(self, key: Hashable) -> bool:
        return key in self._execs

    def __len__(self) -> int:
        return len(self._execs)
