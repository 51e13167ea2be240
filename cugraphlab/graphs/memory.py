"""Graph memory nodes: memory that a graph allocates and frees itself, in GPU order.

Built node by node (CUDA Driver API, "Graph Management"):

    p = CUDA_MEM_ALLOC_NODE_PARAMS()
    p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED        # the only type an alloc node takes
    p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE      # device memory of ...
    p.poolProps.location.id = ordinal                            # ... this device
    p.bytesize = nbytes
    a = cuGraphAddMemAllocNode(graph, deps, len(deps), p)        # p.dptr (out): the address, fixed from now on
    k = cuGraphAddKernelNode(graph, [a], 1, params using p.dptr) # users come after the alloc node ...
    f = cuGraphAddMemFreeNode(graph, [k], 1, p.dptr)             # ... and before the free node

or captured: between cuStreamBeginCapture and cuStreamEndCapture, ``cuMemAllocAsync(nbytes, stream)`` adds an alloc
node (it returns the address at once, so the launches captured after it can use it) and ``cuMemFreeAsync(dptr,
stream)`` adds a free node. Then::

    exe = cuGraphInstantiate(graph, flags)     # 0, or CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH
    cuGraphLaunch(exe, stream)                 # the first launch (or cuGraphUpload) maps physical memory
    cuDeviceGetGraphMemAttribute(dev, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT)      # and _USED_MEM_HIGH,
                                               # _RESERVED_MEM_CURRENT, _RESERVED_MEM_HIGH: the footprint
    cuDeviceSetGraphMemAttribute(dev, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, cuuint64_t(0))   # reset a high-water mark
    cuGraphExecDestroy(exe)                    # its memory goes back to the graph pool, still mapped
    cuDeviceGraphMemTrim(dev)                  # unmap and hand back to the OS what no live allocation or
                                               # scheduled/running graph holds

What the driver does, and refuses (CUDA Programming Guide, "Graph Memory Nodes"; driver API reference):

* **Addresses** are given when the alloc node is made and stay fixed for the node's life. An alloc node ordered after
  the free node of another allocation may get that allocation's virtual address: address reuse inside one graph.
* **Physical memory** is mapped at upload or at the first launch and kept for the launches after, so the first launch
  costs more. Graphs launched into one stream never run at once, so the driver may back their allocations with the
  same physical pages: their footprint (RESERVED) is about one graph's, not the sum. The pool grows in large
  steps (on the H200 the chain's 12 MiB of intermediates at 2^20 floats showed 32 MiB used and reserved).
* **The pool keeps its memory.** Destroying an exec (or its graph) returns its memory to the graph pool, not to the
  OS: the Programming Guide ("Graph Memory Nodes", "Physical Memory Footprint") says physical memory is not
  returned to the OS when a graph with memory nodes is destroyed, even when its allocations are free, until
  ``cuDeviceGraphMemTrim``, which unmaps and releases what is not in active use (unfreed allocations and graphs
  scheduled or running are in use and stay). On the H200 (driver 580.159) the pages also stay mapped, so
  USED_MEM_CURRENT ("memory currently associated with graphs") reads the same after cuGraphExecDestroy as before
  it, and so does RESERVED_MEM_CURRENT ("allocated for use by the graphs asynchronous allocator"); both drop to
  the baseline only at the trim, and cuMemGetInfo's free memory comes back then. A trim also unmaps the memory of
  idle live graphs, whose next launch maps it again (a remap: the first-launch cost once more).
* **Unfreed allocations**: an allocation the graph does not free outlives the launch; stream work after it may use
  it. It must be freed (``cuMemFreeAsync``, ``cuMemFree``, or a free node in another graph) before the same exec
  launches again, or that launch fails with CUDA_ERROR_INVALID_VALUE (``UnfreedAllocationError`` here). An exec
  instantiated with AUTO_FREE_ON_LAUNCH frees them itself at the start of its next launch. Destroying the graph or
  the exec frees no live allocation: it stays live until freed. ``MemoryGraphExec`` therefore frees, at close,
  what its launches left (after a context synchronize), so nothing leaks; that memory then sits in the pool until
  ``trim_graph_mem`` (above).
* **One executable at a time**: a second ``cuGraphInstantiate`` of a graph with memory nodes, while the first exec
  lives, is refused (``SecondExecError`` here). Such a graph cannot be cloned (``cuGraphClone``) and so cannot
  become a child graph through ``cuGraphAddChildGraphNode`` (which clones); only ``cuGraphAddNode`` with
  ``CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE`` can move it into a parent. Its nodes and edges cannot be removed, and
  ``cuGraphNodeSetParams`` cannot change an alloc or free node. AUTO_FREE_ON_LAUNCH cannot be combined with
  DEVICE_LAUNCH.
* ``cuGraphExecUpdate`` lists no rule of its own for memory nodes, but the graph it copies parameters from must have
  the same topology, and its alloc nodes would have other addresses than those the exec uses: update kernel
  parameters of a memory-node graph only with values that do not depend on its allocations (or instantiate again).

No cuda-bindings 12-vs-13 difference: these calls, CUDA_MEM_ALLOC_NODE_PARAMS (poolProps.allocType,
poolProps.location.type/id, bytesize, dptr), CUgraphMem_attribute and the instantiate flag have the same names and
forms in 12.x and 13.x (cuDeviceSetGraphMemAttribute takes a ``cuuint64_t`` in both).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core._calls import cu, driver_fn, driver_module
from ..core.errors import CudaError, InvalidArgumentError, UnsupportedError, check, positive_int
from .exec import Graph, GraphExec
from .handles import as_handle
from .inspect import dependency_order, edge_pairs, graph_nodes, node_kind

__all__ = ["Allocation", "MemoryGraph", "MemoryGraphExec", "GraphMemFootprint", "GraphMemoryError",
           "UnfreedAllocationError", "SecondExecError", "require_graph_memory", "alloc_node_params",
           "add_alloc_node", "add_free_node", "alloc_node_info", "free_node_address", "alloc_async", "free_async",
           "auto_free_flag", "graph_mem_footprint", "reset_graph_mem_high", "trim_graph_mem", "FOOTPRINT_FIELDS"]

#: The four footprint attributes, by the short name used in records (CU_GRAPH_MEM_ATTR_<NAME>).
FOOTPRINT_FIELDS = {"used_current": "USED_MEM_CURRENT", "used_high": "USED_MEM_HIGH",
                    "reserved_current": "RESERVED_MEM_CURRENT", "reserved_high": "RESERVED_MEM_HIGH"}


# --- errors -------------------------------------------------------------------------------------------------------
class GraphMemoryError(CudaError):
    """The driver refused a launch or an instantiate because of a rule of graph memory nodes."""

    @classmethod
    def from_status(cls, status, call: str, hint: str) -> "GraphMemoryError":
        name = getattr(status, "name", None) or f"CUresult {int(status)}"
        try:
            err, text = driver_module().cuGetErrorString(status)
            desc = text.decode() if err == 0 and text else name
        except Exception:  # the description is a nicety
            desc = name
        return cls(int(status), name, desc, call, hint)


class UnfreedAllocationError(GraphMemoryError):
    """cuGraphLaunch answered CUDA_ERROR_INVALID_VALUE: the exec's allocations from its last launch are still live."""


