"""The node lessons on one GPU in one go: every check of the GPU tests, then the measured rows, a short table last.

    python benchmarks/nodes.py OUT.json [--size N] [--device N]

Runs each lesson's bit-exact checks (host nodes with Python and C callbacks, explicit and captured; the two-graph
event hand-off and the event-timed segments; flat, nested and cloned chains; the empty join; mul disabled and
enabled again; node priorities with instantiate+upload in one call; the refused device-launch instantiate), then
bench.graphs.nodes.measure_nodes, writes the record (with the checks) to OUT.json and exits 0 only if everything was
bit-exact. Under 90 s on an H200.
"""
from __future__ import annotations

import argparse
import faulthandler
import time

import cugraphlab as cgl
from cugraphlab.bench.graphs.nodes import measure_nodes
from cugraphlab.bench.scripts import require_gpu, run_main
from cugraphlab.core.files import write_json
from cugraphlab.experiment import nodes as lessons
from cugraphlab.report.nodes import render_nodes

faulthandler.enable()  # a crash inside the driver or ctypes prints the Python stack of every thread, then dies


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("json", help="where to write the record")
    p.add_argument("--size", type=int, default=1 << 20)
    p.add_argument("--device", type=int, default=0)
    args = p.parse_args()
    require_gpu(__file__, args.device)  # before anything is created: no GPU is one line, exit 2
    t0 = time.perf_counter()
    checks = []
    with cgl.Device(args.device) as dev:
        with cgl.Chain(dev, n=args.size) as chain:
            for fn in (lessons.check_host, lessons.check_events, lessons.check_nested, lessons.check_clone,
                       lessons.check_join, lessons.check_toggle, lessons.check_priority):
                r = fn(chain)
                print(r, flush=True)
                checks.append({"lesson": r.lesson, "ok": r.ok, "text": str(r)})
            refused = lessons.refused_instantiate(chain)
            ok = refused is not None and refused.node_label == "HOST"
            print(f"refused instantiate: {refused}", flush=True)
            checks.append({"lesson": "instantiate", "ok": ok, "text": str(refused)})
        result = measure_nodes(dev, args.size, repeats=5, iters=100, calls=500,
                               progress=lambda m: print(f"[{time.perf_counter() - t0:5.1f} s] {m}", flush=True))
    record = result.to_dict()
    record["lesson_checks"] = checks
    write_json(args.json, record)
    print()
    print(render_nodes(result))
    all_ok = result.verified and all(c["ok"] for c in checks)
    print(f"\n{'all checks bit-exact' if all_ok else 'SOME CHECKS FAILED'}; {time.perf_counter() - t0:.1f} s; "
          f"record written to {args.json}")
    return 0 if all_ok else 1


if __name__ == "__main__":
    run_main(main, __file__)
