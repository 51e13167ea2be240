"""Example 14: what a graph costs as it grows, and when it pays off.
The course teaches it in notebooks/08_scaling.ipynb (the course's own order: docs/course/course.md).

A straight line of L empty-kernel nodes, for L = 1, 16, 256, 4096, captured and instantiated again and again:

    cuStreamBeginCapture(S); cuLaunchKernel(empty, S) x L; cuStreamEndCapture(S)   # capture: grows with L
    cuGraphInstantiate                                                             # grows with L
    cuGraphUpload; cuGraphLaunch                                                   # the launch: NVIDIA's model for
                                                                                   #   lines, CUDA 12.6+: about
                                                                                   #   2.5 us + 1 ns per node
and a break-even: the replays after which capture + instantiate are repaid against launching the L kernels one by
one (``cugraphlab scaling`` measures all of it, fork/join too, with fits and plots).
Run (with the package installed): python3 examples/14_scaling.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    L=   1: capture    28.0 us, instantiate    10.4 us, held launch 2.75 us, device      1.4 us/graph, pays off after 11 replays
    L=  16: capture    40.9 us, instantiate    23.9 us, held launch 1.69 us, device      9.0 us/graph, pays off after 2 replays
    L= 256: capture   279.7 us, instantiate   255.1 us, held launch 2.24 us, device    127.1 us/graph, pays off after 1 replays
    L=4096: capture  5159.6 us, instantiate  6501.7 us, held launch 15.22 us, device   2016.2 us/graph, pays off after 1 replays
    launch against NVIDIA's model: (to be measured: the line now reads the launch path against NVIDIA's model)
"""
import sys

import cugraphlab as cgl


def main() -> int:
    plan = cgl.bench.make_plan([1, 16, 256, 4096], topologies="line", repeats=5, budget_s=10)
    with cgl.Device(0) as dev:
        result = cgl.bench.measure_scaling(dev, plan)
    be = {b["length"]: b["replays"] for b in result.break_even}
    for p in result.points:
        s = {k: v["median"] for k, v in p["summaries"].items()}
        print(f"L={p['length']:>4}: capture {s['capture_us']:7.1f} us, instantiate {s['instantiate_us']:7.1f} us, "
              f"held launch {s['held_launch_us']:.2f} us, device {s['device_us']:8.1f} us/graph, "
              f"pays off after {be.get(p['length'])} replays")
    print("launch against NVIDIA's model:", result.launch_model["text"])
    return 0 if result.verified else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
