"""Building a graph by hand: the chain as kernel nodes added one by one, without stream capture.

Capture records what a stream would have run; explicit construction says the same thing directly::

    graph = cuGraphCreate(0)
    n0 = cuGraphAddKernelNode(graph, [], 0, params_of(add))     # a root: no dependencies
    n1 = cuGraphAddKernelNode(graph, [n0], 1, params_of(mul))   # runs after n0
    ...

Each node gets a ``CUDA_KERNEL_NODE_PARAMS``: the function, grid and block, dynamic shared memory and the same
``void** kernelParams`` a cuLaunchKernel call takes. The driver copies the argument values into the node when it is
added, so later changes to the packed arguments do not reach the graph (that is what graph_update is for).

``build_chain_graph(chain)`` gives the same topology as ``chain.capture()`` (``same_topology`` shows it) and the
same bits when run. With ``with_memset`` the graph first poisons every output buffer (memset nodes); with ``staged``
it first copies staged inputs into the chain's x and y (memcpy nodes), so one graph launch does the whole job.
"""
from __future__ import annotations

from .calls import cu, driver_module
from .errors import InvalidArgumentError, positive_int
from .graph import Graph, Topology
from .memory import POISON_BITS

__all__ = [
    "kernel_node_params",
    "add_kernel_node",
    "add_memset_node",
    "add_copy_node",
    "build_chain_graph",
    "build_chain_graph_nodes",
    "kernel_nodes_in_order",
    "same_topology",
]


def kernel_node_params(kernel, args, grid, block, shared_bytes: int = 0):
    """A ``CUDA_KERNEL_NODE_PARAMS`` for ``kernel`` (a Kernel or CUfunction) with packed ``args`` (PackedArgs).

    ``grid`` and ``block`` are 3-tuples (as held by ``launch.Launch``). ``kernelParams`` takes the int address of
    the packed ``void**``; the bindings pass such an int through as the pointer itself.
    """
    d = driver_module()
    p = d.CUDA_KERNEL_NODE_PARAMS()
    p.func = getattr(kernel, "handle", kernel)
    p.gridDimX, p.gridDimY, p.gridDimZ = (int(v) for v in grid)
    p.blockDimX, p.blockDimY, p.blockDimZ = (int(v) for v in block)
    p.sharedMemBytes = int(shared_bytes)
    p.kernelParams = int(args.address)
    p.extra = 0  # arguments come through kernelParams, not the "extra" buffer form
    return p


def _params_of_launch(launch):
    return kernel_node_params(launch.kernel, launch.args, launch.grid, launch.block, launch.shared_bytes)


def add_kernel_node(graph: Graph, launch, deps=()):
    """Add ``launch`` (a launch.Launch: kernel, packed args, grid, block) as a kernel node after ``deps``."""
    deps = list(deps)
    return cu("cuGraphAddKernelNode", graph.handle, deps, len(deps), _params_of_launch(launch))


def add_memset_node(graph: Graph, array, bits: int = POISON_BITS, deps=()):
    """Add a node setting every 4-byte element of ``array`` (DeviceArray) to the 32-bit pattern ``bits``."""
    d = driver_module()
    if array.dtype.itemsize != 4:
        raise InvalidArgumentError("memset nodes here fill 4-byte elements only")
    p = d.CUDA_MEMSET_NODE_PARAMS()
    p.dst = array.handle
    p.value = bits & 0xFFFFFFFF
    p.elementSize = 4
    p.width = array.n  # elements per row; one row, so pitch only has to be valid
    p.height = 1
    p.pitch = array.nbytes
    deps = list(deps)
    return cu("cuGraphAddMemsetNode", graph.handle, deps, len(deps), p, graph.device.context)


def add_copy_node(graph: Graph, dst, src, deps=()):
    """Add a device-to-device copy node of all of ``src`` into ``dst`` (DeviceArrays of the same size)."""
    if dst.nbytes != src.nbytes:
        raise InvalidArgumentError(f"copy needs equal sizes, got {src.nbytes} -> {dst.nbytes} bytes")
    d = driver_module()
    p = d.CUDA_MEMCPY3D()
    # A 1-D copy in the 3-D descriptor: one row of WidthInBytes, one slice; every other field stays 0.
    p.srcMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE
    p.srcDevice = src.handle
    p.dstMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE
    p.dstDevice = dst.handle
    p.WidthInBytes = src.nbytes
    p.Height = 1
    p.Depth = 1
    deps = list(deps)
    return cu("cuGraphAddMemcpyNode", graph.handle, deps, len(deps), p, graph.device.context)


def build_chain_graph_nodes(chain, with_memset: bool = False, staged=None,
                            unroll: int = 1) -> tuple[Graph, list]:
    """Build ``chain`` explicitly; return the Graph (owned by the caller) and its kernel nodes in chain order.

    ``with_memset``: memset nodes poison every output buffer first. ``staged``: a pair of DeviceArrays copied into
    ``chain.x`` and ``chain.y`` first (memcpy nodes). Those nodes are roots; the first kernel waits for all of them.
    ``unroll``: the chain's ops repeated that many times, one after the other (like ``chain.capture(unroll)``).
    """
    positive_int("unroll", unroll)
    graph = Graph(chain.device)
    try:
        prep = []
        if with_memset:
            prep += [add_memset_node(graph, out) for out in chain.outs]
        if staged is not None:
            sx, sy = staged
            prep += [add_copy_node(graph, chain.x, sx), add_copy_node(graph, chain.y, sy)]
        nodes, deps = [], prep
        for launch in list(chain.launches) * unroll:
            node = add_kernel_node(graph, launch, deps)
            nodes.append(node)
            deps = [node]  # each op reads the previous op's output: a plain chain of edges
        return graph, nodes
    except BaseException:
        graph.close()
        raise


def build_chain_graph(chain, with_memset: bool = False, staged=None, unroll: int = 1) -> Graph:
    """The chain as an explicitly built Graph (cuGraphCreate + cuGraphAddKernelNode); the caller owns it."""
    return build_chain_graph_nodes(chain, with_memset, staged, unroll)[0]


def kernel_nodes_in_order(graph: Graph) -> list:
    """The kernel nodes of a graph in dependency order (ties in driver order): a chain's ops, first to last."""
    nodes = graph.nodes()
    ids = [int(n) for n in nodes]
    preds = {i: set() for i in ids}
    for a, b in graph.edges():
        preds[int(b)].add(int(a))
    order, placed = [], set()
    while len(order) < len(nodes):
        ready = [k for k, i in enumerate(ids) if i not in placed and preds[i] <= placed]
        k = ready[0] if ready else next(k for k, i in enumerate(ids) if i not in placed)
        order.append(k)
        placed.add(ids[k])
    from .graph import node_kind

    return [nodes[k] for k in order if node_kind(nodes[k]) == "KERNEL"]


def same_topology(a, b) -> tuple[bool, str]:
    """Whether two graphs (Graph or Topology) have the same nodes, kinds and edges; and a short diff if not."""
    ta = a if isinstance(a, Topology) else a.topology()
    tb = b if isinstance(b, Topology) else b.topology()
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
