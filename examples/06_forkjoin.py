"""Lesson 6: two independent chains as two parallel branches of one graph (fork/join capture).

    cuStreamBeginCapture(A)
    cuEventRecord(fork, A); cuStreamWaitEvent(B, fork)   # B joins A's capture
    chain 1 on A, chain 2 on B                            # no edge between them
    cuEventRecord(join, B); cuStreamWaitEvent(A, join)   # B's work flows back into A
    add(final, out1, out2) on A                           # one node with two predecessors
    cuStreamEndCapture(A)
Run (with the package installed): python3 examples/06_forkjoin.py
"""
import sys

import cugraphlab as cgl
from cugraphlab import ForkJoin
from cugraphlab.graphs import graph_view, render_text


def main() -> int:
    with cgl.Device(0) as dev, ForkJoin(dev, n=(1 << 20) + 1) as fj:
        with fj.capture() as graph:
            print(render_text(graph_view(graph), f"fork/join: {fj.describe()}"))
            check = fj.check(graph)
        print(f"\nthe join node has {check.join_predecessors} predecessors (two branches)")
        print(check.verification)
        return 0 if check.ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
