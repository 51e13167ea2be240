"""Example 4: new inputs for an instantiated graph, without building it again.
The course teaches it in notebooks/05_update.ipynb (the course's own order: docs/course/course.md).

(a) cuGraphExecKernelNodeSetParams(exec, node, params): new arguments for one kernel node of the executable graph
    (node = the node of the graph the exec was instantiated from).
(b) re-capture with the new arguments, then cuGraphExecUpdate(exec, new_graph) -> resultInfo: the driver copies
    parameters across when both graphs have the same shape, and refuses (CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, with
    resultInfo.result, e.g. CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED) when they do not; then only
    cuGraphInstantiate helps.

Both calls are written out below through ``cgl.cu`` (the one door: checked, traced, typed errors). The inputs of
(a) and (b) are two more chains sharing the first one's kernels, each with its own buffers, values and scalar, so
a right answer can only come from the new arguments. The helpers (``demonstrate_refused_update``,
``measure_update_costs``) follow once the calls were shown: a refused update read back with its reason, and what
each way of updating costs on the host.
Run (with the package installed): python3 examples/04_update.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    as built: bit-exact (262,144 elements)
    (a) 4 x cuGraphExecKernelNodeSetParams, new buffers, scalar -1.25: after (a): bit-exact (262,144 elements)
    (b) cuGraphExecUpdate: CU_GRAPH_EXEC_UPDATE_SUCCESS, new buffers, scalar 3.5: after (b): bit-exact (262,144 elements)
    re-capture with one op fewer: reinstantiate (217.4 us host): CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED -- the new graph has other nodes or edges; instantiated the new graph instead
        refused update, re-instantiated: bit-exact (262,144 elements)

    host cost per update (perf_counter_ns around each driver call (host)):
      set_params                 4.30 us  (p5 3.53, p95 4.56)  bit-exact
      exec_update                1.87 us  (p5 1.78, p95 2.15)  bit-exact
      exec_update (ctypes)       1.93 us  (p5 1.85, p95 2.03)  bit-exact
      recapture_update          20.30 us  (p5 18.94, p95 22.87)  bit-exact
      reinstantiate             14.14 us  (p5 13.48, p95 27.57)  bit-exact
      recapture_instantiate     33.98 us  (p5 31.89, p95 54.48)  bit-exact
"""
import sys

import cugraphlab as cgl
from cugraphlab.bench import measure_update_costs
from cugraphlab.experiment import build_chain_graph_nodes, demonstrate_refused_update
from cugraphlab.graphs import kernel_node_params


def launch_and_check(exe, chain, runs_on, label):
    """Poison ``chain``'s outputs, launch ``exe`` once on ``runs_on``'s stream, compare with NumPy."""
    chain.poison()
    exe.launch(runs_on.stream)
    runs_on.stream.synchronize()
    return chain.check_result(label)


def main() -> int:
    ok = True
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1 << 18) as chain, \
            cgl.Chain(dev, n=chain.n, scalar=-1.25, kernels=chain.kernels) as a, \
            cgl.Chain(dev, n=chain.n, scalar=3.5, kernels=chain.kernels) as b:
        graph, nodes = build_chain_graph_nodes(chain)  # example 3: cuGraphCreate + cuGraphAddKernelNode x 4
        with graph, graph.instantiate() as exe:  # cuGraphInstantiate
            v = launch_and_check(exe, chain, chain, "as built")
            print(v)
            ok &= v.ok

            # (a) in place: each node of the exec gets a's arguments (same kernel, a's buffers and scalar)
            for node, launch in zip(nodes, a.launches):
                cgl.cu("cuGraphExecKernelNodeSetParams", exe.handle, node, kernel_node_params(launch))
            v = launch_and_check(exe, a, chain, "after (a)")
            print(f"(a) {len(nodes)} x cuGraphExecKernelNodeSetParams, new buffers, scalar {a.scalar}: {v}")
            ok &= v.ok

            # (b) a whole new graph (captured from b's launches), its parameters copied into the exec
            with b.capture() as new_graph:
                info = cgl.cu("cuGraphExecUpdate", exe.handle, new_graph.handle)  # raises when refused
                result = getattr(getattr(info, "result", None), "name", "CU_GRAPH_EXEC_UPDATE_SUCCESS")
            v = launch_and_check(exe, b, chain, "after (b)")  # the exec keeps what it copied: new_graph is gone
            print(f"(b) cuGraphExecUpdate: {result}, new buffers, scalar {b.scalar}: {v}")
            ok &= v.ok

        report, v = demonstrate_refused_update(chain)  # the helper reads the refusal's reason back
        print(f"re-capture with one op fewer: {report}")
        print("   ", v)
        ok &= v.ok and report.refused
        costs = measure_update_costs(chain, repeats=100)
        print(f"\nhost cost per update ({costs.clock}):")
        for path, s in costs.costs.items():
            print(f"  {path:<22} {s.median:8.2f} us  (p5 {s.p5:.2f}, p95 {s.p95:.2f})  "
                  f"{'bit-exact' if costs.verified[path] else 'FAILED'}")
        ok &= all(costs.verified.values())
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
