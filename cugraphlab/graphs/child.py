"""Child graph nodes, and cloning: a whole graph as one node of another, and copies of graphs.

A child graph node embeds a graph: the driver *clones* the child when the node is added, so the graph passed in
stays the caller's (to reuse or destroy at once) and the embedded copy belongs to the node::

    node = cuGraphAddChildGraphNode(parent, deps, n, chain_graph)   # chain_graph is copied into the node
    inner = cuGraphChildGraphNodeGetGraph(node)                      # the node's own copy: never destroy it
    exe = cuGraphInstantiate(parent, 0)                              # the nesting is flattened here

``cuGraphClone`` copies a graph (child graphs recursively) into a new graph owned by the caller; every node of the
original has a twin in the clone, found with ``cuGraphNodeFindInClone(original_node, clone)``. Changing the twin
(``cuGraphKernelNodeSetParams``) leaves the original alone: one graph as a template, variants as clones.

A child graph may not contain memory alloc/free nodes or conditional nodes; cloning refuses graphs with those too.
What a graph keeps alive (host-node trampolines, events) is kept by the parent or the clone as well. CUDA Driver
API, "Graph Management".
"""
from __future__ import annotations

from ..core._calls import cu
from .exec import Graph
from .handles import as_handle

__all__ = ["add_child_graph_node", "child_graph_of", "clone_graph", "find_in_clone"]


def add_child_graph_node(graph, child, deps=()):
    """Add a node running a copy of ``child`` (Graph or handle) after ``deps`` (cuGraphAddChildGraphNode).

    Returns the node. ``child`` stays the caller's; a Graph parent also keeps what ``child`` keeps alive.
    """
    deps = list(deps)
    node = cu("cuGraphAddChildGraphNode", as_handle(graph), deps or None, len(deps), as_handle(child))
    keep = getattr(graph, "keep_alive", None)
    if keep is not None:
        for obj in getattr(child, "kept", ()):
            keep(obj)
    return node


def child_graph_of(node):
    """The graph embedded in a child graph node (cuGraphChildGraphNodeGetGraph): a handle the node owns."""
    return cu("cuGraphChildGraphNodeGetGraph", node)


def clone_graph(graph) -> Graph:
    """A copy of ``graph`` (cuGraphClone) as a new Graph owned by the caller, keeping what the original keeps."""
    graph.require_open()
    clone = Graph(graph.device, cu("cuGraphClone", graph.handle))
    for obj in graph.kept:
        clone.keep_alive(obj)
    return clone


def find_in_clone(node, clone):
    """The node of ``clone`` that was ``node`` in the graph it was cloned from (cuGraphNodeFindInClone)."""
    return cu("cuGraphNodeFindInClone", node, as_handle(clone))
