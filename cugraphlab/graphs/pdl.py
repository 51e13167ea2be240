"""Programmatic dependent launch (PDL): the next kernel of a stream starts launching before the last one ends.

Normally a kernel on a stream begins only after its predecessor has fully finished and flushed memory; the gap costs
about half a microsecond per kernel on an H200. With the launch attribute
``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`` (``core.launch.LaunchConfig(programmatic=True)``, through
``cuLaunchKernelEx``) the driver may start the next grid as soon as every block of the current one has executed
``griddepcontrol.launch_dependents``; the next grid then blocks in ``griddepcontrol.wait`` until its predecessor has
completed and its writes are visible. Kernels compiled with ``-DCGL_PDL`` do exactly that (kernels/elementwise.cuh):
trigger first, wait before the first memory access, so results are as if fully serialized.

Captured into a graph, such launches become kernel nodes joined by programmatic edges
(``CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC``), so a replayed graph keeps the overlap. Needs sm_90 or newer.
CUDA Driver API, "Execution Control" and "Graph Management".
"""
from __future__ import annotations

from ..core._calls import driver_module
from ..core._calls import require_pdl as gate
from .handles import GraphLike
from .inspect import edge_kinds

__all__ = ["PDL_OPTIONS", "require_pdl", "programmatic_edge_count"]

PDL_OPTIONS = ("-DCGL_PDL",)


def require_pdl(device, graphs: bool = False) -> None:
    """UnsupportedError unless ``device`` is sm_90+ and the bindings have cuLaunchKernelEx (and, for graphs with
    programmatic edges, the driver keeps edge data: CUDA 12.3+). See core._calls.require_pdl."""
    gate(device.compute_capability, device.arch, graphs=graphs)


def programmatic_edge_count(graph: GraphLike) -> int:
    """How many edges of ``graph`` are programmatic (not a full completion-and-flush dependency)."""
    d = driver_module()
    programmatic = int(d.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC)
    return sum(1 for t, from_port, _ in edge_kinds(graph) if t == programmatic or from_port != 0)
