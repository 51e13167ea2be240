"""Lesson 14: what a graph costs as it grows, and when it pays off.

A straight line of L empty-kernel nodes, for L = 1, 16, 256, 4096, captured and instantiated again and again:

    cuStreamBeginCapture(S); cuLaunchKernel(empty, S) x L; cuStreamEndCapture(S)   # capture: grows with L
    cuGraphInstantiate                                                             # grows with L
    cuGraphUpload; cuGraphLaunch                                                   # the launch: nearly flat
                                                                                   #   (CUDA 12.6+ for lines)
and a break-even: the replays after which capture + instantiate are repaid against launching the L kernels one by
one (``cugraphlab scaling`` measures all of it, fork/join too, with fits and plots).
Run (with the package installed): python3 examples/14_scaling.py

Expected output on the H200: (TO BE REPLACED after the GPU run; the figures below are an expectation)
    L=   1: capture   8 us, instantiate  10 us, held launch 1.8 us, device  2.5 us/graph, pays off after 3 replays
    L=  16: capture  40 us, instantiate  20 us, held launch 1.8 us, device  10 us/graph, pays off after 2 replays
    L= 256: capture 600 us, instantiate 200 us, held launch 1.9 us, device 130 us/graph, pays off after 1 replays
    L=4096: capture  10 ms, instantiate   3 ms, held launch 2.0 us, device   2 ms/graph, pays off after 1 replays
    constant-time launch: constant: within ±5% from 16 to 4096 nodes (...)
"""
import sys

import cugraphlab as cgl


def main() -> int:
    plan = cgl.make_scaling_plan([1, 16, 256, 4096], topologies="line", repeats=5, budget_s=10)
    with cgl.Device(0) as dev:
        result = cgl.measure_scaling(dev, plan)
    be = {b["length"]: b["replays"] for b in result.break_even}
    for p in result.points:
        s = {k: v["median"] for k, v in p["summaries"].items()}
        print(f"L={p['length']:>4}: capture {s['capture_us']:7.1f} us, instantiate {s['instantiate_us']:7.1f} us, "
              f"held launch {s['held_launch_us']:.2f} us, device {s['device_us']:8.1f} us/graph, "
              f"pays off after {be.get(p['length'])} replays")
    print("constant-time launch:", result.verdict["held_launch_us"]["line"]["text"])
    return 0 if result.verified else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
