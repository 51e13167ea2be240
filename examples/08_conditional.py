"""Example 8: conditional graph nodes. A loop and a branch decided on the GPU, with no trip back to Python.
The course teaches it in notebooks/10_conditional_nodes.ipynb (the course's own order: docs/course/course.md).

    parent graph:  MEMSET (zero the loop state) -> CONDITIONAL WHILE (handle h, set to 1 at each launch)
    body graph:    add -> mul -> sub -> relu -> conditional(h, state, N)

The last body kernel counts iterations in device memory and calls cudaGraphSetConditional(h, count < N): one
cuGraphLaunch runs the chain N times. The same loop driven from Python needs, per iteration, a launch, a copy of
the counter back to the host and a wait. A second loop stops when a value the GPU computes crosses a threshold,
where NumPy predicts; an IF node runs the chain only when a flag in device memory is set.

The WHILE graph is built below with the calls written out through ``cgl.cu`` (the one door: checked, traced,
typed errors):

    graph = cuGraphCreate(0)
    reset = cuGraphAddMemsetNode(...)                       # example 3 (add_memset_node)
    h = cuGraphConditionalHandleCreate(graph, ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT)
    params = CUgraphNodeParams(type=CONDITIONAL, conditional={h, CU_GRAPH_COND_TYPE_WHILE, size=1, ctx})
    node = cuGraphAddNode(graph, [reset], None, 1, params)  # 13.x form; 12.x spells it cuGraphAddNode_v2
    body = params.conditional.phGraph_out[0]                # the node's body graph: the driver owns it
    chain kernel nodes + the decision kernel node into body  # example 3 (add_launch_sequence, ctx=ctx)

``conditional_graphs(chain)`` brings what is not this lesson's: the decision kernels (compiled against
cuda_device_runtime_api.h) and the loop state in device memory; it then runs the same loop, a threshold loop and
an IF node, and is checked the same way.
Run (with the package installed): python3 examples/08_conditional.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    WHILE graph built by hand:
    2 nodes, 1 edges
      [0] MEMSET
      [1] CONDITIONAL  after [0]
    edges: [0] -> [1]
    layers (nodes on one line may run at the same time):
       0 | [0] memset
       1 | [1] conditional

    the helper's WHILE graph:
    2 nodes, 1 edges
      [0] MEMSET
      [1] CONDITIONAL  <- 0
    its body:
    5 nodes, 4 edges
      [0] KERNEL:add
      [1] KERNEL:mul  <- 0
      [2] KERNEL:sub  <- 1
      [3] KERNEL:relu  <- 2
      [4] KERNEL:conditional  <- 3

    ok   WHILE by hand: body ran 1000x (expected 1000); graph: bit-exact (65,536 elements)
    ok   WHILE: body ran 1000x (expected 1000); graph: bit-exact (65,536 elements)
    ok   WHILE threshold: body ran 17x (expected 17); graph: bit-exact (65,536 elements)
    ok   IF set: body ran 1x (expected 1); IF set: bit-exact (65,536 elements)
    ok   IF clear: body ran 0x (expected 0); IF clear (output untouched): bit-exact (65,536 elements)

    WHILE node: 8.87 us/iteration; Python-driven loop: 20.05 us/iteration (1000 iterations; host clock, perf_counter_ns)
"""
import sys
import time

import cugraphlab as cgl
from cugraphlab import compare_bits
from cugraphlab.experiment import LoopCheck, conditional_graphs
from cugraphlab.graphs import add_kernel_node, add_launch_sequence, add_memset_node, graph_view, render_text

N = 1000


