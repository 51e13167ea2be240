"""The WHILE chain with its decision folded into the body's last kernel, with PDL edges in that body, and with
a decision every K iterations, against the separate decision kernel, an unrolled graph and graphs with no decision
at all (about 60 s on an H200).

    WHILE, separate decision:  body add -> mul -> sub -> relu -> conditional(h, state, N)    5 kernel nodes
    WHILE, decision folded:    body add -> mul -> sub -> cond_relu(out, t3, n, h, state, N)   4 kernel nodes
    WHILE, folded, PDL edges:  body add =P=> mul =P=> sub =P=> cond_relu (-DCGL_PDL kernels)  3 programmatic edges
    ..., decision every 10:    body of 10 chains (PDL edges), cond_relu_step counting 10      40 kernel nodes
    unrolled graph x50:        N/50 cuGraphLaunch of a graph holding 50 chains               no decision
    graphs, no decision:       N cuGraphLaunch of the chain's graph                          no decision (floor)

"Decision every K iterations" is exact only for a counted loop whose count is a multiple of K (here N = 1000, K =
10); other counts are refused. A driver that refuses programmatic edges inside a conditional body says so in one
line (ProgrammaticEdgesRefused: "REFUSED" below), and the PDL rows are left out; the other rows still run.

Checks first, each one launch on fresh random inputs with poisoned outputs, bit-exact against NumPy and the body
run exactly N times: every WHILE body at 1,024, 2^20 and 1,000,003 floats (the scalar tail) for N = 1, 3, 100
(the PDL body both captured and built node by node; the every-K body for N = 10, 30, 1000).
Then bench.graphs.conditional.measure_while at 1,024 and 2^20 floats (every variant interleaved per repeat in this one
process, each repeat on fresh inputs and checked), and the table last: µs per iteration, device clock
(cuEventElapsedTime over the whole loop / N) and wall clock (perf_counter_ns around enqueue + synchronize / N).

Usage (from the repo root, the package installed): python3 benchmarks/while_fold.py OUTDIR [--quick]
Writes OUTDIR/while_fold.json and OUTDIR/while_fold.log (the printed text).
"""
from __future__ import annotations

import argparse
import faulthandler
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

import cugraphlab as cgl
from cugraphlab.bench.graphs.conditional import WHILE_FOLDED, WHILE_PDL, every_name, measure_while, unrolled_name
from cugraphlab.bench.scripts import require_gpu
from cugraphlab.core.files import Tee, write_json
from cugraphlab.experiment.chain import Chain
from cugraphlab.experiment.conditional import conditional_graphs
from cugraphlab.graphs.pdl_edges import ProgrammaticEdgesRefused
from cugraphlab.report.graphs import render_conditional
from cugraphlab.report.tables import format_table

faulthandler.enable()  # a crash inside the driver prints the Python stack of every thread, then dies

OPS = ("add", "mul", "sub", "relu")
UNROLL = 50
EVERY = 10  # the every-K body: K chain iterations, one decision counting K (1000 iterations: a multiple of 10)
GOAL_US = 11.5  # issue 15: WHILE chain at 2^20 floats <= 11.5 us per iteration (device clock)
ROWS = (("WHILE, separate decision", "WHILE node"), ("WHILE, decision folded", WHILE_FOLDED),
        ("WHILE, folded, PDL edges", WHILE_PDL),
        (f"WHILE, folded, PDL edges, decision every {EVERY} iterations", every_name(EVERY, True)),
        (f"unrolled graph x{UNROLL}", unrolled_name(UNROLL)), ("graphs, no decision", "graphs, no decision"))
# (label, run_while keywords, iteration factor): the bodies checked; the every-K one runs K x the counts
BODIES = (("separate", {}, 1), ("folded", {"fold": True}, 1),
          ("folded, PDL edges (captured)", {"fold": True, "pdl": True, "how": "capture"}, 1),
          ("folded, PDL edges (node by node)", {"fold": True, "pdl": True, "how": "nodes"}, 1),
          (f"folded, PDL edges, decision every {EVERY} iterations", {"fold": True, "pdl": True, "every": EVERY},
           EVERY))


def checks(dev, quick: bool) -> tuple[list[dict], list[str]]:
    out, refused = [], []
    for size in (1024, 1 << 20, 1_000_003):
        with Chain(dev, OPS, size, seed=size) as chain:
            kit = conditional_graphs(chain)
            for n in ((1, 3) if quick else (1, 3, 100)):
                for label, kw, factor in BODIES:
                    iterations = n * factor
                    try:
                        c = kit.run_while(iterations, **kw)
                    except ProgrammaticEdgesRefused as e:
                        if str(e) not in refused:
                            refused.append(str(e))
                            print(f"REFUSED {label}: {e}")
                        continue
                    st = kit.read_state()
                    ok = c.ok and st.count == iterations and st.keep_going == 0
                    out.append({"size": size, "iterations": iterations, "body": label, "ok": ok,
                                "count": st.count, "text": str(c)})
                    print(("ok   " if ok else "FAIL ") + f"{size:>9,} floats, {label}: {c}")
    return out, refused


