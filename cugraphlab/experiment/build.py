"""The chain built explicitly, node by node (graphs.build), instead of captured.

``build_chain_graph(chain)`` gives the same topology as ``chain.capture()`` (``graphs.same_topology`` shows it) and
the same bits when run. With ``with_memset`` the graph first poisons every output buffer (memset nodes); with
``staged`` it first copies staged inputs into the chain's x and y (memcpy nodes), so one graph launch does the whole
job.
"""
from __future__ import annotations

from ..core.errors import positive_int
from ..graphs.build import add_copy_node, add_launch_sequence, add_memset_node
from ..graphs.exec import Graph

__all__ = ["build_chain_graph", "build_chain_graph_nodes"]


def build_chain_graph_nodes(chain, with_memset: bool = False, staged=None, unroll: int = 1) -> tuple[Graph, list]:
    """Build ``chain`` explicitly; return the Graph (owned by the caller) and its kernel nodes in chain order.

    ``with_memset``: memset nodes poison every output buffer first. ``staged``: a pair of DeviceArrays copied into
    ``chain.x`` and ``chain.y`` first (memcpy nodes). Those nodes are roots; the first kernel waits for all of them.
    ``unroll``: the chain's ops repeated that many times, one after the other (like ``chain.capture(unroll)``).
    Driver calls: cuGraphCreate, cuGraphAddMemsetNode, cuGraphAddMemcpyNode, cuGraphAddKernelNode.
    """
    positive_int("unroll", unroll)
    graph = Graph(chain.device)
    try:
        prep = []
        if with_memset:
            prep += [add_memset_node(graph, out) for out in chain.outs]
        if staged is not None:
            sx, sy = staged
            prep += [add_copy_node(graph, chain.x, sx), add_copy_node(graph, chain.y, sy)]
        # each op reads the previous op's output: a plain chain of edges
        nodes = add_launch_sequence(graph, list(chain.launches) * unroll, prep)
        return graph, nodes
    except BaseException:
        graph.close()
        raise


def build_chain_graph(chain, with_memset: bool = False, staged=None, unroll: int = 1) -> Graph:
    """The chain as an explicitly built Graph (cuGraphCreate + cuGraphAddKernelNode); the caller owns it."""
    return build_chain_graph_nodes(chain, with_memset, staged, unroll)[0]
