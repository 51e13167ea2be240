"""Does the GPU need a lead-in before a device-bound loop is timed? (A study behind cugraphlab run's lead-in.)

After a spell of eager launching (the GPU half idle, as in `cugraphlab run` before its graph mode), the chain graph
is replayed for LEAD milliseconds untimed, then 5000 iterations are timed with CUDA events. If the GPU's clocks need
time to rise again, short lead-ins measure slower.
Usage: PYTHONPATH=. python3 benchmarks/lead_in.py [--out DIR]
"""
from __future__ import annotations

import argparse
import datetime
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cugraphlab import Chain, Device  # noqa: E402
from cugraphlab.bench.experiment import time_mode  # noqa: E402
from cugraphlab.bench.stats import summarize  # noqa: E402
from cugraphlab.bench.environment import collect  # noqa: E402
from cugraphlab.report.tables import format_table  # noqa: E402
from cugraphlab.report.files import write_json  # noqa: E402

LEADS_MS = (0, 2, 10, 50, 200)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = ap.parse_args()
    rows, recs = [], []
    with Device(0) as dev, dev.create_event() as e0, dev.create_event() as e1:
        env = collect(dev)
        for n in (1 << 20, 1024):
            with Chain(dev, n=n) as ch:
                per_iter = time_mode(ch, "graph", 1000, e0, e1)[1]
                samples = {lead: [] for lead in LEADS_MS}
                for _ in range(5):
                    for lead in LEADS_MS:  # interleaved
                        ch.run("eager", 5000)  # about 100 ms of half-idle GPU first
                        k = int(lead * 1e3 / per_iter)
                        if k:
                            ch.run("graph", k)
                        samples[lead].append(time_mode(ch, "graph", 5000, e0, e1)[1])
                assert ch.check_result("graph").ok
                for lead in LEADS_MS:
                    s = summarize(samples[lead], unit="us", clock="cuEventElapsedTime")
                    rows.append([n, lead, f"{s.median:.3f}", f"{s.p5:.3f}-{s.p95:.3f}"])
                    recs.append({"size": n, "lead_ms": lead, "graph_us_per_iter": s.to_dict()})
    print(format_table(["size", "lead-in ms", "graph us/iter", "p5-p95"], rows))
    gpu = env["gpu"]["name"].replace("NVIDIA ", "").replace(" ", "-")
    path = write_json(os.path.join(args.out, f"{datetime.date.today()}_{gpu}_lead_in.json"),
                      {"kind": "cugraphlab.benchmark.lead_in", "env": env, "rows": recs})
    print(f"written: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
