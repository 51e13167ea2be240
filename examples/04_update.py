"""Lesson 4: new inputs for an instantiated graph, without building it again.

(a) cuGraphExecKernelNodeSetParams(exec, node, params): new arguments for one kernel node of the executable graph
    (node = the node of the graph the exec was instantiated from).
(b) re-capture with the new arguments, then cuGraphExecUpdate(exec, new_graph) -> (CUresult, resultInfo): the
    driver copies parameters across when both graphs have the same shape, and refuses (resultInfo.result, e.g.
    CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED) when they do not; then only cuGraphInstantiate helps.
Run (with the package installed): python3 examples/04_update.py
"""
import sys

import numpy as np

import cugraphlab as cgl
from cugraphlab import ChainGraph, demonstrate_refused_update, fresh_inputs, measure_update_costs


def main() -> int:
    ok = True
    rng = np.random.default_rng()
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1 << 18) as chain:
        a = fresh_inputs(dev, chain.n, -1.25, rng)  # other buffers, other values, another scalar
        b = fresh_inputs(dev, chain.n, 3.5, rng)
        with ChainGraph(chain, "explicit") as cg:  # cuGraphCreate + cuGraphAddKernelNode x 4, instantiate
            v = cg.check("as built")  # poison outputs, cuGraphLaunch, compare with NumPy
            print(v)
            ok &= v.ok

            report = cg.set_params(a)  # (a) cuGraphExecKernelNodeSetParams on each of the 4 nodes
            v = cg.check("after (a)")
            print(f"(a) new buffers, scalar {a.scalar}: {report}\n    {v}")
            ok &= v.ok

            report = cg.recapture(b)  # (b) capture again + cuGraphExecUpdate
            v = cg.check("after (b)")
            print(f"(b) new buffers, scalar {b.scalar}: {report}\n    {v}")
            ok &= v.ok
        a.close()
        b.close()
        report, v = demonstrate_refused_update(chain)
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
