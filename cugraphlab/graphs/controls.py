"""Node controls on an instantiated graph, node priorities, and instantiation that says which node it refused.

Turning a node off and on again, without touching the topology (the node is given by its handle in the graph the
exec came from; a disabled node behaves as an empty node until enabled again, its parameters kept)::

    cuGraphNodeSetEnabled(exec, mul_node, 0)      # later launches skip mul
    cuGraphNodeGetEnabled(exec, mul_node)         # -> 0
    cuGraphNodeSetEnabled(exec, mul_node, 1)      # and run it again

Priorities per kernel node, used only when the exec is instantiated with USE_NODE_PRIORITY (otherwise the launch
stream's priority applies to every node)::

    least, greatest = cuCtxGetStreamPriorityRange()        # e.g. (0, -5): lower numbers run first
    cuGraphKernelNodeSetAttribute(node, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, {priority: greatest})
    cuGraphInstantiateWithParams(graph, {flags: USE_NODE_PRIORITY})

``cuGraphInstantiateWithParams`` takes a CUDA_GRAPH_INSTANTIATE_PARAMS: flags, an upload stream (with the UPLOAD
flag the exec is uploaded in the same call, which ``cuGraphInstantiate`` + ``cuGraphUpload`` do in two), and two
outputs the driver fills when it refuses: ``result_out`` (a CUgraphInstantiateResult saying why) and
``hErrNode_out`` (the node it blames). ``instantiate_with_params`` raises ``InstantiateError`` naming both, e.g. a
host node in a graph instantiated for device launch. CUDA Driver API, "Graph Management".
"""
from __future__ import annotations

from ..core._calls import cu, driver_fn, driver_module, kernel_node_priority_attr
from ..core.errors import CudaError, InvalidArgumentError, _describe
from .exec import GraphExec

__all__ = ["InstantiateError", "INSTANTIATE_FLAGS", "instantiate_flags", "instantiate_with_params", "set_enabled",
           "is_enabled", "priority_range", "set_node_priority", "node_priority", "INSTANTIATE_REASONS"]

INSTANTIATE_FLAGS = ("auto_free_on_launch", "upload", "device_launch", "use_node_priority")

INSTANTIATE_REASONS = {
    "CUDA_GRAPH_INSTANTIATE_ERROR": "instantiation failed for a reason the driver does not break down",
    "CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE": "the graph's structure is invalid (a cycle, or a node in two places)",
    "CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED": (
        "a node does something these flags do not allow (device launch allows only kernel, memcpy, memset and "
        "child graph nodes)"),
    "CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED": "the graph's nodes are in more than one context",
    "CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED": "a conditional handle no node uses",
}


class InstantiateError(CudaError):
    """cuGraphInstantiateWithParams refused a graph. ``result``: the CUgraphInstantiateResult name; ``node``: the
    node the driver blamed (a handle, or None); ``node_label``: it in words ("HOST", "KERNEL:add", ...)."""

    def __init__(self, code: int, name: str, description: str, result: str, node, node_label: str | None,
                 flags: int):
        self.result, self.node, self.node_label, self.flags = result, node, node_label, flags
        where = f"at node {node_label}" if node_label else "no node named by the driver"
        reason = INSTANTIATE_REASONS.get(result, "see CUgraphInstantiateResult")
        hint = f"{result} {where} (flags {flags:#x}): {reason}."
        super().__init__(code, name, description, "cuGraphInstantiateWithParams", hint)


def instantiate_flags(*names: str) -> int:
    """The CUgraphInstantiate_flags bits for ``names`` ("upload", "use_node_priority", ...).

    Parameters
    ----------
    *names : str
        Each one of INSTANTIATE_FLAGS.

    Returns
    -------
    int
        The flags or-ed together (0 for none).

    Raises
    ------
    InvalidArgumentError
        An unknown name (the known ones listed).
    """
    d = driver_module()
    value = 0
    for name in names:
        if name not in INSTANTIATE_FLAGS:
            raise InvalidArgumentError(f"unknown instantiate flag {name!r}; known: {', '.join(INSTANTIATE_FLAGS)}")
        value |= int(getattr(d.CUgraphInstantiate_flags, f"CUDA_GRAPH_INSTANTIATE_FLAG_{name.upper()}"))
    return value


def _label(node) -> str | None:
    if node is None or not int(node):
        return None
    try:
        from .inspect import node_label

        return node_label(node)
    except Exception:
        return f"node {int(node):#x}"


