"""Conditional graph nodes: a loop (WHILE), a branch (IF, IF/ELSE) or a choice among K bodies (SWITCH), decided on
the GPU, with no trip back to the host.

A conditional node owns its body graphs and is controlled by a *handle*, a small integer condition that kernels set
with the device builtin ``cudaGraphSetConditional(handle, value)``. A WHILE node runs its body as long as the
condition is non-zero (checked when the node starts and after every body run); an IF node runs its body once when it
is non-zero, and, given two bodies, the second (ELSE) when it is zero; a SWITCH node with K bodies runs body
``value`` when ``value < K`` and none otherwise.

    handle = cuGraphConditionalHandleCreate(graph, ctx, defaultLaunchValue, flags)
    node = cuGraphAddNode(graph, deps, [edge data,] count,
                          CUgraphNodeParams{type=CONDITIONAL, conditional={handle, WHILE|IF|SWITCH, size, ctx}})
    bodies = params.conditional.phGraph_out[0:size]   # written by the driver; owned by the node, freed with the
                                                      # parent graph: never destroyed on their own

A body is filled like any graph: node by node (graphs.build) or by stream capture into it (graphs.capture_into).
WHILE and IF with one body need a driver and bindings for CUDA 12.3 or newer; IF/ELSE (size 2) and SWITCH need
CUDA 12.8 (``require_conditional_branches``). Kernels that call ``cudaGraphSetConditional`` compile with NVRTC
against ``cuda_device_runtime_api.h`` where one matching the NVRTC in use is found, else with the two declarations
the header would give (same cubin). CUDA Driver API, "Graph Management".
"""
from __future__ import annotations

from ..core._calls import cu, driver_module, graph_add_node
from ..core._calls import require_conditional as gate
from ..core._calls import require_conditional_branches as gate_branches
from ..core.cuda_headers import HEADER, cuda_include_dir
from ..core.errors import UnsupportedError
from .taken import register_body

__all__ = ["HEADER", "cuda_include_dir", "conditional_options", "require_conditional",
           "require_conditional_branches", "create_handle", "conditional_node_params", "add_conditional_node",
           "add_conditional_bodies", "add_if_else_node", "add_switch_node", "bodies_of", "CONDITIONAL_KINDS",
           "MAX_SWITCH_BODIES"]

CONDITIONAL_KINDS = ("WHILE", "IF", "SWITCH")
# Not a driver limit the documentation states; a bound that keeps a typo (size 10000) from making that many graphs.
MAX_SWITCH_BODIES = 64


def conditional_options() -> tuple[str, ...]:
    """NVRTC options for kernels/conditional.cu: the toolkit header when found (required then), else none.

    Without the header the source declares the two names itself, as the header does (same cubin, byte for byte).
    """
    inc = cuda_include_dir()
    return (f"-I{inc}", "-DCGL_REQUIRE_CUDART_HEADER") if inc else ()


def require_conditional(device=None) -> None:
    """UnsupportedError unless the bindings (and, with a device, the driver) can build WHILE/IF conditional nodes:
    CUDA 12.3 or newer (core._calls.require_conditional).

    Parameters
    ----------
    device : Device, optional
        With one, the driver is asked too; without, only the installed bindings.

    Raises
    ------
    UnsupportedError
        One line naming what is missing and the CUDA version it needs.
    """
    gate(with_driver=device is not None)


def require_conditional_branches(device=None) -> None:
    """UnsupportedError (one line) unless the bindings (and, with a device, the driver) can build IF nodes with an
    ELSE body and SWITCH nodes: CUDA 12.8 or newer (core._calls.require_conditional_branches).

    Parameters
    ----------
    device : Device, optional
        With one, the driver is asked too; without, only the installed bindings.

    Raises
    ------
    UnsupportedError
        One line naming what is missing and the CUDA version it needs.
    """
    gate_branches(with_driver=device is not None)


