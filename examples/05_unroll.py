"""Example 5: several iterations per graph. One cuGraphLaunch then carries K chains (4K kernel nodes),
The course teaches it in notebooks/07_unroll_payoff.ipynb (the course's own order: docs/course/course.md).
so the host's cost per iteration falls by K while the device runs the same kernels.

    chain.graph_exec(unroll=K): capture K iterations, cuGraphInstantiate, cuGraphUpload (before any timing:
    the first launch of a graph otherwise pays its upload)
    cuEventRecord(start) ... cuGraphLaunch x (ITERS / K) ... cuEventRecord(end); cuEventElapsedTime: device time
Run (with the package installed): python3 examples/05_unroll.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    unroll  1: 2000 launches, 5.44 us/iter wall (perf_counter_ns), 5.43 us/iter device (CUDA events); unroll 1: bit-exact (4,096 elements)
    unroll 10:  200 launches, 4.27 us/iter wall (perf_counter_ns), 4.26 us/iter device (CUDA events); unroll 10: bit-exact (4,096 elements)
    unroll 50:   40 launches, 4.16 us/iter wall (perf_counter_ns), 4.15 us/iter device (CUDA events); unroll 50: bit-exact (4,096 elements)
"""
import sys
import time

import cugraphlab as cgl

ITERS = 2000


def main() -> int:
    ok = True
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1 << 12) as chain:
        start, end = dev.create_event(), dev.create_event()
        for k in (1, 10, 50):
            exe = chain.graph_exec(unroll=k)  # captured, instantiated and uploaded once, then kept
            chain.run("graph", 10 * k, unroll=k)  # warm up
            chain.stream.synchronize()
            t0 = time.perf_counter_ns()
            start.record(chain.stream)
            chain.run("graph", ITERS, unroll=k)  # ITERS / k cuGraphLaunch calls
            end.record(chain.stream)
            end.synchronize()
            wall = (time.perf_counter_ns() - t0) / 1e3 / ITERS
            device = start.elapsed_us(end) / ITERS
            chain.randomize()
            chain.poison()
            exe.launch(chain.stream)
            v = chain.check_result(f"unroll {k}")
            ok &= v.ok
            print(f"unroll {k:>2}: {ITERS // k:>4} launches, {wall:.2f} us/iter wall (perf_counter_ns), "
                  f"{device:.2f} us/iter device (CUDA events); {v}")
        start.close()
        end.close()
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
