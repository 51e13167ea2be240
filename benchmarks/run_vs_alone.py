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
from cugraphlab.bench.environment import collect  # noqa: E402


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
            print(f"(3f) again, same stream: {graph_us(ch, e0, e1):.3f}")
            exe = ch.graph_exec()
            with dev.create_stream() as s2:
                times = []
                for _ in range(3):
                    e0.record(s2)
                    for _ in range(5000):
                        exe.launch(s2)
                    e1.record(s2)
                    e1.synchronize()
                    times.append(e0.elapsed_ms(e1) * 1e3 / 5000)
                print(f"(3g) same graph on a fresh stream: {statistics.median(times):.3f}")
            ch.run("graph", 100_000)
            print(f"(3h) after 1 s more of graph replays: {graph_us(ch, e0, e1):.3f}")
            with Chain(dev, kernels=ch.kernels) as ch2:
                print(f"(3i) a new Chain beside it: {graph_us(ch2, e0, e1):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