class SecondExecError(GraphMemoryError):
    """cuGraphInstantiate refused: a graph with memory nodes may have only one executable graph at a time."""


UNFREED_HINT = ("this graph leaves allocations unfreed and its last launch's are still live: free them first "
                "(MemoryGraphExec.free_outstanding(stream), i.e. cuMemFreeAsync), or instantiate with "
                "auto_free=True (CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) so each launch frees the last "
                "one's")
SECOND_EXEC_HINT = ("a graph with memory nodes can have only one executable graph at a time: close the first "
                    "MemoryGraphExec (cuGraphExecDestroy) before instantiating again")


# --- gates and constants ------------------------------------------------------------------------------------------
def require_graph_memory(device) -> None:
    """UnsupportedError unless ``device`` supports stream-ordered memory pools, which graph memory nodes need
    (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED), and the bindings have the calls."""
    d = driver_module()
    missing = [n for n in ("cuGraphAddMemAllocNode", "cuGraphAddMemFreeNode", "cuDeviceGetGraphMemAttribute",
                           "CUgraphMem_attribute") if not hasattr(d, n)]
    if missing:
        raise UnsupportedError(f"graph memory nodes: cuda-bindings lacks {', '.join(missing)}")
    if not device.attribute("MEMORY_POOLS_SUPPORTED"):
        raise UnsupportedError(f"graph memory nodes: {device.name} does not support memory pools "
                               "(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED is 0)")


