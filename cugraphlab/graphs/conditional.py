"""Conditional graph nodes: a loop (WHILE) or a branch (IF) decided on the GPU, with no trip back to the host.

A conditional node owns a body graph and is controlled by a *handle*, a small integer condition that kernels set with
the device builtin ``cudaGraphSetConditional(handle, value)``. A WHILE node runs its body as long as the condition is
non-zero (checked when the node starts and after every body run); an IF node runs its body once when it is non-zero.

    handle = cuGraphConditionalHandleCreate(graph, ctx, defaultLaunchValue, flags)
    node = cuGraphAddNode(graph, deps, [edge data,] count, CUgraphNodeParams{type=CONDITIONAL, WHILE|IF, handle})
    body = params.conditional.phGraph_out[0]      # the body graph, owned by the node: never destroyed on its own

Needs a driver and bindings for CUDA 12.3 or newer. Kernels that call ``cudaGraphSetConditional`` compile with NVRTC
against ``cuda_device_runtime_api.h`` where one matching the NVRTC in use is found, else with the two declarations
the header would give (same cubin). CUDA Driver API, "Graph Management".
"""
from __future__ import annotations

from ..core._calls import cu, driver_module, graph_add_node
from ..core._calls import require_conditional as gate
from ..core.cuda_headers import HEADER, cuda_include_dir
from ..core.errors import UnsupportedError

__all__ = ["HEADER", "cuda_include_dir", "conditional_options", "require_conditional", "create_handle",
           "add_conditional_node", "CONDITIONAL_KINDS"]

CONDITIONAL_KINDS = ("WHILE", "IF")


def conditional_options() -> tuple[str, ...]:
    """NVRTC options for kernels/conditional.cu: the toolkit header when found (required then), else none.

    Without the header the source declares the two names itself, as the header does (same cubin, byte for byte).
    """
    inc = cuda_include_dir()
    return (f"-I{inc}", "-DCGL_REQUIRE_CUDART_HEADER") if inc else ()


def require_conditional(device=None) -> None:
    """UnsupportedError unless the bindings (and, with a device, the driver) can build WHILE/IF conditional nodes:
    CUDA 12.3 or newer (core._calls.require_conditional)."""
    gate(with_driver=device is not None)


def create_handle(graph, ctx, default: int | None):
    """A conditional handle of graph ``graph`` (a handle); with ``default`` the condition is set to that value at
    the start of every launch (CU_GRAPH_COND_ASSIGN_DEFAULT), without it a kernel must set it first."""
    d = driver_module()
    flags = int(d.CU_GRAPH_COND_ASSIGN_DEFAULT) if default is not None else 0
    return cu("cuGraphConditionalHandleCreate", getattr(graph, "handle", graph), ctx, default or 0, flags)


def add_conditional_node(graph, deps, kind: str, handle, ctx) -> tuple:
    """(node, body graph handle) of a new WHILE or IF node of ``graph`` controlled by ``handle``, after ``deps``."""
    if kind not in CONDITIONAL_KINDS:
        raise ValueError(f"conditional kind must be one of {CONDITIONAL_KINDS}, got {kind!r}")
    d = driver_module()
    p = d.CUgraphNodeParams()
    p.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    p.conditional.handle = handle
    p.conditional.type = getattr(d.CUgraphConditionalNodeType, f"CU_GRAPH_COND_TYPE_{kind}")
    p.conditional.size = 1
    p.conditional.ctx = ctx
    node = graph_add_node(getattr(graph, "handle", graph), list(deps), p)
    body = p.conditional.phGraph_out[0]  # written by the driver into our params; owned by the node
    if not int(body):
        raise UnsupportedError("the driver made a conditional node without a body graph")
    return node, body
