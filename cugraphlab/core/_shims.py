"""The driver calls whose form differs between cuda-bindings 12.x and 13.x, each in one function of the 13.x form
(a room of the door, gathered by ``core._calls``; the table of differences is in ``core._compat``).

Adding a node with edge data, reading a graph's edges, a stream's capture state and setting its dependencies,
creating a context, a kernel's name, a host function pointer, a kernel node's priority attribute. Every name here is
importable from ``core._calls``, which gathers the rooms. Each call goes through the door (``door.cu``), looked up at
call time, so the tests' stand-ins there reach them.
"""
from __future__ import annotations

from . import _door as door
from ._compat import EDGE_DATA_NEEDS, _fmt, bindings_major
from .errors import MissingDriverFunctionError, UnsupportedError

__all__ = ["graph_add_node", "ctx_create", "graph_edges", "stream_capture_info", "stream_set_capture_dependencies",
           "func_name", "host_fn", "kernel_node_priority_attr"]


def graph_add_node(graph, deps, params, edge_data=None):
    """cuGraphAddNode in the 13.x form (graph, dependencies, edge data, count, params); 12.x spells that form
    cuGraphAddNode_v2 (driver 12.3+). ``edge_data``: one CUgraphEdgeData per dependency, or None for plain edges.
    Returns the new node."""
    deps = list(deps or ())
    data = list(edge_data) if edge_data else None
    if data is not None and len(data) != len(deps):
        raise ValueError(f"edge_data has {len(data)} entries for {len(deps)} dependencies")
    if bindings_major() >= 13:
        return door.cu("cuGraphAddNode", graph, deps or None, data, len(deps), params)
    if hasattr(door.driver_module(), "cuGraphAddNode_v2"):
        # 12.x's binding wants one CUgraphEdgeData per dependency (13's takes None): zeroed ones are plain edges
        plain = data if data is not None else ([door.driver_module().CUgraphEdgeData() for _ in deps] or None)
        try:
            return door.cu("cuGraphAddNode_v2", graph, deps or None, plain, len(deps), params)
        except MissingDriverFunctionError:  # a 12.0-12.2 driver: the plain form below, without edge data
            pass
    if data is not None:  # bindings or driver older than 12.3: no edge data anywhere
        raise UnsupportedError(f"graph edges with data: need a driver for CUDA {_fmt(EDGE_DATA_NEEDS)} or newer")
    return door.cu("cuGraphAddNode", graph, deps or None, len(deps), params)  # the 12.2 form


def ctx_create(flags: int, device):
    """cuCtxCreate: a new context on ``device`` with scheduling ``flags`` (CU_CTX_SCHED_*), current on this thread
    (pushed on its context stack). 13.x takes the execution-affinity/CIG parameters first (None: a plain context).
    The caller owns it: cuCtxDestroy."""
    if bindings_major() >= 13:
        return door.cu("cuCtxCreate", None, int(flags), device)
    return door.cu("cuCtxCreate", int(flags), device)


def _edges(fn_name: str, graph, with_data: bool) -> list[tuple]:
    count = door.cu(fn_name, graph, 0)[-1]
    if not count:
        return []
    r = door.cu(fn_name, graph, count)
    count = r[-1]
    data = list(r[2])[:count] if with_data else [None] * count
    return list(zip(list(r[0])[:count], list(r[1])[:count], data))


def graph_edges(graph) -> list[tuple]:
    """The edges of a graph handle as (from_node, to_node, edge_data or None), in the driver's order.

    edge_data is a CUgraphEdgeData (.type: 0 default, 1 programmatic; .from_port, .to_port); None where the driver
    keeps none (before 12.3), which means a plain full dependency.
    """
    if bindings_major() >= 13:
        return _edges("cuGraphGetEdges", graph, True)
    if hasattr(door.driver_module(), "cuGraphGetEdges_v2"):
        try:  # the plain 12.x form would answer CUDA_ERROR_LOSSY_QUERY for a graph with programmatic edges
            return _edges("cuGraphGetEdges_v2", graph, True)
        except MissingDriverFunctionError:  # a 12.0-12.2 driver (r525-r535), which has no edge data
            pass
    return _edges("cuGraphGetEdges", graph, False)


