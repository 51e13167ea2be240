"""After Python-fed launches, do later graph replays in the same context run slower? Each case in a fresh context.

Each case opens the device (a fresh primary context), makes a chain, times its graph (5000 iterations, CUDA events,
median of 3), does the case's work, and times the graph again.
Usage: PYTHONPATH=. python3 benchmarks/eager_then_graph.py
"""
from __future__ import annotations

import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cugraphlab import Chain, Device  # noqa: E402
from cugraphlab.bench.experiment import time_mode  # noqa: E402


def graph_us(ch, e0, e1) -> float:
    ch.run("graph", 200)
    return statistics.median(time_mode(ch, "graph", 5000, e0, e1)[1] for _ in range(3))


CASES = {
    "nothing": lambda ch, e0, e1: None,
    "eager 3x5000, untimed": lambda ch, e0, e1: [ch.run("eager", 5000) for _ in range(3)],
    "eager 3x5000, events around": lambda ch, e0, e1: [time_mode(ch, "eager", 5000, e0, e1) for _ in range(3)],
    "eager 3x5000, sync after each": lambda ch, e0, e1: [(ch.run("eager", 5000), ch.stream.synchronize())
                                                          for _ in range(3)],
    "fused 3x5000 (graphs)": lambda ch, e0, e1: [time_mode(ch, "fused", 5000, e0, e1) for _ in range(3)],
    "empty-ish: eager 3x500": lambda ch, e0, e1: [time_mode(ch, "eager", 500, e0, e1) for _ in range(3)],
    "3x randomize+poison": lambda ch, e0, e1: [(ch.randomize(), ch.poison()) for _ in range(3)],
    "3x randomize+poison+eager": lambda ch, e0, e1: [(ch.randomize(), ch.poison(),
                                                      time_mode(ch, "eager", 5000, e0, e1)) for _ in range(3)],
    "3x poison+eager": lambda ch, e0, e1: [(ch.poison(), time_mode(ch, "eager", 5000, e0, e1)) for _ in range(3)],
    "3x randomize+eager": lambda ch, e0, e1: [(ch.randomize(), time_mode(ch, "eager", 5000, e0, e1))
                                              for _ in range(3)],
    "3x eager+randomize": lambda ch, e0, e1: [(time_mode(ch, "eager", 5000, e0, e1), ch.randomize())
                                              for _ in range(3)],
}


def main() -> int:
    for name, case in CASES.items():
        with Device(0) as dev, dev.create_event() as e0, dev.create_event() as e1, Chain(dev) as ch:
            before = graph_us(ch, e0, e1)
            case(ch, e0, e1)
            after = graph_us(ch, e0, e1)
            ok = ch.check_result("graph").ok
        print(f"{name:32s} graph before {before:.3f}  after {after:.3f} us/iter  bit-exact {ok}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
