"""Lesson 8: conditional graph nodes. A loop and a branch decided on the GPU, with no trip back to Python.

    parent graph:  MEMSET (zero the loop state) -> CONDITIONAL WHILE (handle h, set to 1 at each launch)
    body graph:    add -> mul -> sub -> relu -> conditional(h, state, N)

The last body kernel counts iterations in device memory and calls cudaGraphSetConditional(h, count < N): one
cuGraphLaunch runs the chain N times. The same loop driven from Python needs, per iteration, a launch, a copy of
the counter back to the host and a wait. A second loop stops when a value the GPU computes crosses a threshold,
where NumPy predicts; an IF node runs the chain only when a flag in device memory is set.

Run (with the package installed): python3 examples/08_conditional.py
"""
import sys
import time

import cugraphlab as cgl
from cugraphlab import compare_bits, conditional_graphs

N = 1000


def main() -> int:
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1 << 16) as chain:
        try:
            loops = conditional_graphs(chain)  # conditional kernels, loop state; closed with the chain
        except cgl.UnsupportedError as e:
            print(f"skipped: {e}")
            return 0
        graph, info = loops.build_while(N)
        print("WHILE graph:\n" + info["parent"] + "\nits body:\n" + info["body"] + "\n")
        graph.close()

        checks = [loops.run_while(N),  # the body ran exactly N times, output bit-exact
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