def create_handle(graph, ctx, default: int | None):
    """A conditional handle of graph ``graph`` (a handle); with ``default`` the condition is set to that value at
    the start of every launch (CU_GRAPH_COND_ASSIGN_DEFAULT), without it a kernel must set it first.

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph whose conditional node(s) the handle will control (the parent, not a body).
    ctx : CUcontext
        The context of the graph's device (``device.context``).
    default : int or None
        The value the condition takes at every launch; None: no default, a kernel sets it
        (``cudaGraphSetConditional``) before the node runs.

    Returns
    -------
    CUgraphConditionalHandle
        Passed to the node (``add_conditional_node``) and to the kernels that set the condition.

    Raises
    ------
    CudaError
        cuGraphConditionalHandleCreate failed (a driver older than 12.3 lacks it: see ``require_conditional``).

    See Also
    --------
    cuGraphConditionalHandleCreate : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1gece6f3b9e85d0edb8484d625fe567376
    """
    d = driver_module()
    flags = int(d.CU_GRAPH_COND_ASSIGN_DEFAULT) if default is not None else 0
    return cu("cuGraphConditionalHandleCreate", getattr(graph, "handle", graph), ctx, default or 0, flags)


def _body_count(kind: str, size: int) -> int:
    if kind not in CONDITIONAL_KINDS:
        raise ValueError(f"conditional kind must be one of {CONDITIONAL_KINDS}, got {kind!r}")
    if isinstance(size, bool) or not isinstance(size, int):
        raise ValueError(f"the number of bodies must be an int, got {size!r}")
    allowed = {"WHILE": (1, 1), "IF": (1, 2), "SWITCH": (1, MAX_SWITCH_BODIES)}[kind]
    if not allowed[0] <= size <= allowed[1]:
        raise ValueError(f"a {kind} node takes {allowed[0]} to {allowed[1]} bodies, got {size}")
    return size


def conditional_node_params(kind: str, handle, ctx, size: int = 1):
    """The ``CUgraphNodeParams`` of a conditional node: type CONDITIONAL, ``kind`` (WHILE, IF, SWITCH), the handle,
    ``size`` bodies (WHILE 1; IF 1, or 2 for IF/ELSE; SWITCH 1..MAX_SWITCH_BODIES) and the context. The driver
    writes the body graphs into ``.conditional.phGraph_out`` when the node is added (CUDA Driver API,
    "CUDA_CONDITIONAL_NODE_PARAMS").

    Parameters
    ----------
    kind : str
        "WHILE", "IF" or "SWITCH".
    handle : CUgraphConditionalHandle
        Made by ``create_handle``.
    ctx : CUcontext
        The context every node of the bodies runs in.
    size : int, optional
        The number of bodies, 1 by default.

    Returns
    -------
    CUgraphNodeParams
        For ``cuGraphAddNode`` (``core._calls.graph_add_node``); keep it until the bodies are read (``bodies_of``).

    Raises
    ------
    ValueError
        An unknown kind, or a number of bodies the kind does not take.
    """
    size = _body_count(kind, size)
    d = driver_module()
    p = d.CUgraphNodeParams()
    p.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    p.conditional.handle = handle
    p.conditional.type = getattr(d.CUgraphConditionalNodeType, f"CU_GRAPH_COND_TYPE_{kind}")
    p.conditional.size = size
    p.conditional.ctx = ctx
    return p


def bodies_of(params) -> tuple:
    """The body graph handles the driver wrote into conditional node params (phGraph_out[0:size]); each checked."""
    size = int(params.conditional.size)
    bodies = tuple(params.conditional.phGraph_out[:size])  # driver-owned array, valid while the node lives
    if len(bodies) != size or not all(int(b) for b in bodies):
        raise UnsupportedError(f"the driver made a conditional node without its {size} body graph(s)")
    return bodies


def add_conditional_bodies(graph, deps, kind: str, handle, ctx, size: int = 1) -> tuple:
    """(node, body graph handles) of a new conditional node of ``graph`` with ``size`` bodies, after ``deps``
    (cuGraphAddNode). The bodies belong to the node: the driver frees them with the parent graph, so nobody may
    destroy them (no Graph object ever wraps one).

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph (or body graph handle) the node is added to.
    deps : sequence of CUgraphNode
        The nodes it depends on (empty: a root node).
    kind : str
        "WHILE", "IF" or "SWITCH".
    handle : CUgraphConditionalHandle
        Made by ``create_handle`` on the same graph (for a body, on the parent graph).
    ctx : CUcontext
        The context every node of the bodies runs in (``device.context``).
    size : int, optional
        The number of bodies, 1 by default.

    Returns
    -------
    tuple
        (node, body graph handles), the bodies in the order the driver runs them by the condition's value.

    Raises
    ------
    ValueError
        An unknown kind, or a number of bodies the kind does not take.
    UnsupportedError
        The bindings or the driver cannot build this node (one line naming the CUDA version it needs), or the
        driver made the node without its bodies.
    CudaError
        cuGraphAddNode failed.

    See Also
    --------
    cuGraphAddNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1ge01208e62f72a53367a2af903bf17d23
    """
    p = conditional_node_params(kind, handle, ctx, size)
    node = graph_add_node(getattr(graph, "handle", graph), list(deps), p)
    bodies = bodies_of(p)
    if hasattr(graph, "_driver_took"):  # a Graph: told if a capture into a body is invalidated (graphs.taken)
        for body in bodies:
            register_body(body, graph)
    return node, bodies


