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

    ``child`` stays the caller's; a Graph parent also keeps what ``child`` keeps alive.

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph the node is added to.
    child : Graph or CUgraph
        The graph copied into the node.
    deps : sequence of CUgraphNode, optional
        The nodes it depends on (none: a root node).

    Returns
    -------
    CUgraphNode
        The new node.

    Raises
    ------
    CudaError
        cuGraphAddChildGraphNode failed.

    See Also
    --------
    cuGraphAddChildGraphNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1gde52afbcf91a8c79d4d7efbe0e3b6844
    """
    deps = list(deps)
    node = cu("cuGraphAddChildGraphNode", as_handle(graph), deps or None, len(deps), as_handle(child))
    keep = getattr(graph, "keep_alive", None)
    if keep is not None:
        for obj in getattr(child, "kept", ()):
            keep(obj)
    return node


def child_graph_of(node):
    """The graph embedded in a child graph node (cuGraphChildGraphNodeGetGraph): a handle the node owns.

    Parameters
    ----------
    node : CUgraphNode
        A child graph node.

    Returns
    -------
    CUgraph
        Never destroy it: the node does.

    Raises
    ------
    CudaError
        cuGraphChildGraphNodeGetGraph failed (not a child graph node, for one).

    See Also
    --------
    cuGraphChildGraphNodeGetGraph : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1gbe9fc9267316b3778ef0db507917b4fd
    """
    return cu("cuGraphChildGraphNodeGetGraph", node)


def clone_graph(graph) -> Graph:
    """A copy of ``graph`` (cuGraphClone) as a new Graph owned by the caller, keeping what the original keeps.

    Parameters
    ----------
    graph : Graph
        The graph to copy (open).

    Returns
    -------
    Graph
        Owned by the caller.

    Raises
    ------
    CugraphlabError
        ``graph`` is closed.
    CudaError
        cuGraphClone failed.

    See Also
    --------
    cuGraphClone : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g3603974654e463f2231c71d9b9d1517e
    """
    graph.require_open()
    clone = Graph(graph.device, cu("cuGraphClone", graph.handle))
    for obj in graph.kept:
        clone.keep_alive(obj)
    return clone


def find_in_clone(node, clone):
    """The node of ``clone`` that was ``node`` in the graph it was cloned from (cuGraphNodeFindInClone).

    Parameters
    ----------
    node : CUgraphNode
        A node of the original graph.
    clone : Graph or CUgraph
        A clone of that graph.

    Returns
    -------
    CUgraphNode
        Its counterpart in ``clone``.

    Raises
    ------
    CudaError
        cuGraphNodeFindInClone failed (``clone`` is no clone of ``node``'s graph, for one).

    See Also
    --------
    cuGraphNodeFindInClone : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1gf21f6c968e346f028737c1118bfd41c2
    """
    return cu("cuGraphNodeFindInClone", node, as_handle(clone))
