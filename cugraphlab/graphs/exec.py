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
    """A CUDA graph (CUgraph), made empty (cuGraphCreate) or adopted from a capture; destroyed with the object.

    Parameters
    ----------
    device : Device
        The Device whose context the graph lives in (kept alive until the graph is destroyed).
    handle : CUgraph, optional
        A graph to own (one a capture ended with); None (default): a new empty graph.

    Raises
    ------
    CugraphlabError
        ``device`` is closed (an adopted ``handle`` is destroyed first).
    CudaError
        cuGraphCreate failed.

    See Also
    --------
    cuGraphCreate : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1gd885f719186010727b75c3315f865fdf
    """

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
        """The graph's nodes (CUgraphNode handles) in the driver's order (cuGraphGetNodes).

        Returns
        -------
        list of CUgraphNode
            Every node of this graph (not of its conditional bodies or child graphs).

        Raises
        ------
        CugraphlabError
            The graph is closed.
        CudaError
            cuGraphGetNodes failed.

        See Also
        --------
        cuGraphGetNodes : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1gfa35a8e2d2fc32f48dbd67ba27cf27e5
        """
        self.require_open()
        return graph_nodes(self.handle)

    @property
    def node_count(self) -> int:
        return len(self.nodes())

    def node_kinds(self) -> list[str]:
        """The type of each node of ``nodes()``, in that order: "KERNEL", "MEMSET", "CONDITIONAL", ...

        Returns
        -------
        list of str
            CUgraphNodeType names without the ``CU_GRAPH_NODE_TYPE_`` prefix.

        Raises
        ------
        CugraphlabError
            The graph is closed.
        CudaError
            cuGraphGetNodes or cuGraphNodeGetType failed.
        """
        return [node_kind(n) for n in self.nodes()]

    def edges(self) -> list[tuple]:
        """Dependency edges as (from_node, to_node) handle pairs (cuGraphGetEdges).

        Returns
        -------
        list of tuple
            (from_node, to_node) per edge, in the driver's order; ``graphs.inspect.edge_kinds`` says which are
            programmatic.

        Raises
        ------
        CugraphlabError
            The graph is closed.
        CudaError
            cuGraphGetEdges failed.

        See Also
        --------
        cuGraphGetEdges : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g4e3183ca455aae2e832edd4034094082
        """
        self.require_open()
        return edge_pairs(self.handle)

    def topology(self) -> Topology:
        """Nodes in dependency order (ties broken by label) with edges as index pairs, for comparing graphs.

        Returns
        -------
        Topology
            ``describe()`` gives the text view; two graphs of one shape compare equal.

        Raises
        ------
        CugraphlabError
            The graph is closed.
        CudaError
            A node or edge query failed.
        """
        self.require_open()
        return topology(self.handle)

    def instantiate(self, flags: int = 0) -> "GraphExec":
        """cuGraphInstantiate: an executable graph, independent of this one afterwards.

        Parameters
        ----------
        flags : int, optional
            CUgraphInstantiate_flags (0 by default; graphs.controls.instantiate_flags names them).

        Returns
        -------
        GraphExec
            Owned: destroyed by ``close()`` or the garbage collector; it keeps alive what this graph keeps.

        Raises
        ------
        CugraphlabError
            The graph is closed.
        CudaError
            cuGraphInstantiate refused the graph (the CUresult names why: an invalid node, an unfreed allocation,
            ...).

        See Also
        --------
        cuGraphInstantiate : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1gb53b435e178cccfa37ac87285d2c3fa1
        """
        self.require_open()
        exe = GraphExec(self.device, cu("cuGraphInstantiate", self.handle, flags))
        exe.inherit(self)
        return exe

    def keep_alive(self, obj) -> None:
        """Hold ``obj`` while this graph and every executable made from it exist (see ``keep_alive``).

        Parameters
        ----------
        obj : object
            What the driver calls into while the graph exists (a host node's trampoline).

        Raises
        ------
        CugraphlabError
            The graph is closed.
        """
        keep_alive(self, obj)

    @property
    def kept(self) -> tuple:
        """What this graph keeps alive for the driver (host-node trampolines, ...)."""
        return tuple(self.__dict__.get("_kept", ()))

    def debug_dot(self, path: str, verbose: bool = True) -> None:
        """Write the driver's own DOT description of the graph (cuGraphDebugDotPrint).

        Parameters
        ----------
        path : str
            The file to write.
        verbose : bool, optional
            True (default): CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE, every parameter of every node.

        Raises
        ------
        CugraphlabError
            The graph is closed.
        CudaError
            cuGraphDebugDotPrint failed (a path it cannot write, for one).

        See Also
        --------
        cuGraphDebugDotPrint : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g0fb0c4d319477a0a98da005fcb0dacc4
        """
        self.require_open()
        write_dot(self.handle, path, verbose)