def add_conditional_node(graph, deps, kind: str, handle, ctx) -> tuple:
    """(node, body graph handle) of a new WHILE or IF node (one body) of ``graph`` controlled by ``handle``.

    A WHILE body runs again as long as the condition is non-zero when it ends; an IF body runs once when it is
    non-zero. Fill the body with nodes (``graphs.build``) or a capture (``graphs.capture_into``).

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph (or body graph handle) the node is added to.
    deps : sequence of CUgraphNode
        The nodes it depends on (empty: a root node).
    kind : str
        "WHILE" or "IF".
    handle : CUgraphConditionalHandle
        Made by ``create_handle`` on the same graph (for a body, on the parent graph).
    ctx : CUcontext
        The context every node of the bodies runs in (``device.context``).

    Returns
    -------
    tuple
        (node, body graph handle); the body belongs to the node (never destroy it).

    Raises
    ------
    ValueError
        ``kind`` is not WHILE or IF.
    UnsupportedError
        The bindings or the driver cannot build this node (one line naming the CUDA version it needs), or the
        driver made the node without its bodies.
    CudaError
        cuGraphAddNode failed.

    See Also
    --------
    cuGraphAddNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1ge01208e62f72a53367a2af903bf17d23
    """
    if kind not in ("WHILE", "IF"):
        raise ValueError(f"conditional kind must be one of ('WHILE', 'IF'), got {kind!r}")
    node, bodies = add_conditional_bodies(graph, deps, kind, handle, ctx, 1)
    return node, bodies[0]


def add_if_else_node(graph, deps, handle, ctx) -> tuple:
    """(node, (if body, else body)): an IF node with two bodies; the first runs when the condition is non-zero, the
    second when it is zero (CUDA 12.8+).

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph (or body graph handle) the node is added to.
    deps : sequence of CUgraphNode
        The nodes it depends on (empty: a root node).
    handle : CUgraphConditionalHandle
        Made by ``create_handle`` on the same graph (for a body, on the parent graph).
    ctx : CUcontext
        The context every node of the bodies runs in (``device.context``).

    Returns
    -------
    tuple
        (node, (if body, else body)); the bodies belong to the node.

    Raises
    ------
    UnsupportedError
        The bindings or the driver cannot build this node (one line naming the CUDA version it needs), or the
        driver made the node without its bodies.
    CudaError
        cuGraphAddNode failed.

    See Also
    --------
    cuGraphAddNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1ge01208e62f72a53367a2af903bf17d23
    """
    return add_conditional_bodies(graph, deps, "IF", handle, ctx, 2)


def add_switch_node(graph, deps, handle, ctx, size: int) -> tuple:
    """(node, bodies): a SWITCH node with ``size`` bodies; body i runs when the condition is i, none when it is
    ``size`` or more (CUDA 12.8+).

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph (or body graph handle) the node is added to.
    deps : sequence of CUgraphNode
        The nodes it depends on (empty: a root node).
    handle : CUgraphConditionalHandle
        Made by ``create_handle`` on the same graph (for a body, on the parent graph).
    ctx : CUcontext
        The context every node of the bodies runs in (``device.context``).
    size : int
        The number of bodies, 1 to MAX_SWITCH_BODIES.

    Returns
    -------
    tuple
        (node, bodies); the bodies belong to the node.

    Raises
    ------
    ValueError
        ``size`` is not an int from 1 to MAX_SWITCH_BODIES.
    UnsupportedError
        The bindings or the driver cannot build this node (one line naming the CUDA version it needs), or the
        driver made the node without its bodies.
    CudaError
        cuGraphAddNode failed.

    See Also
    --------
    cuGraphAddNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1ge01208e62f72a53367a2af903bf17d23
    """
    return add_conditional_bodies(graph, deps, "SWITCH", handle, ctx, size)
