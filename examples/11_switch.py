"""Example 11: IF/ELSE and SWITCH conditional nodes (CUDA 12.8+), and a WHILE body filled by stream capture.
The course teaches it in notebooks/10_conditional_nodes.ipynb (the course's own order: docs/course/course.md).

    IF/ELSE:  cond_sign(h, x) -> CONDITIONAL IF (h, 2 bodies)    body 0: add -> mul -> sub -> relu
                                                                 body 1: add -> mul -> sub
    SWITCH:   cond_switch(h, index) -> CONDITIONAL SWITCH (h, 4 bodies: the chain, without relu, without sub, fused)

The driver calls, in order:

    h = cuGraphConditionalHandleCreate(graph, ctx, 0, 0)              # no default: a kernel sets it every launch
    setter = cuGraphAddKernelNode(graph, [], ...)                    # cudaGraphSetConditional(h, value) inside
    node = cuGraphAddNode(graph, [setter], params{CONDITIONAL, IF or SWITCH, h, size 2 or 4, ctx})
    bodies = params.conditional.phGraph_out[0:size]                  # the node's: freed with the parent graph
    cuGraphAddKernelNode(bodies[i], ...)                             # or capture into them (below)

IF/ELSE decides on a value the GPU computes (the sum of the first 32 inputs in float32): NumPy predicts it, and the
inputs are chosen so that each branch runs. SWITCH reads its index from device memory; 4 or more runs no body. Every
body writes buffers of its own, so each check also proves that no other body ran. Then one SWITCH graph serves four
problem sizes where four graphs would, and the WHILE loop of example 8 is built by stream capture instead of node by
node (cuStreamBeginCaptureToGraph into the body; cuStreamGetCaptureInfo + cuGraphAddNode +
cuStreamUpdateCaptureDependencies to add the node during a capture of the parent): same topology, same bits.

Run (with the package installed): python3 examples/11_switch.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    IF/ELSE graph:
    2 nodes, 1 edges
      [0] KERNEL:cond_sign
      [1] CONDITIONAL  <- 0
    ok   IF/ELSE: expected body 0, ran 0 (GPU decided IF); IF/ELSE body 0 (chain): bit-exact (65,536 elements)
    ok   IF/ELSE: expected body 1, ran 1 (GPU decided ELSE); IF/ELSE body 1 (without relu): bit-exact (65,536 elements)
    ok   SWITCH: expected body 0, ran 0; SWITCH body 0 (chain): bit-exact (65,536 elements)
    ok   SWITCH: expected body 1, ran 1; SWITCH body 1 (without relu): bit-exact (65,536 elements)
    ok   SWITCH: expected body 2, ran 2; SWITCH body 2 (without sub): bit-exact (65,536 elements)
    ok   SWITCH: expected body 3, ran 3; SWITCH body 3 (fused): bit-exact (65,536 elements)
    ok   SWITCH: expected none, ran none; SWITCH (no body: outputs untouched): bit-exact (262,144 elements)
    ok   SWITCH sizes: expected body 0, ran 0; SWITCH sizes 65,536 floats: bit-exact (65,536 elements)
    ok   SWITCH sizes: expected body 1, ran 1; SWITCH sizes 32,768 floats: bit-exact (65,536 elements)
    ok   SWITCH sizes: expected body 2, ran 2; SWITCH sizes 16,384 floats: bit-exact (65,536 elements)
    ok   SWITCH sizes: expected body 3, ran 3; SWITCH sizes 8,192 floats: bit-exact (65,536 elements)
    ok   WHILE captured (body): body ran 100x (expected 100); graph: bit-exact (65,536 elements)
    ok   WHILE captured (parent): body ran 100x (expected 100); graph: bit-exact (65,536 elements)
    captured into the body: parent: same topology: 2 nodes, 1 edges; body: same topology: 5 nodes, 4 edges
    captured into the parent: parent: same topology: 2 nodes, 1 edges; body: same topology: 5 nodes, 4 edges

    SWITCH index 0: 12.55 us per launch; one IF node: 12.11 us (device clock, CUDA events)
"""
import sys

import cugraphlab as cgl
from cugraphlab.experiment import BranchGraphs, conditional_graphs

N = 100
LAUNCHES = 1000


def device_us(exe, stream, start, end) -> float:
    """Device µs per launch of ``exe`` over LAUNCHES back-to-back launches (CUDA events around them)."""
    stream.synchronize()
    start.record(stream)
    for _ in range(LAUNCHES):
        exe.launch(stream)
    end.record(stream)
    end.synchronize()
    return start.elapsed_us(end) / LAUNCHES


def main() -> int:
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1 << 16) as chain:
        try:
            kit = BranchGraphs(chain, 4)  # decision kernels, per-body buffers, the SWITCH index
        except cgl.UnsupportedError as e:
            print(f"skipped: {e}")
            return 0
        with kit, dev.create_event() as start, dev.create_event() as end:
            graph, info = kit.build_if_else()
            print("IF/ELSE graph:\n" + info["parent"])
            graph.close()  # its bodies go with it: the driver frees them, nobody else may

            checks = [kit.run_if_else(True), kit.run_if_else(False)]  # both branches, forced by the inputs
            checks += [kit.run_switch(i) for i in range(kit.count + 1)]  # every body, then an index that runs none
            checks += [kit.run_size(k) for k in range(kit.count)]  # one SWITCH graph, four problem sizes
            loops = conditional_graphs(chain)
            checks += [loops.run_while_captured(N, into) for into in ("body", "parent")]
            for c in checks:
                print(("ok   " if c.ok else "FAIL ") + str(c))
            same = []
            for into in ("body", "parent"):
                ok, text = loops.same_as_built(N, into)
                same.append(ok)
                print(f"captured into the {into}: {text}")

            kit.fresh(0)
            sw = device_us(kit.exec_of("switch"), chain.stream, start, end)
            one_if = device_us(kit.exec_of("if"), chain.stream, start, end)
            print(f"\nSWITCH index 0: {sw:.2f} us per launch; one IF node: {one_if:.2f} us "
                  f"(device clock, CUDA events)")
            after = kit.check_bodies("SWITCH after timing", 0)
            return 0 if all(c.ok for c in checks) and all(same) and after.ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
