"""Programmatic edges added by hand, and their refusal inside a body the driver will not take them in.

Stream capture turns a launch with programmatic stream serialization into a kernel node whose edge from the previous
node is programmatic (graphs.pdl). The same edge can be written directly: the generic node call takes one
``CUgraphEdgeData`` per dependency (CUDA 12.3+; cuda-bindings 12 spell it cuGraphAddNode_v2, 13 cuGraphAddNode)::

    edge = CUgraphEdgeData(type=CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC,
                           from_port=CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC, to_port=0)
    p = CUgraphNodeParams(type=KERNEL, kernel={func, grid, block, shared, kernelParams, ctx})
    node = cuGraphAddNode(graph, [prev], [edge], 1, p)   # prev lets node launch once every block of prev has
                                                         # run griddepcontrol.launch_dependents (or ended)

A programmatic edge may only join two kernel nodes, and the outgoing port must be PROGRAMMATIC (or LAUNCH_ORDER);
the downstream kernel must wait (griddepcontrol.wait) before it reads what the upstream one wrote.

Whether a driver accepts such edges inside a conditional node's body is not stated by the CUDA documentation; a
driver that refuses may answer at the capture, at the node call or at cuGraphInstantiate, or keep plain edges
silently. ``refused_as`` turns any of those answers into one typed, one-line ``ProgrammaticEdgesRefused``.
CUDA Driver API, "Graph Management" (cuGraphAddNode, CUgraphEdgeData).
"""
from __future__ import annotations

from contextlib import contextmanager

from ..core._calls import driver_module, graph_add_node
from ..core.errors import CudaError, UnsupportedError
from .handles import GraphLike, as_handle
from .inspect import graph_view

__all__ = ["ProgrammaticEdgesRefused", "programmatic_edge", "kernel_params", "add_programmatic_sequence",
           "refused_as", "edge_type_names", "describe_with_edges"]


class ProgrammaticEdgesRefused(UnsupportedError):
    """The driver refused programmatic edges where they were asked for (e.g. inside a conditional body), or kept
    plain edges instead. ``where``: what was being built; ``cause``: the driver's answer in a few words."""

    def __init__(self, where: str, cause: str):
        self.where, self.cause = where, cause
        super().__init__(f"programmatic edges in {where}: refused by this driver ({cause})")


def programmatic_edge():
    """A ``CUgraphEdgeData`` for a programmatic edge: the downstream kernel may launch once every block of the
    upstream one has triggered (CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC from CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC)."""
    d = driver_module()
    e = d.CUgraphEdgeData()
    e.type = int(d.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC)
    e.from_port = int(d.CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC)
    e.to_port = 0
    return e


def kernel_params(launch, ctx=None):
    """The ``CUgraphNodeParams`` (type KERNEL) of a ``core.launch.Launch``: function, grid, block, dynamic shared
    memory and the packed ``void**`` (copied into the node by the driver); ``ctx`` for a conditional body."""
    d = driver_module()
    p = d.CUgraphNodeParams()
    p.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL
    k = p.kernel
    k.func = launch.kernel.handle
    k.gridDimX, k.gridDimY, k.gridDimZ = launch.config.grid
    k.blockDimX, k.blockDimY, k.blockDimZ = launch.config.block
    k.sharedMemBytes = launch.config.shared_bytes
    k.kernelParams = int(launch.args.address)
    k.extra = 0
    if ctx is not None:
        k.ctx = ctx
    return p


def add_programmatic_sequence(graph: GraphLike, launches, deps=(), ctx=None) -> list:
    """Add ``launches`` as kernel nodes in order: the first after ``deps`` with plain edges, each later one after
    the one before with a programmatic edge (cuGraphAddNode with edge data). The kernels must be built to wait
    (-DCGL_PDL). Returns the nodes."""
    h = as_handle(graph)
    nodes, prev, data = [], list(deps), None
    for launch in launches:
        node = graph_add_node(h, prev, kernel_params(launch, ctx), data)
        nodes.append(node)
        prev, data = [node], [programmatic_edge()]
    return nodes


def _kinds(view) -> list[str]:
    return ["programmatic" if view.edge_type(k) == 1 else "full" for k in range(len(view.edges))]


def edge_type_names(graph: GraphLike) -> list[str]:
    """"programmatic" or "full" for every edge of ``graph``, in graphs.inspect.graph_view's order."""
    return _kinds(graph_view(graph))


def describe_with_edges(graph: GraphLike) -> str:
    """Topology text with each edge's kind: ``[1] KERNEL:mul  <- 0 (programmatic)``."""
    view = graph_view(graph)
    kinds = _kinds(view)
    lines = [f"{len(view.nodes)} nodes, {len(view.edges)} edges ({kinds.count('programmatic')} programmatic)"]
    for i, node in enumerate(view.nodes):
        after = [f"{a} ({kinds[k]})" for k, (a, b) in enumerate(view.edges) if b == i]
        lines.append(f"  [{i}] {node.label}" + (f"  <- {', '.join(after)}" if after else ""))
    return "\n".join(lines)


@contextmanager
def refused_as(where: str):
    """Inside the block, a CudaError from the driver becomes ProgrammaticEdgesRefused (one line, naming the call
    and the CUresult); other errors pass unchanged."""
    try:
        yield
    except ProgrammaticEdgesRefused:
        raise
    except CudaError as e:
        raise ProgrammaticEdgesRefused(where, f"{e.call or 'a driver call'}: {e.name}") from e
