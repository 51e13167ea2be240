"""Example 15: a loop the GPU decides, made cheaper. Fold the decision into the last kernel, join the body's kernels
The course teaches it in notebooks/10_conditional_nodes.ipynb and notebooks/12_pdl.ipynb (the course's own order: docs/course/course.md).
by programmatic edges, decide once every K iterations: what each step saves, measured, every result checked.

    WHILE, decision separate:  add -> mul -> sub -> relu -> conditional(h)   5 kernel nodes per iteration (example 8)
    decision folded:           add -> mul -> sub -> cond_relu(h)             relu's block 0 counts and decides
    folded, PDL edges:         add =p=> mul =p=> sub =p=> cond_relu(h)       -DCGL_PDL kernels (example 7)
    folded, PDL, every 10:     10 chains in the body, the last relu counts 10 and decides
    device loop, every 50:     a device-launchable graph of 50 chains whose last relu tail-launches it (example 12)

The PDL body is filled by stream capture into the WHILE node's body (cuStreamBeginCaptureToGraph): the chain's
launches after the first go through cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, and
the capture turns them into edges of type CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC (the body's view says so per edge).
A body of K iterations is exact only for loops whose count is a multiple of K (other counts are refused), and a loop
that stops on a value stops up to K - 1 iterations late: what "decide every K" trades for its speed.
Each row: one cuGraphLaunch (or one enqueue of the device loop) of N iterations between two CUDA events, after a
warm-up launch, on fresh inputs; then the run is checked (count and bits against NumPy).
Run (with the package installed): python3 examples/15_cheaper_loops.py

Expected output on the H200 (cu13 bindings, commit 972a264, 2026-12-01; figures vary between runs and with where
the buffers land, the checks do not):
    the folded WHILE body with PDL edges:
    4 nodes, 3 edges (3 programmatic)
      [0] KERNEL:add
      [1] KERNEL:mul  <- 0 (programmatic)
      [2] KERNEL:sub  <- 1 (programmatic)
      [3] KERNEL:cond_relu  <- 2 (programmatic)

    ok   1,048,576 floats  WHILE, decision separate                      13.07 us/iter  WHILE: body ran 1000x (expected 1000); graph: bit-exact (1,048,576 elements)
    ok   1,048,576 floats  decision folded                               12.36 us/iter  WHILE folded: body ran 1000x (expected 1000); graph: bit-exact (1,048,576 elements)
    ok   1,048,576 floats  folded, PDL edges                             12.18 us/iter  WHILE folded, PDL edges: body ran 1000x (expected 1000); graph: bit-exact (1,048,576 elements)
    ok   1,048,576 floats  folded, PDL edges, every 10                    8.56 us/iter  WHILE folded, PDL edges, decision every 10 iterations: body ran 1000x (expected 1000); graph: bit-exact (1,048,576 elements)
    ok   1,048,576 floats  unrolled graph x50 (no decision)               8.70 us/iter  graph: bit-exact (1,048,576 elements)
    ok       1,024 floats  WHILE, decision separate                       8.02 us/iter  WHILE: body ran 1000x (expected 1000); graph: bit-exact (1,024 elements)
    ok       1,024 floats  decision folded                                7.42 us/iter  WHILE folded: body ran 1000x (expected 1000); graph: bit-exact (1,024 elements)
    ok       1,024 floats  folded, PDL edges                              6.44 us/iter  WHILE folded, PDL edges: body ran 1000x (expected 1000); graph: bit-exact (1,024 elements)
    ok       1,024 floats  folded, PDL edges, every 10                    2.82 us/iter  WHILE folded, PDL edges, decision every 10 iterations: body ran 1000x (expected 1000); graph: bit-exact (1,024 elements)
    ok       1,024 floats  unrolled graph x50 (no decision)               3.81 us/iter  graph: bit-exact (1,024 elements)
    ok       1,024 floats  device loop, decision every iteration          8.88 us/iter  self loop: 1000 iteration(s) (expected 1000), 999 device launch(es); self loop: bit-exact (1,024 elements)
    ok       1,024 floats  device loop, decision every 50                 3.88 us/iter  self loop, decision every 50 iterations: 1000 iteration(s) (expected 1000), 19 device launch(es); self loop, decision every 50 iterations: bit-exact (1,024 elements)

    clock: CUDA events around one launch of 1,000 iterations, after a warm-up launch
"""
import sys

import cugraphlab as cgl
from cugraphlab.experiment import conditional_graphs, device_loop

N = 1000  # iterations per loop: a multiple of 10 and of 50


def timed(dev, stream, launch) -> float:
    """µs per iteration of one launch of N iterations, CUDA events (device clock), after a warm-up launch."""
    launch()
    with dev.create_event() as e0, dev.create_event() as e1:
        e0.record(stream)
        launch()
        e1.record(stream)
        e1.synchronize()
        return e0.elapsed_us(e1) / N


def while_rows(dev, n: int) -> list:
    """(label, µs per iteration, check) for each WHILE body over the chain at n floats."""
    rows = []
    with cgl.Chain(dev, n=n) as chain:
        kit = conditional_graphs(chain)
        graph, info = kit.build_while(N, fold=True, pdl=True)  # the PDL body, to show its edges
        graph.close()
        if n == 1 << 20:
            print("the folded WHILE body with PDL edges:\n" + info["body_edges"] + "\n")
        for label, opts in (("WHILE, decision separate", {}), ("decision folded", {"fold": True}),
                            ("folded, PDL edges", {"fold": True, "pdl": True}),
                            ("folded, PDL edges, every 10", {"fold": True, "pdl": True, "every": 10})):
            exe = kit.while_exec(N, **opts)
            kit.fresh()
            us = timed(dev, chain.stream, lambda exe=exe: exe.launch(chain.stream))
            rows.append((f"{n:>9,} floats  {label}", us, kit.run_while(N, **opts)))
        kit.fresh()
        us = timed(dev, chain.stream, lambda: chain.run("graph", N, 50))
        rows.append((f"{n:>9,} floats  unrolled graph x50 (no decision)", us, chain.check_result("graph")))
    return rows


def device_loop_rows(dev, n: int) -> list:
    with cgl.Chain(dev, n=n) as chain:
        loop = device_loop(chain)  # relocatable kernels with the device runtime (example 12)
        rows = []
        for label, every in (("device loop, decision every iteration", 1), ("device loop, decision every 50", 50)):
            exe = loop.folded_exec(N, every=every) if every > 1 else loop.self_exec(N)
            us = timed(dev, chain.stream, lambda exe=exe: loop.enqueue(exe))
            check = loop.run_loop("folded", N, every=every) if every > 1 else loop.run_loop("self", N)
            rows.append((f"{n:>9,} floats  {label}", us, check))
        return rows


def main() -> int:
    with cgl.Device(0) as dev:
        try:
            rows = while_rows(dev, 1 << 20) + while_rows(dev, 1024)
        except cgl.UnsupportedError as e:  # no conditional nodes or no PDL here: one line
            print(f"skipped: {e}")
            return 0
        try:
            rows += device_loop_rows(dev, 1024)
        except cgl.UnsupportedError as e:
            print(f"device loop skipped: {e}")
        for label, us, check in rows:
            print(f"{'ok  ' if check.ok else 'FAIL'} {label:<62} {us:6.2f} us/iter  {check}")
        print("\nclock: CUDA events around one launch of 1,000 iterations, after a warm-up launch")
        return 0 if all(check.ok for _label, _us, check in rows) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
