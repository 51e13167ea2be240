"""IF/ELSE and SWITCH conditional nodes and captured WHILE bodies on one GPU, in one go (about a minute on an H200).

Checks first (each one launch on fresh inputs, bit-exact against NumPy, only the chosen body written): the
``cugraphlab graph`` views ifelse, switch and while-captured. Then ``cugraphlab switch`` at 1,024 and at 1,048,576
floats (which also runs every branch, size and captured-loop check), rendered in full, then a short table last.

Usage (from the repo root, the package installed): python3 benchmarks/switch.py OUT.json [--quick]
"""
from __future__ import annotations

import argparse
import faulthandler
import sys
import time

import cugraphlab as cgl
from cugraphlab.bench.switch import measure_switch
from cugraphlab.experiment.switch_views import SWITCH_VIEW_MODES, inspect_mode
from cugraphlab.report.files import write_json
from cugraphlab.report.graphs import render_graph
from cugraphlab.report.switch import render_switch
from cugraphlab.report.tables import format_table

faulthandler.enable()  # a crash inside the driver or ctypes prints the Python stack of every thread, then dies

OPS = ("add", "mul", "sub", "relu")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", help="where to write the records (JSON)")
    ap.add_argument("--quick", action="store_true", help="fewer launches (a smoke run)")
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args()
    t0 = time.perf_counter()
    views = []
    for mode in SWITCH_VIEW_MODES:
        report = inspect_mode(mode, OPS, 4096, args.device)
        print(render_graph(report), "\n")
        views.append({"mode": mode, "ok": report.ok, "title": report.title, "notes": report.notes})
    plans = [(1024, 2000 if not args.quick else 200), (1 << 20, 1000 if not args.quick else 100)]
    results = []
    with cgl.Device(args.device) as dev:
        for size, iters in plans:
            r = measure_switch(dev, size=size, branches=4, iters=iters, repeats=5 if not args.quick else 2,
                               holding_repeats=20 if not args.quick else 3, seed=size)
            print(render_switch(r), "\n")
            results.append(r)
    write_json(args.json, {"kind": "cugraphlab.benchmarks.switch", "views": views,
                           "records": [r.to_dict() for r in results], "seconds": time.perf_counter() - t0})
    rows = []
    for r in results:
        g = r.goals()
        n = r.config["size"]
        for name in ("no conditional", "IF node", "SWITCH, index 0", "SWITCH, index 3", "SWITCH, index 4 (no body)",
                     "4 IF nodes, index 0", "4 IF nodes, index 3"):
            x = r.row(name)
            rows.append([f"{n:,}", name, f"{x.device_us.median:.2f}", f"{x.host_us.median:.2f}",
                         "bit-exact" if x.verified else "FAILED"])
        s, k = r.holding
        rows.append([f"{n:,}", f"instantiate: 1 SWITCH / {k.execs} graphs", f"{s.instantiate_us.median:.1f}",
                     f"{k.instantiate_us.median:.1f}", "met" if g["sizes_instantiate"]["met"] else "NOT met"])
        rows.append([f"{n:,}", f"memory MiB: 1 SWITCH / {k.execs} graphs", f"{s.memory_median / 2**20:.2f}",
                     f"{k.memory_median / 2**20:.2f}", "met" if g["sizes_memory"]["met"] else "NOT met"])
        sw = g["switch_vs_one_if"]
        rows.append([f"{n:,}", "goal: SWITCH <= one IF (device)", f"{sw['switch_us']:.2f}", f"{sw['if_us']:.2f}",
                     "met" if sw["met"] else "NOT met"])
    ok = all(v["ok"] for v in views) and all(r.verified for r in results)
    print(format_table(["floats", "graph", "device us / A", "host us / B", "check"], rows, align="llrrl"))
    print(f"\n{'all checks passed' if ok else 'SOME CHECK FAILED'}; {time.perf_counter() - t0:.1f} s; "
          f"records in {args.json}")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (cgl.NoDeviceError, cgl.UnsupportedError) as e:
        print(f"cannot run: {e}", file=sys.stderr)
        sys.exit(2)