def stream_capture_info(stream, *, raw: bool = False) -> tuple:
    """What a stream's capture is: (status, capture id, graph being captured into, current dependencies)
    (cuStreamGetCaptureInfo; CUDA Driver API, "Stream Management").

    ``status`` is a CUstreamCaptureStatus; graph and dependencies are only valid while the status is ACTIVE: the
    graph is the driver's (never destroy it), the dependencies are the nodes the next captured node will depend on.
    The 12-vs-13 difference (the binding's tuple) is in the table above: both forms end in the count, and the
    dependencies are the fifth item of each, so one unpacking serves both.

    Called through the door (checked, traced, observed) by default: graphs.capture_into. ``raw=True`` is for a
    caller that watches a capture (graphs.doctor): the binding itself is called, neither traced nor observed (an
    observer asking would see its own question), nothing is raised, and the CUresult comes first:
    (CUresult, status, id, graph, dependencies), with (CUresult, None, 0, None, []) when the query failed.
    """
    if raw:
        r = door.driver_module().cuStreamGetCaptureInfo(stream)
        if r[0] != 0:
            return (r[0], None, 0, None, [])
        return (r[0], *_capture_info(r[1:]))
    return _capture_info(door.cu("cuStreamGetCaptureInfo", stream))


def _capture_info(values: tuple) -> tuple:
    """(status, id, graph, deps) from the values after the CUresult, in either form (12: status, id, graph, deps,
    n; 13: status, id, graph, deps, edgeData, n)."""
    status, cid, graph, deps, n = values[0], values[1], values[2], values[3], values[-1]
    return status, int(cid or 0), graph, list(deps or ())[:int(n or 0)]


def stream_set_capture_dependencies(stream, deps) -> None:
    """Replace a capturing stream's dependency set with ``deps`` (cuStreamUpdateCaptureDependencies with
    CU_STREAM_SET_CAPTURE_DEPENDENCIES): what is captured next on ``stream`` comes after these nodes."""
    d = door.driver_module()
    deps = list(deps)
    flags = int(d.CUstreamUpdateCaptureDependencies_flags.CU_STREAM_SET_CAPTURE_DEPENDENCIES)
    if bindings_major() >= 13:
        # one zeroed CUgraphEdgeData per dependency: plain (full) edges, and no None where a count is given
        plain = [d.CUgraphEdgeData() for _ in deps]
        door.cu("cuStreamUpdateCaptureDependencies", stream, deps, plain, len(deps), flags)
    else:
        door.cu("cuStreamUpdateCaptureDependencies", stream, deps, len(deps), flags)


def func_name(func) -> str | None:
    """A kernel's name from its CUfunction (cuFuncGetName, driver 12.3+), or None where the driver cannot say.

    Only cosmetic (node labels): callers show "?" for None rather than fail.
    """
    try:
        r = door.driver_fn("cuFuncGetName")(func)
    except (AttributeError, RuntimeError):
        return None
    if r[0] != 0 or r[1] is None:
        return None
    name = r[1]
    return name.decode(errors="replace") if isinstance(name, (bytes, bytearray)) else str(name)


def host_fn(address: int):
    """A CUhostFn for a C function pointer at ``address`` (CUDA_HOST_NODE_PARAMS.fn in 12.x and 13.x alike)."""
    return door.driver_module().CUhostFn(int(address))


def kernel_node_priority_attr():
    """The CUkernelNodeAttrID of a kernel node's priority (CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, 8 in 12.x and 13.x)."""
    d = door.driver_module()
    return d.CUkernelNodeAttrID(int(d.CU_KERNEL_NODE_ATTRIBUTE_PRIORITY))
