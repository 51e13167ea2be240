"""Graphs that grow: a straight line of L nodes, or a fork/join of W parallel branches, built two ways.

The workload of ``cugraphlab scaling`` (bench.scaling times it; nothing is timed here). A *unit* of work is one node
of the empty kernel (kernels/empty.cu, one block of 32 threads) or one iteration of the chain (its four kernel nodes,
the launches of ``experiment.chain.Chain``). A ``Shape`` says how many units, in what topology:

    line      L units one after the other on stream S0              nodes L*k, edges L*k - 1
    forkjoin  fork -> W branches of L/W units each -> join          nodes L*k + 2, edges L*k + W
              (fork and join are empty-kernel nodes; k = 1 for the empty kernel, 4 for the chain)

The same graph is made by stream capture (``capture``) and by explicit node building (``build``):

    capture:  cuStreamBeginCapture(S0)
              cuLaunchKernel(fork, S0); cuEventRecord(f, S0); cuStreamWaitEvent(Si, f)      # Si joins the capture
              cuLaunchKernel(unit, Si) ...                                                   # branch i on stream Si
              cuEventRecord(ji, Si); cuStreamWaitEvent(S0, ji); cuLaunchKernel(join, S0)     # branch i flows back
              cuStreamEndCapture(S0) -> graph
    explicit: cuGraphCreate; cuGraphAddKernelNode(graph, deps, n, params) per node (deps: the node before it; the
              fork for a branch's first node; every branch's last node for the join)

and ``enqueue`` issues exactly the calls that capture records, outside any capture: the eager twin of the graph,
which break-even figures compare with. The kernel-node parameters (``CUDA_KERNEL_NODE_PARAMS``) of each launch are
made once, so building a node costs one binding call. With the chain, every branch has its own ``Chain`` (own
buffers, own stream), so parallel branches never write the same memory; ``verify`` launches a graph on fresh random
inputs with poisoned outputs and compares every branch's output bit for bit with NumPy. CUDA Driver API, "Graph
Management" and "Stream Management".
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core._calls import cu, driver_fn
from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, check, positive_int
from ..core.launch import Launch, LaunchConfig, PackedArgs
from ..graphs.build import kernel_node_params
from ..graphs.capture import capture
from ..graphs.exec import Graph
from ..graphs.inspect import edge_pairs, graph_nodes
from .chain import Chain
from .ops import DEFAULT_OPS, Verification, parse_ops

__all__ = ["Shape", "ScalingShape", "ScalingWorkload", "WORKS", "TOPOLOGIES", "MAX_WIDTH", "scaling_kernel_names",
           "branch_lengths"]

WORKS = ("empty", "chain")
TOPOLOGIES = ("line", "forkjoin")
MAX_WIDTH = 32  # branches (one stream each during capture)
EMPTY_CONFIG = LaunchConfig(1, 32)  # one block of 32 threads, like every empty-kernel probe of the package


def branch_lengths(length: int, width: int) -> list[int]:
    """``length`` units shared out over ``width`` branches, the first ones one longer when it does not divide."""
    base, extra = divmod(length, width)
    return [base + (1 if i < extra else 0) for i in range(width)]


@dataclass(frozen=True)
class Shape:
    """One graph of the sweep: ``topology`` ("line" or "forkjoin"), ``length`` units in all, ``width`` branches."""

    topology: str
    length: int
    width: int = 1

    def __post_init__(self):
        if self.topology not in TOPOLOGIES:
            raise InvalidArgumentError(f"topology must be one of {', '.join(TOPOLOGIES)}, got {self.topology!r}")
        positive_int("graph length", self.length)
        positive_int("width", self.width, MAX_WIDTH)
        if self.topology == "line" and self.width != 1:
            raise InvalidArgumentError(f"a line has width 1, got {self.width}")
        if self.width > self.length:
            raise InvalidArgumentError(f"a fork/join of width {self.width} needs at least {self.width} units, "
                                       f"got {self.length}")

    def branches(self) -> list[int]:
        """Units per branch (one branch for a line)."""
        return branch_lengths(self.length, self.width)

    def nodes(self, per_unit: int = 1) -> int:
        """Nodes of the graph when each unit is ``per_unit`` kernel nodes."""
        return self.length * per_unit + (2 if self.topology == "forkjoin" else 0)

    def edges(self, per_unit: int = 1) -> int:
        """Edges of the graph: a line's nodes in a row; each branch in a row, after the fork, before the join."""
        if self.topology == "line":
            return self.length * per_unit - 1
        return self.length * per_unit + self.width

    @property
    def label(self) -> str:
        return f"line L={self.length}" if self.topology == "line" else \
            f"forkjoin W={self.width} L={self.length}"


ScalingShape = Shape  # its name outside this module (cugraphlab.experiment.ScalingShape)


def scaling_kernel_names(work: str, ops=DEFAULT_OPS) -> list[str]:
    """Kernel sources the workload needs: the empty kernel, and the chain's ops and fused kernel for ``chain``."""
    if work not in WORKS:
        raise InvalidArgumentError(f"work must be one of {', '.join(WORKS)}, got {work!r}")
    return ["empty"] if work == "empty" else sorted({*parse_ops(ops), "fused", "empty"})


def _fire(calls) -> None:
    for fn, args, api in calls:
        r = fn(*args)
        if r[0]:
            check(r, api)


