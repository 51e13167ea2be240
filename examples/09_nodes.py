"""Example 9: the other node families. Host nodes, event nodes, child graphs and clones, empty joins, node controls.
The course teaches it in notebooks/13_other_nodes.ipynb (the course's own order: docs/course/course.md).

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

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    the chain with a host node:
    5 nodes, 4 edges
      [0] KERNEL:add   grid 1024, block 256
      [1] KERNEL:mul   grid 1024, block 256  after [0]
      [2] HOST         host fn 0x7fc64d838010  after [1]
      [3] KERNEL:sub   grid 1024, block 256  after [2]
      [4] KERNEL:relu  grid 1024, block 256  after [3]
    edges: [0] -> [1]  [1] -> [2]  [2] -> [3]  [3] -> [4]
    layers (nodes on one line may run at the same time):
       0 | [0] add
       1 | [1] mul
       2 | [2] host
       3 | [3] sub
       4 | [4] relu
    host node (python): 3 calls for 3 launches, bit-exact
    host node (c): 3 calls for 3 launches, bit-exact
    host: ok
      host python explicit: bit-exact (1,048,576 elements)
      host python capture: bit-exact (1,048,576 elements)
      host c explicit: bit-exact (1,048,576 elements)
      host c capture: bit-exact (1,048,576 elements)
      python explicit calls: 3 of 3
      python capture calls: 3 of 3
      c explicit calls: 3 of 3
      c capture calls: 3 of 3
    event: ok
      event pair #1: bit-exact (1,048,576 elements)
      event pair #2: bit-exact (1,048,576 elements)
      timed graph: bit-exact (1,048,576 elements)
      segments us: 0:add 4.29, 1:mul 5.02, 2:sub 4.35, 3:relu 4.16
    child: ok
      child flat: bit-exact (1,048,576 elements)
      child nested: bit-exact (1,048,576 elements)
      child node kind: GRAPH
      kernels in the embedded graph: 4
    clone: ok
      clone (mul 3): bit-exact (1,048,576 elements)
      original (mul 2): bit-exact (1,048,576 elements)
      twin differs from the original node: True
    join: ok
      empty join: bit-exact (1,048,576 elements)
      edges into the join: 4
    controls: ok
      toggle enabled: bit-exact (1,048,576 elements)
      toggle mul disabled: bit-exact (1,048,576 elements)
      toggle re-enabled: bit-exact (1,048,576 elements)
      cuGraphNodeGetEnabled (enabled): 1
      cuGraphNodeGetEnabled (mul disabled): 0
      cuGraphNodeGetEnabled (re-enabled): 1
      elements where mul-disabled differs from the full chain: 600942
    priority: ok
      priority graph: bit-exact (1,048,576 elements)
      priority range (least, greatest): (0, -5)
      node priorities: [-5, -5, -5, -5]
    refused: cuGraphInstantiateWithParams: CUDA_ERROR_INVALID_VALUE (1): invalid argument. CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED at node HOST (flags 0x4): a node does something these flags do not allow (device launch allows only kernel, memcpy, memset and child graph nodes).
"""
import sys

import cugraphlab as cgl
from cugraphlab import Chain, compare_bits
from cugraphlab.experiment import (
    check_clone,
    check_events,
    check_host,
    check_join,
    check_nested,
    check_priority,
    check_toggle,
    refused_instantiate,
)
from cugraphlab.graphs import Graph, HostCallback, add_host_node, add_launch_sequence, graph_view, render_text


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
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
