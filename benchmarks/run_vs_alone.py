"""`cugraphlab run` times the chain graph slower than other scripts on the same GPU: which step of its setup does it?

In one process: (1) run_experiment itself; (2) a plain Chain timed alone; (3) run_experiment's steps replayed one at a
time, timing the graph after each. CUDA events, 5000 iterations, median of 3.
Usage: PYTHONPATH=. python3 benchmarks/run_vs_alone.py
"""
from __future__ import annotations

import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cugraphlab import Chain, Device  # noqa: E402
from cugraphlab.bench.experiment import run_experiment, time_mode  # noqa: E402
from cugraphlab.environment import collect  # noqa: E402


def graph_us(ch, e0, e1) -> float:
    ch.run("graph", 200)
    return statistics.median(time_mode(ch, "graph", 5000, e0, e1)[1] for _ in range(3))


def main() -> int:
    r = run_experiment(repeats=3)
    print(f"(1) run_experiment graph: {r.mode('graph').device_us_per_iter.median:.3f} us/iter")
    with Device(0) as dev, dev.create_event() as e0, dev.create_event() as e1:
        with Chain(dev) as ch:
            print(f"(2) plain Chain alone: {graph_us(ch, e0, e1):.3f}")
        with Chain(dev) as ch:
            print(f"(3a) new Chain: {graph_us(ch, e0, e1):.3f}")
            collect(dev)
            print(f"(3b) after collect(): {graph_us(ch, e0, e1):.3f}")
            ch.run("eager", 200)
            ch.run("fused", 200)
            print(f"(3c) after eager + fused warm-up: {graph_us(ch, e0, e1):.3f}")
            ch.randomize()
            ch.poison()
            print(f"(3d) after randomize + poison: {graph_us(ch, e0, e1):.3f}")
            for _ in range(3):
                ch.randomize()
                ch.poison()
                ch.run("eager", 200)
                time_mode(ch, "eager", 5000, e0, e1)
                ch.randomize()
                ch.poison()
            print(f"(3e) after eager timed loops: {graph_us(ch, e0, e1):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