class ScalingWorkload(Resource):
    """Everything to capture, build or enqueue a Shape of ``work`` ("empty" or "chain") up to ``max_width`` branches.

    Owns (unless given) the kernel set, one stream per branch (stream 0 captures and launches), the fork and join
    events, and with the chain one ``Chain`` of ``n`` floats per branch. ``stream`` is stream 0.
    """

    def __init__(self, device, work: str = "empty", *, max_width: int = 1, n: int = 1024, ops=DEFAULT_OPS,
                 kernels=None, seed: int | None = None):
        self.device = device
        self.work = work
        names = scaling_kernel_names(work, ops)
        self.max_width = positive_int("width", max_width, MAX_WIDTH)
        self.ops = parse_ops(ops)
        try:
            if kernels is None:
                kernels = self.adopt(device.load_kernels(names=names))
            self.kernels = kernels
            self.streams = [self.adopt(device.create_stream()) for _ in range(self.max_width)]
            self.fork_event = self.adopt(device.create_event(timing=False))
            self.join_events = [self.adopt(device.create_event(timing=False)) for _ in range(self.max_width)]
            empty = kernels["empty"]
            self.empty = [Launch(empty, PackedArgs((), ()), EMPTY_CONFIG, s) for s in self.streams]
            self.chains: list[Chain] = []
            if work == "chain":
                for i, s in enumerate(self.streams):
                    self.chains.append(self.adopt(Chain(device, self.ops, n, kernels=kernels, stream=s,
                                                        seed=None if seed is None else seed + i)))
                units = [c.launches for c in self.chains]
            else:
                units = [[e] for e in self.empty]
            # what one unit costs to fire on stream i: (binding, argument tuple, name) per launch
            self._units = [tuple((l.fn, l.call_args, l.api) for l in u) for u in units]
            # what one unit is as nodes: kernel-node parameters made once (the driver copies them per node)
            params = {}
            self._unit_params = [[params.setdefault((id(l.kernel), l.args.address), kernel_node_params(l))
                                  for l in u] for u in units]
            self._empty_params = kernel_node_params(self.empty[0])
            self.per_unit = len(units[0])
        except BaseException:
            self.close()
            raise
        self._add_node = driver_fn("cuGraphAddKernelNode")

    @property
    def stream(self):
        """Stream 0: it captures, launches the graphs and runs the line, the fork and the join."""
        return self.streams[0]

    def _check_width(self, shape: Shape) -> None:
        if shape.width > self.max_width:
            raise InvalidArgumentError(f"this workload has {self.max_width} stream(s); {shape.label} needs "
                                       f"{shape.width}")

    # --- the calls, issued ------------------------------------------------------------------------------------
    def enqueue(self, shape: Shape) -> None:
        """Issue the shape's launches (and the fork/join events) on the streams: eagerly, or inside a capture."""
        self._check_width(shape)
        if shape.topology == "line":
            unit = self._units[0]
            for _ in range(shape.length):
                _fire(unit)
            return
        s0 = self.stream
        self.empty[0]()  # the fork node
        cu("cuEventRecord", self.fork_event.handle, s0.handle)
        for i in range(1, shape.width):
            cu("cuStreamWaitEvent", self.streams[i].handle, self.fork_event.handle, 0)
        for i, units in enumerate(shape.branches()):
            unit = self._units[i]
            for _ in range(units):
                _fire(unit)
        for i in range(1, shape.width):
            cu("cuEventRecord", self.join_events[i].handle, self.streams[i].handle)
            cu("cuStreamWaitEvent", s0.handle, self.join_events[i].handle, 0)
        self.empty[0]()  # the join node

    def capture(self, shape: Shape, mode: str = "thread_local") -> Graph:
        """The shape recorded by stream capture on stream 0 (the caller owns the Graph)."""
        self._check_width(shape)
        with capture(self.stream, mode) as cap:
            self.enqueue(shape)
        return cap.graph

    def build(self, shape: Shape) -> Graph:
        """The same graph built node by node (cuGraphCreate + cuGraphAddKernelNode); the caller owns it."""
        self._check_width(shape)
        graph = Graph(self.device)
        try:
            h, add = graph.handle, self._add_node

            def node(deps, params):
                r = add(h, deps, len(deps) if deps else 0, params)
                if r[0]:
                    check(r, "cuGraphAddKernelNode")
                return r[1]

            if shape.topology == "line":
                self._add_branch(node, None, self._unit_params[0], shape.length)
                return graph
            fork = node(None, self._empty_params)
            ends = [self._add_branch(node, [fork], self._unit_params[i], units)
                    for i, units in enumerate(shape.branches())]
            node(ends, self._empty_params)
            return graph
        except BaseException:
            graph.close()
            raise

    @staticmethod
    def _add_branch(node, deps, unit_params, units: int):
        prev = deps
        for _ in range(units):
            for p in unit_params:
                prev = [node(prev, p)]
        return prev[0]

    # --- checks -----------------------------------------------------------------------------------------------
    def structure(self, graph) -> tuple[int, int]:
        """(nodes, edges) of a graph as the driver reports them (cuGraphGetNodes, cuGraphGetEdges)."""
        return len(graph_nodes(graph)), len(edge_pairs(graph))

    def expected_structure(self, shape: Shape) -> tuple[int, int]:
        return shape.nodes(self.per_unit), shape.edges(self.per_unit)

    def verify(self, exe, shape: Shape) -> list[Verification]:
        """Chain work: fresh random inputs and poisoned outputs for every branch used, one launch of ``exe`` (a
        GraphExec of ``shape``) on stream 0, each branch's output compared bit for bit with NumPy. Empty work has
        nothing to compare: []."""
        if self.work != "chain":
            return []
        used = self.chains[:shape.width]
        for c in used:
            c.randomize()
            c.poison()
        exe.launch(self.stream)
        self.stream.synchronize()
        return [c.check_result(f"{shape.label} branch {i}") for i, c in enumerate(used)]