def run(args, outdir: Path) -> int:
    t0 = time.perf_counter()
    results = []
    with cgl.Device(args.device) as dev:
        print(f"{dev.describe()}; cugraphlab {cgl.__version__}")
        checked, refused = checks(dev, args.quick)
        iters = 200 if args.quick else 1000
        for size in (1024, 1 << 20):
            r = measure_while(dev, size=size, iters=iters, repeats=3 if args.quick else 9, seed=size,
                              unroll=UNROLL, pdl=True, decide_every=EVERY)
            print("\n" + render_conditional(r))
            print("folded body:\n" + str(r.config["while_folded_body"]))
            print("folded body with PDL edges:\n" + str(r.config["while_pdl_body"] or r.config["pdl_refused"]))
            results.append(r)
    rows = []
    for r in results:
        size = r.config["size"]
        names = {v.name for v in r.variants}
        for label, name in ROWS:
            if name not in names:  # a PDL row the driver refused
                rows.append([f"{size:,}", label, "-", "-", "-", "-", "refused"])
                continue
            v = r.variant(name)
            d, w = v.device_us_per_iter, v.wall_us_per_iter
            rows.append([f"{size:,}", label, f"{d.median:.2f}", f"{d.p5:.2f}-{d.p95:.2f}", f"{w.median:.2f}",
                         ("yes" if v.iterations_ok else "NO") if name.startswith("WHILE") else "-",
                         "bit-exact" if v.verified else f"FAILED ({v.mismatches})"])
    big = results[-1]
    big_names = {v.name for v in big.variants}
    sep, fold = (big.variant(n).device_us_per_iter.median for n in ("WHILE node", WHILE_FOLDED))
    pdl = big.variant(WHILE_PDL).device_us_per_iter.median if WHILE_PDL in big_names else None
    every_row = every_name(EVERY, True)
    every = big.variant(every_row).device_us_per_iter.median if every_row in big_names else None
    ok = all(c["ok"] for c in checked) and all(r.verified for r in results)
    print()
    print(format_table(["floats", "loop", "device us/iter", "p5-p95", "wall us/iter", "count ok", "vs NumPy"],
                       rows, align="llrrrll"))
    print(f"\nclocks: device = cuEventElapsedTime over the loop / {big.config['iterations']}; wall = "
          f"perf_counter_ns around enqueue + synchronize / {big.config['iterations']}; median of "
          f"{big.config['repeats']} interleaved repeats.")
    print(f"goal at {1 << 20:,} floats: WHILE <= {GOAL_US} us/iter: separate {sep:.2f}, folded {fold:.2f} "
          f"({'met' if fold <= GOAL_US else 'NOT met'}; folding saved {sep - fold:+.2f} us/iter)")
    if pdl is not None:
        print(f"  folded with PDL edges {pdl:.2f} ({'met' if pdl <= GOAL_US else 'NOT met'}; PDL saved "
              f"{fold - pdl:+.2f} us/iter against the folded body)")
    if every is not None:
        print(f"  PDL edges, decision every {EVERY} iterations {every:.2f} "
              f"({'met' if every <= GOAL_US else 'NOT met'}; exact only for counts that are multiples of {EVERY})")
    for line in refused or ([big.config["pdl_refused"]] if big.config.get("pdl_refused") else []):
        print(f"  REFUSED: {line}")
    write_json(outdir / "while_fold.json", {
        "kind": "cugraphlab.study.while_fold", "checks": checked, "refused": refused,
        "records": [r.to_dict() for r in results],
        "goal": {"size": 1 << 20, "goal_us": GOAL_US, "separate_us": sep, "folded_us": fold,
                 "pdl_us": pdl, "every_us": every, "every": EVERY,
                 "met": min(x for x in (fold, pdl) if x is not None) <= GOAL_US},
        "seconds": time.perf_counter() - t0})
    print(f"\n{'all checks passed' if ok else 'SOME CHECK FAILED'}; {time.perf_counter() - t0:.1f} s; "
          f"results in {outdir}")
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", help="folder for while_fold.json and while_fold.log")
    ap.add_argument("--quick", action="store_true", help="fewer launches (a smoke run)")
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args()
    require_gpu(__file__, args.device)  # before anything is created: no GPU is one line, exit 2
    outdir = Path(args.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    with open(outdir / "while_fold.log", "w") as log, redirect_stdout(Tee(sys.stdout, log)):
        return run(args, outdir)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (cgl.NoDeviceError, cgl.UnsupportedError) as e:
        print(f"cannot run: {e}", file=sys.stderr)
        sys.exit(2)
