"""cuGraphExecUpdate from C and from Python, paired in one process (issue 18; under a minute on an H200).

Why: the floor run read 2.01 µs through cuda.bindings and 2.04 µs through ctypes for one update, against 0.15 µs
quoted for C. ``studies.exec_update.measure.measure_exec_update`` times, on one executable and the same source graphs,
interleaved round by round: a C loop (cuGraphExecUpdate_v2, CLOCK_MONOTONIC in C), the binding, the binding timed
call by call (as ``bench.graphs.update`` samples), ctypes with argtypes, ctypes as a bound partial (``DirectExecUpdate``
now), ``try_exec_update``, and the native ways (``studies.exec_update.native_update``: ``NativeExecUpdate.fire()``, a builtin
whose C body is the one driver call, and ``NativeKernelNodeSetParams.fire()`` once per kernel node); on three cases:
the executable's own graph, a graph with the same argument values, and graphs whose arguments change every call.
Every way is then checked bit-exact (update to set B, launch, compare; back to A, compare). Then
``bench.graphs.update.measure_update_costs`` once on the same chain, so its rows (one call per sample, alternating sets)
sit beside the paired ones.

Usage (repo root, package installed):  python3 benchmarks/studies/exec_update/run.py OUT_DIR [--quick]
Writes OUT_DIR/exec_update.log (what is printed) and OUT_DIR/exec_update.json (both records).
"""
from __future__ import annotations

import argparse
import sys as _sys
import time
from pathlib import Path
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))  # benchmarks/, where the studies package lives

import cugraphlab as cgl
from cugraphlab.bench.graphs.update import measure_update_costs
from cugraphlab.core.files import write_json
from cugraphlab.experiment.chain import Chain
from studies.exec_update.measure import C_WAY, measure_exec_update
from studies.exec_update.native import NATIVE_SET_PARAMS, NATIVE_UPDATE
from studies.exec_update.report import GOAL_US, render_exec_update

OPS = ("add", "mul", "sub", "relu")


def native_lines(paired) -> list[str]:
    """Per case: the native update against C and the goal; node-by-node set params against the native update."""
    if paired.config.get("native_ways") != "built":
        return [f"native ways: not measured ({paired.config.get('native_ways')})"]
    out = []
    for case in dict.fromkeys(r.case for r in paired.rows):
        rows = {r.way: r for r in paired.rows if r.case == case and r.us is not None}
        nat, sp, c = rows.get(NATIVE_UPDATE), rows.get(NATIVE_SET_PARAMS), rows.get(C_WAY)
        if nat is None:
            continue
        text = f"{case}: native {nat.us.median:.3f} us"
        if c is not None and nat.minus_c is not None:
            text += f" (C {c.us.median:.3f} us, native adds {nat.minus_c.median:+.3f})"
        text += f", goal <= {GOAL_US} us {'met' if nat.us.median <= GOAL_US else 'not met'}"
        if sp is not None:
            text += (f"; {paired.config['kernel_nodes']} native set params {sp.us.median:.3f} us per update "
                     f"({sp.us.median - nat.us.median:+.3f} against one native update)")
        out.append(text + ".")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", help="folder for exec_update.log and exec_update.json (made if missing)")
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--size", type=int, default=1 << 20, help="floats per array (the update does not depend on it)")
    args = ap.parse_args()
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with cgl.Device(args.device) as dev, Chain(dev, OPS, args.size, seed=11) as chain:
        paired = measure_exec_update(chain, k=50, rounds=60 if args.quick else 1000, seed=11)
        old = measure_update_costs(chain, 40 if args.quick else 400, seed=12)
    seconds = time.perf_counter() - t0
    lines = [render_exec_update(paired), "", *native_lines(paired), "",
             "bench.graphs.update on the same chain (one call per sample, perf_counter_ns around each, sets "
             "alternating: every update changes the arguments):"]
    for path, s in old.costs.items():
        lines.append(f"  {path:<24} {s.median:8.3f} us  p5-p95 {s.p5:.3f}-{s.p95:.3f}  "
                     f"{'bit-exact' if old.verified[path] else 'FAILED'}")
    ok = paired.verified and all(old.verified.values())
    lines.append(f"\n{'all checks bit-exact' if ok else 'A CHECK FAILED'}; {seconds:.1f} s")
    text = "\n".join(lines)
    print(text)
    (out / "exec_update.log").write_text(text + "\n")
    write_json(str(out / "exec_update.json"), {"kind": "cugraphlab.study.exec_update", "paired": paired.to_dict(),
                                               "update": old.to_dict(), "seconds": seconds})
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
