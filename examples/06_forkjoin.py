"""Example 6: two independent chains as two parallel branches of one graph (fork/join capture).
The course teaches it in notebooks/04_fork_join.ipynb (the course's own order: docs/course/course.md).

    cuStreamBeginCapture(A)
    cuEventRecord(fork, A); cuStreamWaitEvent(B, fork)   # B joins A's capture
    chain 1 on A, chain 2 on B                            # no edge between them
    cuEventRecord(join, B); cuStreamWaitEvent(A, join)   # B's work flows back into A
    add(final, out1, out2) on A                           # one node with two predecessors
    cuStreamEndCapture(A) -> graph

Every one of these calls is written out below through ``cgl.cu`` (the one door: checked, traced, typed errors);
the two chains (example 1) bring their buffers, kernels and launches, each on its own stream. Without the event
pair the capture would be refused: a stream may only join a capture through an event recorded in it. The
``ForkJoin`` helper does the same and checks it the same way.
Run (with the package installed): python3 examples/06_forkjoin.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    fork/join by hand:
    9 nodes, 8 edges
      [0] KERNEL:add   grid 1025, block 256
      [1] KERNEL:add   grid 1025, block 256
      [2] KERNEL:mul   grid 1025, block 256  after [0]
      [3] KERNEL:mul   grid 1025, block 256  after [1]
      [4] KERNEL:sub   grid 1025, block 256  after [2]
      [5] KERNEL:relu  grid 1025, block 256  after [4]
      [6] KERNEL:sub   grid 1025, block 256  after [3]
      [7] KERNEL:relu  grid 1025, block 256  after [6]
      [8] KERNEL:add   grid 1025, block 256  after [5], [7]
    edges: [0] -> [2]  [1] -> [3]  [2] -> [4]  [3] -> [6]  [4] -> [5]  [5] -> [8]  [6] -> [7]  [7] -> [8]
    layers (nodes on one line may run at the same time):
       0 | [0] add   [1] add
       1 | [2] mul   [3] mul
       2 | [4] sub   [6] sub
       3 | [5] relu  [7] relu
       4 | [8] add

    the join node has 2 predecessors (two branches)
    final = out1 + out2: bit-exact (1,048,577 elements)
"""
import sys

import numpy as np

import cugraphlab as cgl
from cugraphlab import compare_bits
from cugraphlab.graphs import graph_view, render_text


def main() -> int:
    with cgl.Device(0) as dev, cgl.Chain(dev, n=(1 << 20) + 1) as one, \
            cgl.Chain(dev, n=one.n, scalar=-0.5, kernels=one.kernels) as two, \
            dev.array(one.n) as final, cgl.Event(dev, timing=False) as fork, cgl.Event(dev, timing=False) as join:
        a, b = one.stream, two.stream
        add = cgl.Launch(one.kernels["add"], cgl.PackedArgs(("ptr", "ptr", "ptr", "u64"),
                                                            (final, one.out, two.out, one.n)), one.config, a)
        d = cgl.driver_module()
        cgl.cu("cuStreamBeginCapture", a.handle, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
        try:
            cgl.cu("cuEventRecord", fork.handle, a.handle)  # fork: B waits for what A has so far
            cgl.cu("cuStreamWaitEvent", b.handle, fork.handle, 0)
            for launch in one.launches:  # branch 1, captured from A
                launch()
            for launch in two.launches:  # branch 2, captured from B: no edge to branch 1
                launch()
            cgl.cu("cuEventRecord", join.handle, b.handle)  # join: A waits for the end of branch 2
            cgl.cu("cuStreamWaitEvent", a.handle, join.handle, 0)
            add()  # after both branches
        finally:  # end the capture even when a call above failed, or stream A stays capturing
            handle = cgl.cu("cuStreamEndCapture", a.handle)
        with cgl.Graph(dev, handle) as graph:  # the Graph owns it: cuGraphDestroy on close
            view = graph_view(graph)
            print(render_text(view, "fork/join by hand:"))
            preds = [sum(1 for _src, dst in view.edges if dst == i) for i in range(len(view.nodes))]
            joins = max(preds)
            print(f"\nthe join node has {joins} predecessors (two branches)")
            one.poison()
            two.poison()
            final.poison()
            with graph.instantiate() as exe:
                exe.launch(a)
                a.synchronize()
            expected = np.add(one.expected(), two.expected(), dtype=np.float32)  # as the add kernel rounds
            v = compare_bits("final = out1 + out2", final.to_numpy(), expected)
            print(v)
            return 0 if v.ok and joins == 2 else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