def auto_free_flag() -> int:
    """CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH as an int."""
    return int(driver_module().CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)


# --- nodes --------------------------------------------------------------------------------------------------------
def alloc_node_params(device, nbytes: int):
    """A CUDA_MEM_ALLOC_NODE_PARAMS for ``nbytes`` of pinned device memory on ``device`` (a Device or an ordinal):
    poolProps.allocType PINNED, poolProps.location DEVICE ``ordinal``, no peer access descriptors."""
    d = driver_module()
    p = d.CUDA_MEM_ALLOC_NODE_PARAMS()
    p.poolProps.allocType = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    p.poolProps.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    p.poolProps.location.id = int(getattr(device, "ordinal", device))
    p.bytesize = positive_int("allocation bytes", nbytes)
    return p


def add_alloc_node(graph, device, nbytes: int, deps=()):
    """Add an alloc node of ``nbytes`` on ``device`` after ``deps`` (cuGraphAddMemAllocNode); returns the node,
    like every other ``add_*`` function.

    The driver chooses the allocation's address when it makes the node: ``alloc_node_info(node)`` reads it back
    (with the size). Nodes that use the memory must come after this node and before its free node.
    """
    return _add_alloc(graph, device, nbytes, deps)[0]


def _add_alloc(graph, device, nbytes: int, deps) -> tuple:
    """(node, dptr): the address the driver wrote into the params as it made the node (no second call)."""
    p = alloc_node_params(device, nbytes)
    deps = list(deps)
    node = cu("cuGraphAddMemAllocNode", as_handle(graph), deps or None, len(deps), p)
    return node, int(p.dptr)


def add_free_node(graph, dptr: int, deps=()):
    """Add a free node of the allocation at ``dptr`` after ``deps`` (cuGraphAddMemFreeNode); returns the node.

    CUDA_ERROR_INVALID_VALUE for an address no alloc node returned, or one this graph frees already.
    """
    deps = list(deps)
    return cu("cuGraphAddMemFreeNode", as_handle(graph), deps or None, len(deps), driver_module().CUdeviceptr(dptr))


def alloc_node_info(node) -> tuple[int, int]:
    """(dptr, bytesize) of an alloc node (cuGraphMemAllocNodeGetParams)."""
    p = cu("cuGraphMemAllocNodeGetParams", node)
    return int(p.dptr), int(p.bytesize)


def free_node_address(node) -> int:
    """The address a free node frees (cuGraphMemFreeNodeGetParams)."""
    return int(cu("cuGraphMemFreeNodeGetParams", node))


def alloc_async(stream, nbytes: int) -> int:
    """cuMemAllocAsync of ``nbytes`` on ``stream``: inside a stream capture, an alloc node of the captured graph
    (the address is valid for the work captured after it). Returns the address."""
    return int(cu("cuMemAllocAsync", positive_int("allocation bytes", nbytes), stream.handle))


def free_async(stream, dptr: int) -> None:
    """cuMemFreeAsync of ``dptr`` on ``stream``: inside a stream capture, a free node (``dptr`` must then be a graph
    allocation)."""
    cu("cuMemFreeAsync", driver_module().CUdeviceptr(dptr), stream.handle)


# --- the footprint ------------------------------------------------------------------------------------------------
def _mem_attr(short: str):
    return getattr(driver_module().CUgraphMem_attribute, "CU_GRAPH_MEM_ATTR_" + short)


