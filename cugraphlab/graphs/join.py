"""Empty nodes: a node that does nothing, used as a join point (and a fan-out point) between groups of nodes.

M nodes that must all finish before any of K nodes starts need M x K edges; through one empty node they need
M + K, and the graph says what it means ("everything above, then everything below")::

    join = cuGraphAddEmptyNode(graph, [memset_0, ..., memset_3], 4)   # waits for every poisoning memset
    cuGraphAddKernelNode(graph, [join], 1, params_of(add))             # the chain starts after the join

An empty node costs the device a scheduling step and no work (bench.graphs.nodes measures it beside a disabled node,
which behaves as an empty node). CUDA Driver API, "Graph Management".
"""
from __future__ import annotations

from ..core._calls import cu

__all__ = ["add_empty_node"]


def add_empty_node(graph, deps=()):
    """Add an empty node after ``deps`` (cuGraphAddEmptyNode); returns it: the join of ``deps``."""
    deps = list(deps)
    return cu("cuGraphAddEmptyNode", getattr(graph, "handle", graph), deps or None, len(deps))
