"""Building a graph by hand: nodes added one by one, without stream capture.

Capture records what a stream would have run; explicit construction says the same thing directly::

    graph = cuGraphCreate(0)
    n0 = cuGraphAddKernelNode(graph, [], 0, params_of(add))     # a root: no dependencies
    n1 = cuGraphAddKernelNode(graph, [n0], 1, params_of(mul))   # runs after n0
    ...

Each kernel node gets a ``CUDA_KERNEL_NODE_PARAMS``: the function, grid and block, dynamic shared memory and the same
``void** kernelParams`` a cuLaunchKernel call takes. The driver copies the argument values into the node when it is
added, so later changes to the packed arguments do not reach the graph (graphs.update is for that). Memset and memcpy
nodes poison or stage buffers inside the graph. CUDA Driver API, "Graph Management".

Every function takes a ``Graph`` or a raw graph handle (a conditional node's body graph is only a handle).
"""
from __future__ import annotations

from ..core._calls import cu, driver_module
from ..core.errors import InvalidArgumentError
from ..core.memory import POISON_BITS
from .handles import GraphLike, as_handle

__all__ = ["kernel_node_params", "add_kernel_node", "add_memset_node", "add_copy_node", "add_launch_sequence"]


def kernel_node_params(launch, ctx=None):
    """A ``CUDA_KERNEL_NODE_PARAMS`` for a ``core.launch.Launch`` (kernel, packed arguments, config).

    ``kernelParams`` takes the int address of the packed ``void**``; the bindings pass such an int through as the
    pointer itself.

    Parameters
    ----------
    launch : Launch
        The kernel, its packed arguments and its config.
    ctx : CUcontext, optional
        The context the node runs in (required for nodes of a conditional body: ``device.context``).

    Returns
    -------
    CUDA_KERNEL_NODE_PARAMS
        For cuGraphAddKernelNode, cuGraphExecKernelNodeSetParams and the like; the launch's packed arguments must
        outlive the node's use of them.

    Raises
    ------
    AttributeError
        ``launch`` has no kernel, args or config.
    """
    d = driver_module()
    p = d.CUDA_KERNEL_NODE_PARAMS()
    p.func = launch.kernel.handle
    p.gridDimX, p.gridDimY, p.gridDimZ = launch.config.grid
    p.blockDimX, p.blockDimY, p.blockDimZ = launch.config.block
    p.sharedMemBytes = launch.config.shared_bytes
    p.kernelParams = int(launch.args.address)
    p.extra = 0  # arguments come through kernelParams, not the "extra" buffer form
    if ctx is not None:
        p.ctx = ctx
    return p


def add_kernel_node(graph: GraphLike, launch, deps=(), ctx=None):
    """Add ``launch`` as a kernel node after ``deps`` (cuGraphAddKernelNode).

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph (or a conditional body's handle) the node is added to.
    launch : Launch
        The kernel, its packed arguments (copied into the node) and its config.
    deps : sequence of CUgraphNode, optional
        The nodes it depends on (none: a root node).
    ctx : CUcontext, optional
        The context the node runs in (required for nodes of a conditional body: ``device.context``).

    Returns
    -------
    CUgraphNode
        The new node.

    Raises
    ------
    CudaError
        cuGraphAddKernelNode failed.

    See Also
    --------
    cuGraphAddKernelNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g50d871e3bd06c1b835e52f2966ef366b
    """
    deps = list(deps)
    return cu("cuGraphAddKernelNode", as_handle(graph), deps or None, len(deps), kernel_node_params(launch, ctx))


def add_launch_sequence(graph: GraphLike, launches, deps=(), ctx=None) -> list:
    """Add ``launches`` as kernel nodes, each after the one before (the first after ``deps``).

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph (or a conditional body's handle) the node is added to.
    launches : sequence of Launch
        In the order they run.
    deps : sequence of CUgraphNode, optional
        The nodes it depends on (none: a root node).
    ctx : CUcontext, optional
        The context the node runs in (required for nodes of a conditional body: ``device.context``).

    Returns
    -------
    list of CUgraphNode
        The new nodes, in order.

    Raises
    ------
    CudaError
        cuGraphAddKernelNode failed (the nodes added before stay in the graph).
    """
    nodes, prev = [], list(deps)
    for launch in launches:
        node = add_kernel_node(graph, launch, prev, ctx)
        nodes.append(node)
        prev = [node]
    return nodes


def add_memset_node(graph: GraphLike, array, bits: int = POISON_BITS, deps=(), ctx=None):
    """Add a node setting every 4-byte element of ``array`` to the 32-bit pattern ``bits`` (cuGraphAddMemsetNode).

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph (or a conditional body's handle) the node is added to.
    array : DeviceArray
        Of a 4-byte dtype.
    bits : int, optional
        The pattern (low 32 bits), ``POISON_BITS`` by default.
    deps : sequence of CUgraphNode, optional
        The nodes it depends on (none: a root node).
    ctx : CUcontext, optional
        The context the node runs in; default: the array's device's.

    Returns
    -------
    CUgraphNode
        The new node.

    Raises
    ------
    InvalidArgumentError
        ``array``'s elements are not 4 bytes wide.
    CudaError
        cuGraphAddMemsetNode failed.

    See Also
    --------
    cuGraphAddMemsetNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g89dc8fc3743392777c0daa2c4aca40d3
    """
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
    return cu("cuGraphAddMemsetNode", as_handle(graph), deps or None, len(deps), p, ctx or array.device.context)


def add_copy_node(graph: GraphLike, dst, src, deps=(), ctx=None):
    """Add a device-to-device copy node of all of ``src`` into ``dst`` (cuGraphAddMemcpyNode with a 1-D
    CUDA_MEMCPY3D).

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph (or a conditional body's handle) the node is added to.
    dst : DeviceArray
        Written.
    src : DeviceArray
        Read; as many bytes as ``dst``.
    deps : sequence of CUgraphNode, optional
        The nodes it depends on (none: a root node).
    ctx : CUcontext, optional
        The context the node runs in; default: ``dst``'s device's.

    Returns
    -------
    CUgraphNode
        The new node.

    Raises
    ------
    InvalidArgumentError
        ``src`` and ``dst`` differ in size.
    CudaError
        cuGraphAddMemcpyNode failed.

    See Also
    --------
    cuGraphAddMemcpyNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g674da6ab54a677f13e0e0e8206ff5073
    """
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
    return cu("cuGraphAddMemcpyNode", as_handle(graph), deps or None, len(deps), p, ctx or dst.device.context)