class GraphExec(Resource):
    """An instantiated, launchable graph (CUgraphExec), made by ``Graph.instantiate``; destroyed with the object.

    Parameters
    ----------
    device : Device
        The Device whose context the executable lives in.
    handle : CUgraphExec
        The executable to own.

    Raises
    ------
    CugraphlabError
        ``device`` is closed and its context gone (``handle`` is destroyed first).
    """

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
        """Keep alive what ``graph`` (the graph this exec came from) keeps alive: its host nodes still run here.

        Parameters
        ----------
        graph : Graph
            The graph this executable was instantiated from.

        Raises
        ------
        CugraphlabError
            This executable is closed.
        """
        for obj in getattr(graph, "kept", ()):
            keep_alive(self, obj, wait_first=True)

    @property
    def kept(self) -> tuple:
        return tuple(self.__dict__.get("_kept", ()))

    def upload(self, stream) -> None:
        """cuGraphUpload: do the one-time setup of a launch ahead of time, so the first launch is not slower.

        Parameters
        ----------
        stream : Stream
            The stream the upload is ordered on (usually the one the graph will be launched on).

        Raises
        ------
        CugraphlabError
            The executable is closed.
        CudaError
            cuGraphUpload failed.

        See Also
        --------
        cuGraphUpload : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1ga7eb9849e6e4604864a482b38f25be48
        """
        self.require_open()
        cu("cuGraphUpload", self.handle, stream.handle)

    def launch(self, stream) -> None:
        """cuGraphLaunch on ``stream``: every node of the graph in one call, ordered after the stream's earlier work.

        Parameters
        ----------
        stream : Stream
            Where to launch; the host does not wait.

        Raises
        ------
        CudaError
            cuGraphLaunch failed (a closed executable's handle is refused by the driver).

        See Also
        --------
        cuGraphLaunch : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g6b2dceb3901e71a390d2bd8b0491e471
        """
        r = self.fn(self.handle, stream.handle)
        if r[0]:
            check(r, "cuGraphLaunch")


def ready_exec(graph: Graph, stream) -> GraphExec:
    """Instantiate ``graph``, destroy it (the executable no longer needs it) and upload the executable to ``stream``
    so that its first launch costs no more than the others.

    Parameters
    ----------
    graph : Graph
        Closed here, whatever happens.
    stream : Stream
        Where the executable is uploaded (and will be launched).

    Returns
    -------
    GraphExec
        Owned by the caller.

    Raises
    ------
    CudaError
        cuGraphInstantiate or cuGraphUpload failed (nothing is left open).
    """
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
    """Instantiate ``graph``, upload, launch it once on ``stream`` and wait; the executable is destroyed after.

    Parameters
    ----------
    graph : Graph
        Left open (the caller's).
    stream : Stream
        Where it runs.

    Raises
    ------
    CudaError
        Instantiating, uploading, launching or the work itself failed.
    """
    with graph.instantiate() as exe:
        exe.upload(stream)
        exe.launch(stream)
        stream.synchronize()


class ExecCache(Resource):
    """Ready executables by key, made on first use from a graph builder and owned here (destroyed on close).

    Parameters
    ----------
    stream : Stream
        Where every executable is uploaded.
    """

    def __init__(self, stream) -> None:
        self.stream = stream
        self._execs: dict[Hashable, GraphExec] = {}
        execs = self._execs

        def forget() -> None:  # the execs themselves are children, closed before this runs
            execs.clear()

        self._own(forget)

    def get(self, key: Hashable, build: Callable[[], Graph]) -> GraphExec:
        """The executable for ``key``; on a miss, ``build()`` makes a Graph that is instantiated, uploaded, kept.

        Parameters
        ----------
        key : hashable
            What tells the executables apart (an unroll count, a loop's parameters).
        build : callable
            ``build()`` returns a new Graph (closed here once instantiated); called only on a miss.

        Returns
        -------
        GraphExec
            Owned by the cache: do not close it.

        Raises
        ------
        CugraphlabError
            The cache is closed.
        CudaError
            Instantiating or uploading the built graph failed.
        """
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