@dataclass(frozen=True)
class GraphMemFootprint:
    """The device's graph-memory footprint in bytes (cuDeviceGetGraphMemAttribute).

    used: memory currently associated with graphs (CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT; the Programming Guide:
    physical memory mapped by at least one graph); reserved: memory allocated for use by the graphs asynchronous
    allocator (RESERVED_MEM_CURRENT). *_high: the high-water marks since the last reset (0 is the only value they
    can be set to). Neither current figure drops when an exec is destroyed: the pool keeps the pages (on the
    H200's driver 580, mapped) until cuDeviceGraphMemTrim.
    """

    used_current: int
    used_high: int
    reserved_current: int
    reserved_high: int

    @classmethod
    def read(cls, device) -> "GraphMemFootprint":
        h = device.handle
        return cls(**{k: int(cu("cuDeviceGetGraphMemAttribute", h, _mem_attr(v)))
                      for k, v in FOOTPRINT_FIELDS.items()})

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in FOOTPRINT_FIELDS}

    def __str__(self) -> str:
        mib = 1 << 20
        return (f"used {self.used_current / mib:.1f} MiB (high {self.used_high / mib:.1f}), "
                f"reserved {self.reserved_current / mib:.1f} MiB (high {self.reserved_high / mib:.1f})")


def graph_mem_footprint(device) -> GraphMemFootprint:
    """The four footprint attributes of ``device`` now (CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT/_HIGH,
    RESERVED_MEM_CURRENT/_HIGH)."""
    return GraphMemFootprint.read(device)


def reset_graph_mem_high(device) -> None:
    """Reset both high-water marks to 0 (cuDeviceSetGraphMemAttribute; 0 is the only value they take)."""
    d = driver_module()
    for short in ("USED_MEM_HIGH", "RESERVED_MEM_HIGH"):
        cu("cuDeviceSetGraphMemAttribute", device.handle, _mem_attr(short), d.cuuint64_t(0))


def trim_graph_mem(device) -> None:
    """cuDeviceGraphMemTrim (CUDA Driver API, "Graph Management"): unmap and give back to the OS the graph-pool
    memory not in active use; unfreed allocations and graphs scheduled or executing keep theirs. The way to get
    back, in cuMemGetInfo's free memory and in the footprint attributes, what destroyed execs held; idle live
    graphs map theirs again at their next launch."""
    cu("cuDeviceGraphMemTrim", device.handle)


# --- graphs and their executables ---------------------------------------------------------------------------------
@dataclass
class Allocation:
    """One alloc node of a graph: its node, address and size, and its free node in the same graph (or None)."""

    node: object
    dptr: int
    nbytes: int
    free_node: object = None

    @property
    def freed_in_graph(self) -> bool:
        return self.free_node is not None


@dataclass
class _ExecState:
    """What the executables of one MemoryGraph share with their release functions (never the objects)."""

    live: int = 0


class MemoryGraph(Graph):
    """A Graph that knows its memory nodes: explicit ``alloc``/``free``, or found in a captured graph.

    ``instantiate()`` gives a MemoryGraphExec (one at a time, as the driver demands) that knows which allocations
    outlive a launch. Use it as ``capture(stream, graph_class=MemoryGraph)`` for captured graphs.
    """

    def __init__(self, device, handle=None) -> None:
        super().__init__(device, handle)
        self.allocations: list[Allocation] = []
        self._state = _ExecState()
        if handle is not None:
            self.allocations = _scan_allocations(self.handle)

    def alloc(self, nbytes: int, deps=()) -> Allocation:
        """Add an alloc node of ``nbytes`` after ``deps``; returns the Allocation (its ``dptr`` usable at once)."""
        self.require_open()
        node, dptr = _add_alloc(self.handle, self.device, nbytes, deps)
        a = Allocation(node, dptr, int(nbytes))
        self.allocations.append(a)
        return a

    def free(self, allocation: Allocation, deps=()):
        """Add the free node of ``allocation`` (one of this graph's) after ``deps``; returns the node."""
        self.require_open()
        if allocation not in self.allocations:
            raise InvalidArgumentError("free: the allocation is not one of this graph's alloc nodes")
        if allocation.freed_in_graph:
            raise InvalidArgumentError(f"free: the allocation at {allocation.dptr:#x} is freed in this graph already")
        allocation.free_node = add_free_node(self.handle, allocation.dptr, deps)
        return allocation.free_node

    def unfreed(self) -> list[Allocation]:
        """The allocations this graph does not free: they outlive each launch."""
        return [a for a in self.allocations if not a.freed_in_graph]

    @property
    def allocated_bytes(self) -> int:
        return sum(a.nbytes for a in self.allocations)

    def instantiate(self, flags: int = 0, *, auto_free: bool = False) -> "MemoryGraphExec":
        """cuGraphInstantiate (with AUTO_FREE_ON_LAUNCH when ``auto_free``); SecondExecError while another exec of
        this graph lives."""
        self.require_open()
        if auto_free:
            flags |= auto_free_flag()
        r = driver_fn("cuGraphInstantiate")(self.handle, flags)
        if r[0] != 0:
            if self._state.live:
                raise SecondExecError.from_status(r[0], "cuGraphInstantiate", SECOND_EXEC_HINT)
            check(r, "cuGraphInstantiate")
        return MemoryGraphExec(self.device, r[1], [a.dptr for a in self.unfreed()], bool(auto_free), self._state)


