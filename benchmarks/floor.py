"""The floor of the chain on one GPU, in one process (about a minute on an H200): the README "floor" table.

Checks first: the PDL-early chain (``-DCGL_PDL_EARLY``) eager and as a graph of 1 and of 50 iterations, bit-exact
against NumPy at 1,024 and 2^20 floats; the cost of ``cuGraphExecUpdate`` through the binding and through ctypes
(``bench.update``), each path checked bit-exact. Then ``bench.floor.measure_floor`` at 2^20 and 1,024 floats: per
kernel busy time and gap (%globaltimer), graph boundary, graph and fused per iteration (warm and cold L2), host cost
per launch Python vs C, PDL and PDL-early graphs beside the plain one (and 50 iterations per graph at 1,024 floats),
against the L2 and DRAM copy roofs. The floor table is printed last.

Usage (from the repo root, the package installed): python3 benchmarks/floor.py OUT.json [--quick]
"""
from __future__ import annotations

import argparse
import time

import cugraphlab as cgl
from cugraphlab.bench.floor import measure_floor
from cugraphlab.bench.update import CTYPES_PATH, measure_update_costs
from cugraphlab.experiment.chain import Chain
from cugraphlab.experiment.pdl import PdlChain
from cugraphlab.report.files import write_json
from cugraphlab.report.floor import render_floor

OPS = ("add", "mul", "sub", "relu")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", help="where to write the records (JSON)")
    ap.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args()
    t0 = time.perf_counter()
    checks = []
    with cgl.Device(args.device) as dev:
        for n in (1024, 1 << 20):
            with PdlChain(dev, OPS, n, seed=n, early=True) as early:
                for mode, iters, unroll in (("eager", 3, 1), ("graph", 3, 1), ("graph", 100, 50)):
                    v = early.verify(mode, iters, unroll)
                    checks.append({"what": f"PDL early {mode} x{unroll}", "size": n, "ok": v.ok, "text": str(v)})
        with Chain(dev, OPS, 1 << 20, seed=7) as chain:
            upd = measure_update_costs(chain, 200 if not args.quick else 40)
        for path, s in upd.costs.items():
            checks.append({"what": f"update {path}: {s.median:.2f} us", "size": 1 << 20, "ok": upd.verified[path],
                           "text": f"p5-p95 {s.p5:.2f}-{s.p95:.2f} us ({upd.clock})"})
        floor = measure_floor(dev, iters=2000 if not args.quick else 200, repeats=5 if not args.quick else 2,
                              progress=None)
    seconds = time.perf_counter() - t0
    write_json(args.json, {"kind": "cugraphlab.benchmarks.floor", "checks": checks, "update": upd.to_dict(),
                           "floor": floor.to_dict(), "seconds": seconds})
    for c in checks:
        print(f"{'ok  ' if c['ok'] else 'FAIL'} {c['what']} ({c['size']:,} floats): {c['text']}")
    ctypes_row = upd.costs.get(CTYPES_PATH)
    if ctypes_row is not None:
        print(f"cuGraphExecUpdate: binding {upd.costs['exec_update'].median:.2f} us, ctypes {ctypes_row.median:.2f} us "
              f"(goal <= 0.5 us)")
    print()
    print(render_floor(floor))
    ok = all(c["ok"] for c in checks) and floor.verified
    print(f"\n{'all checks bit-exact' if ok else 'A CHECK FAILED'}; {seconds:.1f} s; JSON: {args.json}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
