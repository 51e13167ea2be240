"""The classic table: the 4-op chain (add, mul by 2.0, sub, relu; float32), 5000 iterations, eager vs graph,
in cugraphlab, CuPy and PyTorch side by side, at 1,048,576 and at 1,024 floats.

Everything comes from one ``cugraphlab.bench.baselines.compare`` run: per size, the seven ways (cugraphlab eager /
graph / fused, CuPy eager / graph, PyTorch eager / graph) are interleaved repeat by repeat, every loop is checked
bit for bit against NumPy, and the device-copy bandwidth is sampled between repeats. Figures are wall-clock
medians (perf_counter_ns from the first launch until the end event's synchronize returns), µs per iteration;
device-event times are in the JSON and CSV. CuPy / PyTorch rows say "not installed" where they are missing.

Usage (with the package installed, from the repo root): python3 benchmarks/classic.py [--out benchmarks/results] [--iters 5000] [--repeats 5]
Writes <out>/<date>_<gpu>_classic.json (rows, copy roof, environment: commit, GPU, driver, package versions),
<out>/<date>_<gpu>_classic.csv (one row per way and size) and <out>/<date>_<gpu>_classic.png/.svg.
"""
from __future__ import annotations

import argparse
import datetime
import os
import sys
import time

from cugraphlab.bench.compare import DEFAULT_SIZES
from cugraphlab.bench.compare import compare
from cugraphlab.report.files import write_csv, write_json
from cugraphlab.report.compare import classic_rows, render_classic, render_compare


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"),
                    help="folder for the JSON, CSV and figures (default benchmarks/results)")
    ap.add_argument("--iters", type=int, default=5000, help="iterations per timed loop (default 5000)")
    ap.add_argument("--repeats", type=int, default=5, help="timed loops per way (default 5)")
    ap.add_argument("--device", type=int, default=0, help="CUDA device index (default 0)")
    ap.add_argument("--sizes", default=",".join(str(s) for s in DEFAULT_SIZES),
                    help="comma list of float32 element counts (default 1048576,1024)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the random inputs")
    ap.add_argument("--no-plot", action="store_true", help="skip the figures")
    args = ap.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]

    t0 = time.perf_counter()
    result = compare(sizes, args.iters, "add,mul,sub,relu", args.repeats, args.device, scalar=2.0,
                     seed=args.seed)
    elapsed = time.perf_counter() - t0
    print(render_classic(result))
    print()
    print(render_compare(result))

    gpu = result.env.get("gpu", {}).get("name", "gpu").replace("NVIDIA ", "").replace(" ", "-")
    stem = os.path.join(args.out, f"{datetime.date.today().isoformat()}_{gpu}_classic")
    record = {**result.to_dict(), "kind": "cugraphlab.benchmark.classic", "seconds": elapsed,
              "classic": classic_rows(result)}
    written = [write_json(stem + ".json", record), write_csv(stem + ".csv", result.csv_rows())]
    if not args.no_plot:
        try:
            from cugraphlab.report.plots import PlotUnavailableError, plot_compare

            written += plot_compare(result.plot_rows(), stem)
        except PlotUnavailableError as e:
            print(f"figures skipped: {e}", file=sys.stderr)
    print(f"\n{elapsed:.1f} s; written: " + ", ".join(str(p) for p in written))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
