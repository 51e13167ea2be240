"""IF/ELSE and SWITCH conditional nodes and captured WHILE bodies on one GPU, in one go (about a minute on an H200).

Checks first (each one launch on fresh inputs, bit-exact against NumPy, only the chosen body written): the
``cugraphlab graph`` views ifelse, switch and while-captured. Then ``cugraphlab switch`` at 1,024 and at 1,048,576
floats (which also runs every branch, size, sweep and captured-loop check), with the sweep over SWITCHes of 1, 2, 3,
4 and 8 identical chains (bench.graphs.switch_sweep) and the holding costs, rendered in full, then a short table last:
the main rows, the sweep's contrasts (A - B per round, paired) and the goals with their verdicts. About 60-80 s on
an H200.

Usage (from the repo root, the package installed): python3 benchmarks/switch.py OUT [--quick]
OUT ending in .json: the records go there; otherwise OUT is a folder (made if missing) that receives switch.json
and switch.log (everything printed).
"""
from __future__ import annotations

import argparse
import faulthandler
import sys
import time
from pathlib import Path

import cugraphlab as cgl
from cugraphlab.bench.graphs.switch import measure_switch
from cugraphlab.bench.scripts import require_gpu
from cugraphlab.core.files import write_json
from cugraphlab.experiment.switch_views import SWITCH_VIEW_MODES, inspect_mode
from cugraphlab.report.graphs import render_graph
from cugraphlab.report.switch import render_switch
from cugraphlab.report.tables import format_table

faulthandler.enable()  # a crash inside the driver or ctypes prints the Python stack of every thread, then dies

OPS = ("add", "mul", "sub", "relu")


#: this benchmark's goals are the record's three claims (SWITCH no dearer than one IF; one SWITCH for K sizes
#: cheaper to instantiate and to hold than K graphs): a goal is met where the record shows its claim
def goal_word(claim: dict) -> str:
    return {"shown": "met", "opposite shown": "NOT met"}.get(claim["verdict"], claim["verdict"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="a .json file for the records, or a folder for switch.json and switch.log")
    ap.add_argument("--quick", action="store_true", help="fewer launches (a smoke run)")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--sizes", default="1024,1048576", help="float32 sizes, comma-separated (default 1024,1048576)")
    args = ap.parse_args()
    require_gpu(__file__, args.device)  # before anything is created: no GPU is one line, exit 2
    if args.out.endswith(".json"):
        json_path, log_path = Path(args.out), None
    else:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        json_path, log_path = Path(args.out) / "switch.json", Path(args.out) / "switch.log"
    printed = []

    def say(*parts) -> None:
        text = " ".join(str(p) for p in parts)
        print(text, flush=True)
        printed.append(text)

    t0 = time.perf_counter()
    try:
        return _run(args, json_path, say, t0)
    finally:
        if log_path is not None:
            log_path.write_text("\n".join(printed) + "\n")


def _run(args, json_path, say, t0) -> int:
    views = []
    for mode in SWITCH_VIEW_MODES:
        report = inspect_mode(mode, OPS, 4096, args.device)
        say(render_graph(report), "\n")
        views.append({"mode": mode, "ok": report.ok, "title": report.title, "notes": report.notes})
    # (floats, launches per timed loop, rounds); the rounds must be 6 or more for a paired verdict
    sizes = [int(x) for x in args.sizes.split(",")]
    plans = [(n, 2000 if n <= 1 << 16 else 1000, 15 if n <= 1 << 16 else 12) if not args.quick else (n, 100, 6)
             for n in sizes]
    results = []
    with cgl.Device(args.device) as dev:
        for size, iters, rounds in plans:
            t1 = time.perf_counter()
            r = measure_switch(dev, size=size, branches=4, iters=iters, repeats=rounds,
                               holding_repeats=30 if not args.quick else 6,
                               holding_batch=256 if not args.quick else 16, seed=size)
            say(render_switch(r), "\n")
            say(f"({size:,} floats measured in {time.perf_counter() - t1:.1f} s)\n")
            results.append(r)
    write_json(str(json_path), {"kind": "cugraphlab.study.switch", "views": views,
                                "records": [r.to_dict() for r in results], "seconds": time.perf_counter() - t0})
    rows = []
    for r in results:
        g = r.claims()
        n = r.config["size"]
        for name in ("no conditional", "IF node", "SWITCH, index 0", "SWITCH, index 3", "SWITCH, index 4 (no body)",
                     "4 IF nodes, index 0", "4 IF nodes, index 3", "IF over chain #0 (cond_one_hot)",
                     "IF over chain #0 (cond_switch)", "SWITCH of 1 chain, index 0", "SWITCH of 4 chains, index 0",
                     "SWITCH of 4 chains, index 3", "SWITCH of 8 chains, index 0", "SWITCH, chain last, index 3"):
            x = r.row(name)
            rows.append([f"{n:,}", name, f"{x.device_us.median:.2f}", f"{x.host_us.median:.2f}",
                         "bit-exact" if x.verified else "FAILED"])
        s, k = r.holding
        gi, gm, sw = g["sizes_instantiate"], g["sizes_memory"], g["switch_vs_one_if"]
        rows.append([f"{n:,}", f"instantiate: 1 SWITCH / {k.execs} graphs", f"{s.instantiate_us.median:.1f}",
                     f"{k.instantiate_us.median:.1f}", goal_word(gi)])
        rows.append([f"{n:,}", f"memory KiB per copy: 1 SWITCH / {k.execs} graphs",
                     f"{gm['switch_per_set'] / 1024:.1f}", f"{gm['graphs_per_set'] / 1024:.1f}", goal_word(gm)])
        rows.append([f"{n:,}", "goal: SWITCH <= one IF (device)", f"{sw['switch_us']:.2f}", f"{sw['if_us']:.2f}",
                     goal_word(sw)])
    ok = all(v["ok"] for v in views) and all(r.verified for r in results)
    say(format_table(["floats", "graph", "device us / A", "host us / B", "check"], rows, align="llrrl"))
    crow = []
    for r in results:
        for c in r.contrasts():
            crow.append([f"{r.config['size']:,}", c["label"], f"{c['median']:+.2f}",
                         f"{c['lo']:+.2f} .. {c['hi']:+.2f}", f"{c['above']}/{c['n']}", f"{c['p_sign']:.2g}",
                         {"same": "none shown", "lower": "A < B", "higher": "A > B"}[c["direction"]]])
    if crow:
        say("\nwhy SWITCH costs what it costs: A - B, device us per launch, paired per round")
        say(format_table(["floats", "A - B", "median", "interval", "A > B", "sign p", "difference"], crow,
                         align="llrrrrl"))
    for r in results:
        g = r.claims()
        for key in ("switch_vs_one_if", "sizes_instantiate", "sizes_memory"):
            say(f"{r.config['size']:,} floats, goal {key}: {goal_word(g[key])} ({g[key]['reason']})")
    say(f"\n{'all checks passed' if ok else 'SOME CHECK FAILED'}; {time.perf_counter() - t0:.1f} s; "
        f"records in {json_path}")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (cgl.NoDeviceError, cgl.UnsupportedError) as e:
        print(f"cannot run: {e}", file=sys.stderr)
        sys.exit(2)
