"""The floor of the chain on one GPU, in one process (about a minute on an H200): the README "floor" table.

Checks first: the PDL-early chain (``-DCGL_PDL_EARLY``) eager and as a graph of 1 and of 50 iterations, bit-exact
against NumPy at 1,024 and 2^20 floats; the cost of ``cuGraphExecUpdate`` through the binding and through ctypes
(``bench.graphs.update``), each path checked bit-exact. Then ``studies.floor.measure.measure_floor`` at 2^20 and 1,024
floats: per kernel busy time and gap (%globaltimer), graph boundary, graph and fused per iteration (warm and cold L2),
host cost per launch Python vs C, PDL and PDL-early graphs beside the plain one (and 50 iterations per graph at 1,024
floats), against the L2 and DRAM copy roofs. The floor table is printed last.

A chain made after other work in the same process reads its graph 9-12% slower than in a fresh process
(docs/studies/floor.md §2), so the plain / PDL / PDL-early graph table is also measured on its own
(``studies.floor.first.measure_graph_table``), by default as the very first work of the process: ``--first SECTION``
says which section runs first (graphs, checks, update, floor); the others follow in that order.

Usage (from the repo root, the package installed):
    python3 benchmarks/studies/floor/run.py OUT.json [--quick] [--first SECTION]
"""
from __future__ import annotations

import argparse
import sys as _sys
import time
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))  # benchmarks/, where the studies package lives

import cugraphlab as cgl
from cugraphlab.bench.graphs.update import CTYPES_PATH, measure_update_costs
from cugraphlab.core.files import write_json
from cugraphlab.experiment.chain import Chain
from cugraphlab.experiment.pdl import PdlChain
from studies.floor.first import measure_graph_table
from studies.floor.measure import measure_floor
from studies.floor.report import render_floor
from studies.floor.report_studies import render_graph_table

OPS = ("add", "mul", "sub", "relu")
#: The script's sections in their default order (``--first`` moves one to the front).
SECTIONS = ("graphs", "checks", "update", "floor")


def section_order(first: str) -> list[str]:
    """The sections in the order they run: ``first``, then the others in SECTIONS order."""
    if first not in SECTIONS:
        raise ValueError(f"unknown section {first!r}; sections: {', '.join(SECTIONS)}")
    return [first] + [s for s in SECTIONS if s != first]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", help="where to write the records (JSON)")
    ap.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--first", choices=SECTIONS, default="graphs",
                    help="the section measured first in the process (default: graphs, the plain/PDL/PDL-early "
                         "graph table on its own)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    checks = []
    order = section_order(args.first)
    seconds_by = {}
    upd = floor = graphs = None
    with cgl.Device(args.device) as dev:
        for section in order:
            t_s = time.perf_counter()
            if section == "graphs":
                graphs = measure_graph_table(dev, iters=2000 if not args.quick else 200,
                                             rounds=7 if not args.quick else 2)
            elif section == "checks":
                for n in (1024, 1 << 20):
                    with PdlChain(dev, OPS, n, seed=n, early=True) as early:
                        for mode, iters, unroll in (("eager", 3, 1), ("graph", 3, 1), ("graph", 100, 50)):
                            v = early.verify(mode, iters, unroll)
                            checks.append({"what": f"PDL early {mode} x{unroll}", "size": n, "ok": v.ok,
                                           "text": str(v)})
            elif section == "update":
                with Chain(dev, OPS, 1 << 20, seed=7) as chain:
                    upd = measure_update_costs(chain, 200 if not args.quick else 40)
                for path, s in upd.costs.items():
                    checks.append({"what": f"update {path}: {s.median:.2f} us", "size": 1 << 20,
                                   "ok": upd.verified[path], "text": f"p5-p95 {s.p5:.2f}-{s.p95:.2f} us ({upd.clock})"})
            else:
                floor = measure_floor(dev, iters=2000 if not args.quick else 200, repeats=5 if not args.quick else 2,
                                      progress=None)
            seconds_by[section] = time.perf_counter() - t_s
    seconds = time.perf_counter() - t0
    write_json(args.json, {"kind": "cugraphlab.study.floor", "order": order, "section_seconds": seconds_by,
                           "graphs": graphs.to_dict(), "checks": checks, "update": upd.to_dict(),
                           "floor": floor.to_dict(), "seconds": seconds})
    print(f"sections in order: {', '.join(f'{s} {seconds_by[s]:.1f} s' for s in order)}")
    print(render_graph_table(graphs, position=order.index("graphs")))
    print()
    for c in checks:
        print(f"{'ok  ' if c['ok'] else 'FAIL'} {c['what']} ({c['size']:,} floats): {c['text']}")
    ctypes_row = upd.costs.get(CTYPES_PATH)
    if ctypes_row is not None:
        print(f"cuGraphExecUpdate: binding {upd.costs['exec_update'].median:.2f} us, ctypes {ctypes_row.median:.2f} us "
              f"(goal <= 0.5 us)")
    print()
    print(render_floor(floor))
    ok = all(c["ok"] for c in checks) and floor.verified and graphs.verified
    print(f"\n{'all checks bit-exact' if ok else 'A CHECK FAILED'}; {seconds:.1f} s; JSON: {args.json}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
