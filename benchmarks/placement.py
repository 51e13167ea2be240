"""Does where the chain's buffers land in device memory change how fast its graph runs?

Makes several chains in one process, each after a spacer allocation of a different size (so their buffers land at
different addresses), then times every chain's graph (5000 iterations, CUDA events) interleaved, 5 rounds.
Usage: PYTHONPATH=. python3 benchmarks/placement.py
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cugraphlab import Chain, Device  # noqa: E402
from cugraphlab.bench.experiment import time_mode  # noqa: E402
from cugraphlab.bench.stats import summarize  # noqa: E402
from cugraphlab.report.tables import format_table  # noqa: E402

SPACERS_MIB = (0, 1, 2, 3, 5, 8, 13, 21)


def main() -> int:
    with Device(0) as dev, dev.load_kernels() as ks, dev.create_event() as e0, dev.create_event() as e1:
        keep, chains = [], []
        for mib in SPACERS_MIB:
            if mib:
                keep.append(dev.array(mib << 18))
            chains.append((mib, Chain(dev, n=1 << 20, kernels=ks)))
        samples = {i: [] for i in range(len(chains))}
        for _ in range(5):
            for i, (_, ch) in enumerate(chains):
                ch.run("graph", 500)
                samples[i].append(time_mode(ch, "graph", 5000, e0, e1)[1])
        rows = []
        for i, (mib, ch) in enumerate(chains):
            s = summarize(samples[i], unit="us", clock="cuEventElapsedTime")
            addrs = [ch.x.ptr, ch.y.ptr] + [o.ptr for o in ch.outs]
            base = min(addrs)
            layout = " ".join(f"{(a - base) >> 20}" for a in addrs)
            rows.append([i, mib, hex(base), f"{(base >> 20) % 64}", layout, f"{s.median:.3f}",
                         f"{s.p5:.3f}-{s.p95:.3f}", "yes" if ch.check_result("graph").ok else "NO"])
        print(format_table(["chain", "spacer MiB", "x at", "x MiB mod 64", "buffers (MiB from x)", "graph us/iter",
                            "p5-p95", "bit-exact"], rows))
        for _, ch in chains:
            ch.close()
        for a in keep:
            a.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
