"""The classic table: the 4-op chain (add, mul by 2.0, sub, relu; float32), 5000 iterations, eager vs graph, in
cugraphlab, CuPy and PyTorch side by side, at 1,048,576 and at 1,024 floats.

One ``cugraphlab.bench.compare.compare`` run over those three stacks: each stack in its own fresh process per round
(two rounds), the same seeded inputs everywhere, every loop checked bit for bit against NumPy. Figures are wall-clock
medians (perf_counter_ns from the first launch until the end event's synchronize returns), µs per iteration; device
times are in the JSON and CSV. A stack that is not installed gives a row saying so.

Usage (with the package installed, from the repo root): python3 benchmarks/classic.py [--out DIR] [--iters 5000]
Writes <out>/<date>_<gpu>_classic.json, .csv and .png/.svg.
"""
from __future__ import annotations

import argparse
import datetime
import os
import sys
import time

from cugraphlab.bench.compare import DEFAULT_SIZES, compare
from cugraphlab.bench.scripts import require_gpu, run_main
from cugraphlab.core.files import write_csv, write_json
from cugraphlab.report.compare import classic_rows, render_classic, render_compare

STACKS = ("cugraphlab", "cupy_ufunc", "torch")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"),
                    help="folder for the JSON, CSV and figures (default benchmarks/results)")
    ap.add_argument("--iters", type=int, default=5000, help="iterations per timed loop (default 5000)")
    ap.add_argument("--repeats", type=int, default=5, help="timed loops per way (default 5)")
    ap.add_argument("--rounds", type=int, default=2, help="processes per stack (default 2)")
    ap.add_argument("--device", type=int, default=0, help="CUDA device index (default 0)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the random inputs")
    ap.add_argument("--no-plot", action="store_true", help="skip the figures")
    args = ap.parse_args(argv)
    require_gpu(__file__, args.device)  # before the workers start: no GPU is one line, exit 2

    t0 = time.perf_counter()
    result = compare(list(DEFAULT_SIZES), args.iters, "add,mul,sub,relu", args.repeats, args.device, scalar=2.0,
                     seed=args.seed, stacks=STACKS, rounds=args.rounds)
    elapsed = time.perf_counter() - t0
    if not result.measured_rows:  # never write empty results
        print(f"classic: nothing was measured: {result.failure_summary()}", file=sys.stderr)
        return 2
    print(render_classic(result))
    print()
    print(render_compare(result))
    gpu = (result.env.get("gpu") or {}).get("name") or "gpu"
    stem = os.path.join(args.out, f"{datetime.date.today().isoformat()}_{gpu.replace('NVIDIA ', '').replace(' ', '-')}"
                                  "_classic")
    record = {**result.to_dict(), "seconds": elapsed, "classic": classic_rows(result)}
    written = [write_json(stem + ".json", record), write_csv(stem + ".csv", result.csv_rows())]
    if not args.no_plot:
        try:
            from cugraphlab.report.plots import PlotUnavailableError
            from cugraphlab.report.plots.compare import plot_compare_stacks

            written += plot_compare_stacks(result, stem)
        except PlotUnavailableError as e:
            print(f"figures skipped: {e}", file=sys.stderr)
    print(f"\n{elapsed:.1f} s; written: " + ", ".join(str(p) for p in written))
    return 0 if result.ok else 1


if __name__ == "__main__":
    run_main(main, __file__)
