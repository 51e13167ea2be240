"""Lesson 9: the other node families. Host nodes, event nodes, child graphs and clones, empty joins, node controls.

Built by hand around the chain's kernel nodes (graphs.build), in the order the driver sees them:

    host = cuGraphAddHostNode(graph, [mul], 1, {fn: CUhostFn(address), userData})   # CPU work between mul and sub
    cuLaunchHostFunc(stream, fn, userData)              # the same inside a capture (libcuda's own: see graphs.host)
    cuGraphAddEventRecordNode(g1, [mul], 1, ev); cuGraphAddEventWaitNode(g2, [], 0, ev)   # two graphs, two streams
    cuGraphAddChildGraphNode(parent, [], 0, chain)      # the chain as one node (copied); cuGraphClone +
    cuGraphNodeFindInClone(mul, clone)                  # a variant of the chain, its mul found in the clone
    cuGraphAddEmptyNode(graph, memsets, 4)              # one join instead of 4 x K edges
    cuGraphNodeSetEnabled(exec, mul, 0)                 # mul skipped in later launches, topology unchanged
    cuGraphInstantiateWithParams(graph, {flags, hUploadStream, result_out, hErrNode_out})

A host node's function must outlive every graph and exec holding it: HostCallback owns the ctypes trampoline (or the
compiled C function), and the graph keeps it alive once the node is added, so dropping the callback is safe.

Run (with the package installed): python3 examples/09_nodes.py

Expected output on the H200:
    (PLACEHOLDER: the lead replaces this block with the output of the first GPU run; the shape expected is:)
    host node (python): 3 calls for 3 launches, bit-exact
    host node (c): 3 calls for 3 launches, bit-exact
    host: ok / event: ok / child: ok / clone: ok / join: ok / controls: ok / priority: ok  (one line each, checks)
    refused: cuGraphInstantiateWithParams: CUDA_ERROR_INVALID_VALUE ... CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED at node HOST ...
"""
import sys

import cugraphlab as cgl
from cugraphlab import (Chain, check_clone, check_events, check_host, check_join, check_nested, check_priority,
                        check_toggle, compare_bits, refused_instantiate)
from cugraphlab.graphs import Graph, HostCallback, add_host_node, add_launch_sequence, render_text, graph_view


def host_node_by_hand(chain, kind: str) -> bool:
    """add -> mul -> HOST -> sub -> relu, built node by node; the callback dropped before the graph runs."""
    cb = HostCallback.python() if kind == "python" else HostCallback.c_counter()
    graph = Graph(chain.device)
    first = add_launch_sequence(graph, chain.launches[:2])
    host = add_host_node(graph, cb, [first[-1]])
    add_launch_sequence(graph, chain.launches[2:], [host])
    cb.close()  # safe: the graph keeps the trampoline, and the exec will too
    if kind == "python":
        print(render_text(graph_view(graph), "the chain with a host node:"))
    with graph, graph.instantiate() as exe:
        chain.randomize()
        chain.poison()
        for _ in range(3):
            exe.launch(chain.stream)
        chain.stream.synchronize()
        check = compare_bits(f"host node ({kind})", chain.out.to_numpy(stream=chain.stream), chain.expected())
        calls = exe.kept[0].calls
    print(f"host node ({kind}): {calls} calls for 3 launches, {'bit-exact' if check.ok else check}")
    return check.ok and calls == 3


def main() -> int:
    ok = True
    with cgl.Device(0) as dev, Chain(dev, n=1 << 20) as chain:
        for kind in ("python", "c"):
            try:
                ok &= host_node_by_hand(chain, kind)
            except cgl.UnsupportedError as e:  # no C compiler: one line
                print(f"host node ({kind}): skipped: {e}")
        for check in (check_host, check_events, check_nested, check_clone, check_join, check_toggle,
                      check_priority):
            result = check(chain)
            print(result)
            ok &= result.ok
        refused = refused_instantiate(chain)
        print(f"refused: {refused}")
        ok &= refused is not None
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
