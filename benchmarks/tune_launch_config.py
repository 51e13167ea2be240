"""Which grid and block shape runs the chain fastest? Device time per iteration of the chain graph.

For each size and (block, blocks-per-SM cap): the chain captured once per iteration, replayed ITERS times; CUDA events
around the loop (device clock), median of REPEATS loops, each on fresh random inputs and checked bit-exact after.
Usage (with the package installed, from the repo root): python3 benchmarks/tune_launch_config.py [--out DIR]
"""
from __future__ import annotations

import argparse
import datetime
import os
import sys
from pathlib import Path

from cugraphlab import Chain, Device, NoDeviceError
from cugraphlab.bench.records.environment import collect
from cugraphlab.bench.stats.summary import summarize
from cugraphlab.bench.timing import time_mode
from cugraphlab.core.files import write_json
from cugraphlab.report.tables import format_table

ITERS, REPEATS = 2000, 5
SIZES = (1024, 1 << 20, 1 << 22)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = ap.parse_args()
    rows, recs = [], []
    with Device(0) as dev, dev.load_kernels() as ks, dev.create_event() as e0, dev.create_event() as e1:
        env = collect(dev)
        for size in SIZES:
            for block in (64, 128, 256, 512, 1024):
                for bps in (1, 2, 4, 8, 32):
                    with Chain(dev, n=size, kernels=ks, block=block, blocks_per_sm=bps) as ch:
                        for mode in ("graph", "fused"):
                            ch.run(mode, 200)
                            dev_us, wall_us = [], []
                            ok = True
                            for _ in range(REPEATS):
                                ch.poison()
                                w, d = time_mode(ch, mode, ITERS, e0, e1)
                                wall_us.append(w)
                                dev_us.append(d)
                                ok &= ch.check_result(mode).ok
                            s = summarize(dev_us, unit="us", clock="cuEventElapsedTime")
                            recs.append({"size": size, "block": block, "blocks_per_sm": bps, "grid": ch.grid,
                                         "mode": mode, "device_us_per_iter": s.to_dict(), "bit_exact": ok})
                            rows.append([size, block, bps, ch.grid, mode, f"{s.median:.3f}",
                                         f"{s.p5:.3f}-{s.p95:.3f}", "yes" if ok else "NO"])
    print(format_table(["size", "block", "blocks/SM cap", "grid", "mode", "device us/iter", "p5-p95", "bit-exact"],
                       rows))
    for size in SIZES:
        for mode in ("graph", "fused"):
            best = min((r for r in recs if r["size"] == size and r["mode"] == mode),
                       key=lambda r: r["device_us_per_iter"]["median"])
            print(f"best {mode} at {size}: block {best['block']}, cap {best['blocks_per_sm']}/SM (grid "
                  f"{best['grid']}): {best['device_us_per_iter']['median']:.3f} us/iter")
    gpu = env["gpu"]["name"].replace("NVIDIA ", "").replace(" ", "-")
    path = write_json(os.path.join(args.out, f"{datetime.date.today()}_{gpu}_tune_launch_config.json"),
                      {"kind": "cugraphlab.study.tune_launch_config", "iters": ITERS, "repeats": REPEATS,
                       "clock": "cuEventElapsedTime around ITERS graph launches", "env": env, "rows": recs})
    print(f"written: {path}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except NoDeviceError as e:  # no driver or no GPU: one line and exit 2, as every command says it
        print(f"{Path(__file__).name}: no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