def _scan_allocations(graph_handle) -> list[Allocation]:
    """The alloc nodes of a graph (e.g. a captured one) paired with their free nodes, in dependency order.

    With address reuse two allocations may share an address; each free node frees the latest unpaired allocation at
    its address that comes before it.
    """
    nodes = graph_nodes(graph_handle)
    by_id = {int(n): n for n in nodes}
    order = dependency_order(list(by_id), [(int(a), int(b)) for a, b in edge_pairs(graph_handle)])
    allocations: list[Allocation] = []
    open_at: dict[int, list[Allocation]] = {}
    for i in order:
        node = by_id[i]
        kind = node_kind(node)
        if kind == "MEM_ALLOC":
            dptr, size = alloc_node_info(node)
            a = Allocation(node, dptr, size)
            allocations.append(a)
            open_at.setdefault(dptr, []).append(a)
        elif kind == "MEM_FREE":
            pending = open_at.get(free_node_address(node))
            if pending:
                pending.pop().free_node = node
    return allocations


class MemoryGraphExec(GraphExec):
    """The executable of a MemoryGraph: launches that know which allocations they leave live.

    ``outstanding``: the addresses the last launch left allocated (the graph's unfreed allocations), until
    ``free_outstanding(stream)`` frees them (cuMemFreeAsync) or, with ``auto_free``, the next launch does. Relaunching
    without either raises UnfreedAllocationError (the driver's CUDA_ERROR_INVALID_VALUE). ``close()`` (and the
    garbage collector) synchronize the context and cuMemFree what is still outstanding, then destroy the exec; the
    memory goes back to the graph pool, which keeps it (still counted as used and reserved) until
    ``trim_graph_mem(device)``.
    ``upload(stream)`` (cuGraphUpload) maps the physical memory ahead, so the first launch does not.
    """

    def __init__(self, device, handle, unfreed, auto_free: bool, state: _ExecState):
        state.live += 1

        def forget() -> None:  # runs last: the exec is destroyed by then
            state.live -= 1

        self._own(forget)
        super().__init__(device, handle)
        self.auto_free = auto_free
        self.unfreed = tuple(int(p) for p in unfreed)
        self.outstanding: set[int] = set()
        outstanding = self.outstanding

        def free_left_allocations() -> None:  # runs first: nothing may still use them, then free each once
            if outstanding:
                cu("cuCtxSynchronize")
                while outstanding:
                    cu("cuMemFree", driver_module().CUdeviceptr(outstanding.pop()))

        self._own(free_left_allocations)

    def launch(self, stream) -> None:
        """cuGraphLaunch on ``stream``; UnfreedAllocationError when the last launch's allocations are still live
        and the exec was not instantiated with AUTO_FREE_ON_LAUNCH."""
        r = self.fn(self.handle, stream.handle)
        if r[0]:
            if self.outstanding and not self.auto_free:
                raise UnfreedAllocationError.from_status(r[0], "cuGraphLaunch", UNFREED_HINT)
            check(r, "cuGraphLaunch")
        if self.unfreed:
            self.outstanding.update(self.unfreed)

    def free_outstanding(self, stream) -> int:
        """cuMemFreeAsync each allocation the last launch left live, ordered on ``stream``; returns how many."""
        self.require_open()
        n = 0
        while self.outstanding:
            free_async(stream, self.outstanding.pop())
            n += 1
        return n
