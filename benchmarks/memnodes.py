"""Graph memory nodes on the GPU, in one go (the H200 run of issue 15's memory-node lesson).

Runs ``bench.memnodes.measure_memnodes`` at 1,048,576 and 1,024 floats (first launches cold and warm, 5000-launch
loops x 5 interleaved against the preallocated chain, the footprint walk, explicit = captured, address and physical
reuse, the unfreed-allocation lesson), then a lifetime check (20 MemChains dropped without close give their memory
back after gc.collect), prints the full report and a short table last, and writes the record as JSON.

Usage: python benchmarks/memnodes.py OUT.json [--iters N] [--repeats N] [--first-samples N]
Exit code: 0 when every output was bit-exact and every check of the lesson held as the driver documents, else 1.
"""
from __future__ import annotations

import argparse
import gc
import sys
import time

from cugraphlab import Device
from cugraphlab.bench.memnodes import MEM_ROW, PRE_ROW, measure_memnodes
from cugraphlab.experiment.memchain import MemChain
from cugraphlab.graphs.memory import graph_mem_footprint, trim_graph_mem
from cugraphlab.report.files import write_json
from cugraphlab.report.memnodes import fmt_bytes, render_memnodes
from cugraphlab.report.tables import format_table


def lifetime_check(dev, copies: int = 20, n: int = 1 << 18) -> dict:
    """Memory (cuMemGetInfo and the used graph footprint) back to where it was after dropped MemChains are collected."""
    warm = [MemChain(dev, n) for _ in range(copies)]
    for m in warm:
        m.run(2)
        m.close()
    del warm
    gc.collect()
    dev.synchronize()
    trim_graph_mem(dev)
    free0, used0 = dev.memory_info()[0], graph_mem_footprint(dev).used_current
    objs = [MemChain(dev, n, how="capture" if i % 2 else "explicit") for i in range(copies)]
    for m in objs:
        m.run(2)
    dev.synchronize()
    held = free0 - dev.memory_info()[0]
    del objs  # never closed
    gc.collect()
    dev.synchronize()
    used1 = graph_mem_footprint(dev).used_current
    trim_graph_mem(dev)
    left = free0 - dev.memory_info()[0]
    return {"held_bytes": held, "left_bytes": left, "used_before": used0, "used_after_gc": used1,
            "ok": abs(left) <= 2 << 20 and used1 == used0 and held > copies * n * 12}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", help="path of the JSON record")
    ap.add_argument("--iters", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--first-samples", type=int, default=10)
    a = ap.parse_args()
    t0 = time.perf_counter()
    with Device(0) as dev:
        result = measure_memnodes(dev, [1 << 20, 1024], a.iters, a.repeats, first_samples=a.first_samples,
                                  progress=lambda m: print(f"[memnodes] {m}", file=sys.stderr))
        life = lifetime_check(dev)
    print(render_memnodes(result))
    d = result.to_dict()
    d["lifetime"] = life
    d["elapsed_s"] = time.perf_counter() - t0
    write_json(a.out, d)
    rows = []
    for s in result.sizes:
        mem, pre = s.steady_row(MEM_ROW), s.steady_row(PRE_ROW)
        cold, warm, plain = s.first
        rows.append([f"{s.size:,}", f"{mem.device_us_per_iter.median:.2f}", f"{pre.device_us_per_iter.median:.2f}",
                     f"{s.overhead_pct:+.2f}%", "yes" if s.goal_met else "no",
                     f"{cold.complete_us.median:.0f}/{warm.complete_us.median:.0f}/{plain.complete_us.median:.0f}",
                     fmt_bytes(max(f.used_high for f in s.footprint)),
                     "yes" if s.address_reuse["ok"] else "no", "yes" if s.physical["ok"] else "no",
                     "yes" if s.mismatches == 0 else "NO"])
    print()
    print(format_table(["floats", "mem dev us/it", "prealloc dev us/it", "overhead", "<=2%",
                        "first launch us cold/warm/prealloc", "used high", "VA reuse", "phys reuse", "bit-exact"],
                       rows))
    print(f"unfreed lesson: {'ok' if result.unfreed.get('ok') else 'FAILED'} "
          f"(relaunch: {result.unfreed.get('relaunch_error')}, second exec: {result.unfreed.get('second_exec_error')});"
          f" lifetime: {'ok' if life['ok'] else 'FAILED'} ({fmt_bytes(life['left_bytes'])} left of "
          f"{fmt_bytes(life['held_bytes'])}); {d['elapsed_s']:.1f} s; record: {a.out}")
    checks = result.verified and life["ok"] and all(s.address_reuse["ok"] and s.physical["ok"] for s in result.sizes)
    return 0 if checks else 1


if __name__ == "__main__":
    sys.exit(main())