def instantiate_with_params(graph, flags: int = 0, upload_stream=None) -> GraphExec:
    """An exec of ``graph`` (a Graph) from cuGraphInstantiateWithParams; with ``upload_stream`` also uploaded there
    in the same call (the UPLOAD flag is added). The exec keeps what the graph keeps alive.

    Parameters
    ----------
    graph : Graph
        The graph to instantiate (open).
    flags : int, optional
        CUgraphInstantiate_flags (``instantiate_flags`` makes them).
    upload_stream : Stream, optional
        Upload the executable there in the same call.

    Returns
    -------
    GraphExec
        Owned by the caller.

    Raises
    ------
    CugraphlabError
        ``graph`` is closed.
    InstantiateError
        The driver refused the graph: the CUresult, the CUgraphInstantiateResult and the node it names.

    See Also
    --------
    cuGraphInstantiateWithParams : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g8d9541e4df43ee8440e794634a0d1af8
    """
    graph.require_open()
    d = driver_module()
    p = d.CUDA_GRAPH_INSTANTIATE_PARAMS()
    flags = int(flags)
    if upload_stream is not None:
        flags |= int(d.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD)
        p.hUploadStream = upload_stream.handle
    p.flags = flags
    r = driver_fn("cuGraphInstantiateWithParams")(graph.handle, p)
    status = r[0]
    result = getattr(p.result_out, "name", str(p.result_out))
    if status != 0 or result != "CUDA_GRAPH_INSTANTIATE_SUCCESS":
        name, desc = _describe(status) if status != 0 else ("CUDA_ERROR_INVALID_VALUE", "instantiation refused")
        # p.hErrNode_out is a view into p, which goes with this frame: the error keeps a copy of the handle
        node = d.CUgraphNode(int(p.hErrNode_out)) if int(p.hErrNode_out) else None
        raise InstantiateError(int(status), name, desc, result, node, _label(node), flags)
    exe = GraphExec(graph.device, r[1])
    exe.inherit(graph)
    return exe


def set_enabled(exe, node, enabled: bool) -> None:
    """Enable or disable ``node`` (of the graph ``exe`` came from) in ``exe`` for later launches
    (cuGraphNodeSetEnabled).

    Parameters
    ----------
    exe : GraphExec
        An executable of the graph ``node`` belongs to.
    node : CUgraphNode
        A node of that graph (kernel, memset, memcpy or conditional nodes can be toggled).
    enabled : bool
        False: later launches skip the node (its dependencies still hold).

    Raises
    ------
    CudaError
        cuGraphNodeSetEnabled refused (a node kind that cannot be toggled, or a node of another graph).

    See Also
    --------
    cuGraphNodeSetEnabled : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g371b20eb0c0658731e38db7e68f12c78
    """
    cu("cuGraphNodeSetEnabled", exe.handle, node, 1 if enabled else 0)


def is_enabled(exe, node) -> bool:
    """Whether ``node`` runs in ``exe`` (cuGraphNodeGetEnabled).

    Parameters
    ----------
    exe : GraphExec
        An executable of the graph ``node`` belongs to.
    node : CUgraphNode
        A node of that graph (kernel, memset, memcpy or conditional nodes can be toggled).

    Returns
    -------
    bool
        True while the node is enabled.

    Raises
    ------
    CudaError
        cuGraphNodeGetEnabled failed.

    See Also
    --------
    cuGraphNodeGetEnabled : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g428f51dceec6f6211bb9c1d710925a3d
    """
    return bool(cu("cuGraphNodeGetEnabled", exe.handle, node))


def priority_range() -> tuple[int, int]:
    """(least, greatest) priority of the current context (cuCtxGetStreamPriorityRange); greatest is the lower
    number, e.g. (0, -5).

    Returns
    -------
    tuple of int
        (least, greatest).

    Raises
    ------
    CudaError
        No current context, or the call failed.

    See Also
    --------
    cuCtxGetStreamPriorityRange : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html#group__CUDA__CTX_1g137920ab61a71be6ce67605b9f294091
    """
    least, greatest = cu("cuCtxGetStreamPriorityRange")
    return int(least), int(greatest)


def set_node_priority(node, priority: int) -> None:
    """Give kernel node ``node`` a launch priority (cuGraphKernelNodeSetAttribute, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY);
    it applies when the exec is instantiated with the use_node_priority flag.

    Parameters
    ----------
    node : CUgraphNode
        A kernel node.
    priority : int
        Within ``priority_range()`` (the driver clamps others).

    Raises
    ------
    CudaError
        cuGraphKernelNodeSetAttribute failed (not a kernel node, for one).

    See Also
    --------
    cuGraphKernelNodeSetAttribute : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1gd888774df6c1d0774bee49ec9442eefc
    """
    v = driver_module().CUkernelNodeAttrValue()
    v.priority = int(priority)
    cu("cuGraphKernelNodeSetAttribute", node, kernel_node_priority_attr(), v)


def node_priority(node) -> int:
    """A kernel node's priority attribute (cuGraphKernelNodeGetAttribute).

    Parameters
    ----------
    node : CUgraphNode
        A kernel node.

    Returns
    -------
    int
        Its priority (0 unless set).

    Raises
    ------
    CudaError
        cuGraphKernelNodeGetAttribute failed.

    See Also
    --------
    cuGraphKernelNodeGetAttribute : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g9827e34c800e2f2cb4d9a6f4e186f796
    """
    return int(cu("cuGraphKernelNodeGetAttribute", node, kernel_node_priority_attr()).priority)
