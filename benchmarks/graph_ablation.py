"""Why does the chain graph time differently in `cugraphlab run` than alone? Toggle what run does around it.

Each variant prepares the chain one way, then times 5000 graph iterations with CUDA events; variants interleaved,
7 rounds. Usage: PYTHONPATH=. python3 benchmarks/graph_ablation.py
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cugraphlab import Chain, Device  # noqa: E402
from cugraphlab.bench.experiment import time_mode  # noqa: E402
from cugraphlab.bench.stats import summarize  # noqa: E402
from cugraphlab.report.tables import format_table  # noqa: E402


def main() -> int:
    with Device(0) as dev, dev.create_event() as e0, dev.create_event() as e1:
        plain = Chain(dev)
        with_fused = Chain(dev, kernels=plain.kernels)
        with_fused.run("fused", 200)  # a 50-node fused graph instantiated and uploaded on the same stream
        variants = {
            "alone": lambda: None,
            "after randomize+poison": lambda: (plain.randomize(), plain.poison()),
            "after eager 200": lambda: plain.run("eager", 200),
            "after fused 200 (other chain)": lambda: with_fused.run("fused", 200),
            "fused graph on same stream": None,
        }
        samples = {k: [] for k in variants}
        for _ in range(7):
            for name, prep in variants.items():
                ch = with_fused if prep is None else plain
                if prep is not None:
                    prep()
                ch.run("graph", 200)
                samples[name].append(time_mode(ch, "graph", 5000, e0, e1)[1])
        rows = []
        for name, v in samples.items():
            s = summarize(v, unit="us", clock="cuEventElapsedTime")
            rows.append([name, f"{s.median:.3f}", f"{s.p5:.3f}-{s.p95:.3f}"])
        print(format_table(["variant", "graph us/iter", "p5-p95"], rows))
        assert plain.check_result("graph").ok and with_fused.check_result("graph").ok
        with_fused.close()
        plain.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