def build_while_by_hand(dev, chain, loops, n: int) -> cgl.Graph:
    """reset -> WHILE(h) { chain; decide(h, state, n) }: the body runs until the decision kernel counts n."""
    d = cgl.driver_module()
    ctx = dev.context  # every node of a conditional body runs in the handle's context
    graph = cgl.Graph(dev, cgl.cu("cuGraphCreate", 0))
    try:
        reset = add_memset_node(graph, loops.state, 0, ctx=ctx)  # the iteration counter starts at 0 each launch
        # the condition is 1 at the start of every launch: the body runs at least once
        h = cgl.cu("cuGraphConditionalHandleCreate", graph.handle, ctx, 1, int(d.CU_GRAPH_COND_ASSIGN_DEFAULT))
        params = d.CUgraphNodeParams()
        params.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
        params.conditional.handle = h
        params.conditional.type = d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_WHILE
        params.conditional.size = 1  # one body
        params.conditional.ctx = ctx
        if cgl.core.bindings_major() >= 13:  # (graph, dependencies, edge data, count, params)
            cgl.cu("cuGraphAddNode", graph.handle, [reset], None, 1, params)
        else:  # cuda-bindings 12: the same call is cuGraphAddNode_v2, with one (plain) edge datum per dependency
            cgl.cu("cuGraphAddNode_v2", graph.handle, [reset], [d.CUgraphEdgeData()], 1, params)
        body = params.conditional.phGraph_out[0]  # written by the driver: owned by the node, never destroyed here
        last = add_launch_sequence(body, chain.launches, ctx=ctx)[-1]
        decide = cgl.Launch(loops.kernels["conditional"],
                            cgl.PackedArgs(("u64", "ptr", "u64", "i32"), (int(h), loops.state, n, 1)),
                            cgl.LaunchConfig(1, 32), chain.stream)
        graph.keep_alive(decide.args)
        add_kernel_node(body, decide, [last], ctx=ctx)  # counts, then cudaGraphSetConditional(h, count < n)
        return graph
    except BaseException:
        graph.close()
        raise


def run_by_hand(dev, chain, loops, n: int) -> LoopCheck:
    with build_while_by_hand(dev, chain, loops, n) as graph:
        print(render_text(graph_view(graph), "WHILE graph built by hand:"))
        chain.randomize()
        chain.poison()
        with graph.instantiate() as exe:
            exe.launch(chain.stream)
            chain.stream.synchronize()
        return LoopCheck("WHILE by hand", n, loops.read_state().count, chain.check_result("graph"))


def main() -> int:
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1 << 16) as chain:
        try:
            loops = conditional_graphs(chain)  # conditional kernels, loop state; closed with the chain
        except cgl.UnsupportedError as e:
            print(f"skipped: {e}")
            return 0
        checks = [run_by_hand(dev, chain, loops, N)]
        graph, info = loops.build_while(N)  # the helper builds the same graph
        print("\nthe helper's WHILE graph:\n" + info["parent"] + "\nits body:\n" + info["body"] + "\n")
        graph.close()

        checks += [loops.run_while(N),  # the body ran exactly N times, output bit-exact
                  loops.run_until(500.0),  # stops where NumPy float32 says the running total reaches 500
                  loops.run_if(True),  # flag set: the chain ran once
                  loops.run_if(False)]  # flag clear: the output is still the poison pattern
        for c in checks:
            print(("ok   " if c.ok else "FAIL ") + str(c))

        exe, s = loops.while_exec(N), chain.stream
        s.synchronize()
        t0 = time.perf_counter_ns()
        exe.launch(s)  # one call: N iterations, each decided on the GPU
        s.synchronize()
        gpu = (time.perf_counter_ns() - t0) / 1e3 / N
        t0 = time.perf_counter_ns()
        ran = loops.run_host_loop(N)  # N x (launch, copy the counter back, wait, decide in Python)
        host = (time.perf_counter_ns() - t0) / 1e3 / N
        print(f"\nWHILE node: {gpu:.2f} us/iteration; Python-driven loop: {host:.2f} us/iteration "
              f"({ran} iterations; host clock, perf_counter_ns)")
        checks.append(compare_bits("after timing", chain.result("graph"), chain.expected()))
        return 0 if all(c.ok for c in checks) and ran == N else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
