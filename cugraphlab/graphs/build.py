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
    pointer itself. ``ctx``: the context the node runs in (required for nodes of a conditional body).
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
    """Add ``launch`` as a kernel node after ``deps`` (cuGraphAddKernelNode); returns the node."""
    deps = list(deps)
    return cu("cuGraphAddKernelNode", as_handle(graph), deps or None, len(deps), kernel_node_params(launch, ctx))


def add_launch_sequence(graph: GraphLike, launches, deps=(), ctx=None) -> list:
    """Add ``launches`` as kernel nodes, each after the one before (the first after ``deps``); returns the nodes."""
    nodes, prev = [], list(deps)
    for launch in launches:
        node = add_kernel_node(graph, launch, prev, ctx)
        nodes.append(node)
        prev = [node]
    return nodes


def add_memset_node(graph: GraphLike, array, bits: int = POISON_BITS, deps=(), ctx=None):
    """Add a node setting every 4-byte element of ``array`` (DeviceArray) to the 32-bit pattern ``bits``
    (cuGraphAddMemsetNode); ``ctx`` defaults to the array's device context."""
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
    """Add a device-to-device copy node of all of ``src`` into ``dst`` (DeviceArrays of one size;
    cuGraphAddMemcpyNode with a 1-D CUDA_MEMCPY3D)."""
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
