"""Example 2: stream capture. The same four launches, recorded into a graph instead of run.
The course teaches it in notebooks/02_capture_replay.ipynb (the course's own order: docs/course/course.md).

    cuStreamBeginCapture(stream, mode)   # from here on, work queued on the stream is recorded, not run
    cuLaunchKernel(...) x 4              # become four kernel nodes, each depending on the one before
    cuStreamEndCapture(stream) -> graph
    cuGraphInstantiate(graph) -> exec    # validate and prepare once
    cuGraphUpload(exec, stream)          # one-time setup out of the timed loop
    cuGraphLaunch(exec, stream)          # the whole chain in one call

Run (with the package installed): python3 examples/02_capture.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    the captured chain:
    4 nodes, 3 edges
      [0] KERNEL:add   grid 1024, block 256
      [1] KERNEL:mul   grid 1024, block 256  after [0]
      [2] KERNEL:sub   grid 1024, block 256  after [1]
      [3] KERNEL:relu  grid 1024, block 256  after [2]
    edges: [0] -> [1]  [1] -> [2]  [2] -> [3]
    layers (nodes on one line may run at the same time):
       0 | [0] add
       1 | [1] mul
       2 | [2] sub
       3 | [3] relu

    graph: 1000 cuGraphLaunch calls: 10.35 us/iteration (host clock, perf_counter_ns)
    graph: bit-exact (1,048,576 elements)
"""
import sys
import time

import cugraphlab as cgl
from cugraphlab.graphs import graph_view, render_text

ITERS = 1000


def main() -> int:
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1 << 20) as chain:
        graph = chain.capture()  # cuStreamBeginCapture ... four launches ... cuStreamEndCapture
        print(render_text(graph_view(graph), "the captured chain:"))
        with graph.instantiate() as exe:  # cuGraphInstantiate
            exe.upload(chain.stream)  # cuGraphUpload
            chain.randomize()
            chain.poison()
            exe.launch(chain.stream)  # cuGraphLaunch
            v = chain.check_result("graph")
            t0 = time.perf_counter_ns()
            for _ in range(ITERS):
                exe.launch(chain.stream)
            chain.stream.synchronize()
            us = (time.perf_counter_ns() - t0) / 1e3 / ITERS
        graph.close()
        print(f"\ngraph: {ITERS} cuGraphLaunch calls: {us:.2f} us/iteration (host clock, perf_counter_ns)")
        print(v)
        return 0 if v.ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
