"""What a CUDA graph costs as it grows, on the H200: the checks of tests/bench/test_scaling_gpu.py, the sweep.

1. checks (a few seconds): the chain as a line and as a fork/join of 3 branches, captured and built explicitly, is
   bit-exact against NumPy on poisoned outputs; a held stream runs nothing until released; a hold that is never
   released lets go by itself (so nothing can hang).
2. the sweep: lengths 1..4096 (doubling), straight line and fork/join of 1, 2, 4, 8, 16 branches, the empty kernel;
   the default sweep of ``cugraphlab scaling`` aims at 120 s, here at --budget (default 90 s) to stay well under 3
   minutes in all; ``--quick`` runs the quick preset instead; ``--chain`` adds a quick chain sweep.
3. Python against C, paired (bench.scaling): per line point (and fork/join from 4 to 128 nodes) the Python and the C
   cuGraphInstantiate on the same capture back to back, and Python and C held launches behind the same hold, in
   rounds over every point; a check line says whether the C loops ran (they need gcc or cc and libcuda.so.1).

Usage (with the package installed, from the repo root):
    python3 benchmarks/scaling.py OUT.json [--csv OUT.csv] [--plot STEM] [--quick] [--budget 90] [--chain]
Prints the report (the short table last: the verdict and goals) and writes the JSON record (plus CSV and figures).
"""
from __future__ import annotations

import argparse
import sys
import time

import cugraphlab as cgl
from cugraphlab.bench.probes.hold import DeviceHold
from cugraphlab.bench.scaling.paired import evaluate_goals
from cugraphlab.bench.scaling.sweep import make_plan, measure_scaling
from cugraphlab.bench.scripts import require_gpu, run_main
from cugraphlab.core.files import write_csv
from cugraphlab.experiment.scaling import ScalingWorkload, Shape
from cugraphlab.report.scaling import csv_rows, goal_lines, plot_scaling, render_scaling, write_scaling_json

#: the development goals this benchmark judges (the record keeps the figures, not these): host cuGraphLaunch, device
#: held, at most LAUNCH_GOAL_US from 4 to 128 nodes; Python's instantiate within INSTANTIATE_GOAL of C's, per node
LAUNCH_GOAL_US = 2.0
INSTANTIATE_GOAL = 0.10


def checks(dev) -> list[str]:
    """The GPU tests' checks, each a line; a failed one says FAILED."""
    out = []
    with ScalingWorkload(dev, "chain", max_width=3, n=(1 << 12) + 3, seed=11) as w:
        for shape in (Shape("line", 3), Shape("forkjoin", 7, 3)):
            for way, make in (("capture", w.capture), ("explicit", w.build)):
                with make(shape) as g:
                    structure = w.structure(g) == w.expected_structure(shape)
                    with g.instantiate() as exe:
                        exe.upload(w.stream)
                        v = w.verify(exe, shape)
                ok = structure and all(c.ok for c in v)
                out.append(f"{'ok' if ok else 'FAILED'}: chain {shape.label} by {way}: nodes/edges "
                           f"{'as expected' if structure else 'WRONG'}; " + "; ".join(str(c) for c in v))
    with dev.load_kernels(names=["empty", "hold"]) as ks, ScalingWorkload(dev, "empty", kernels=ks) as w, \
            DeviceHold(dev, ks, w.stream) as hold, w.capture(Shape("line", 16)) as g, g.instantiate() as exe:
        exe.upload(w.stream)
        r = hold.time_graph_launches(exe.handle, 32)
        ok = not r.timed_out and hold.was_released
        out.append(f"{'ok' if ok else 'FAILED'}: 32 held launches of a 16-node line: {r.host_us:.2f} µs host, "
                   f"{r.device_us:.2f} µs device per launch, released")
        hold.engage()
        exe.launch(w.stream)
        hold.mark_end()
        time.sleep(0.01)
        held = hold.slots[5] == 0
        t_rel, stamp, timed_out = hold.release()
        ok = held and not timed_out and stamp > t_rel
        out.append(f"{'ok' if ok else 'FAILED'}: the held stream ran nothing before its release")
    with dev.create_stream() as s, dev.load_kernels(names=["hold"]) as ks, DeviceHold(dev, ks, s,
                                                                                      timeout_ms=20) as hold:
        hold.engage()
        time.sleep(0.2)
        _t, _s, timed_out = hold.release()
        out.append(f"{'ok' if timed_out else 'FAILED'}: an unreleased hold let go by its 20 ms timeout")
    with dev.create_stream() as s, dev.load_kernels(names=["hold"]) as ks, DeviceHold(dev, ks, s,
                                                                                      release="memset") as hold:
        rep = hold.check_released()
        out.append(f"{'ok' if rep.released else 'FAILED'}: a hold released by cuMemsetD32Async on another stream "
                   f"({rep.spun_ns / 1e3:.0f} µs spun)")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="path of the JSON record")
    ap.add_argument("--csv", help="path of the CSV (one row per point)")
    ap.add_argument("--plot", help="STEM of the figures (STEM.png, STEM.svg)")
    ap.add_argument("--quick", action="store_true", help="the quick preset (under 30 s)")
    ap.add_argument("--budget", type=float, default=90.0, help="seconds the sweep aims at (default 90)")
    ap.add_argument("--chain", action="store_true", help="also a quick sweep with the chain as the work")
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args(argv)
    require_gpu(__file__, args.device)  # before anything is created: no GPU is one line, exit 2
    t0 = time.perf_counter()
    with cgl.Device(args.device) as dev:
        lines = checks(dev)
        print("\n".join(lines), flush=True)
        plan = make_plan(quick=args.quick, budget_s=None if args.quick else args.budget)
        result = measure_scaling(dev, plan, progress=lambda m: print(m, file=sys.stderr, flush=True))
        chain = None
        if args.chain:
            chain = measure_scaling(dev, make_plan([1, 4, 16, 64, 256], [1, 4], work="chain", budget_s=10), seed=1)
    goals = evaluate_goals(result.points, result.paired, result.native, launch_us=LAUNCH_GOAL_US,
                           instantiate_within=INSTANTIATE_GOAL)
    inst, launch = goals.get("instantiate_vs_native", {}), goals.get("launch", {})
    if (result.native or {}).get("unavailable") or not inst.get("paired") or not launch.get("paired"):
        lines.append(f"FAILED: Python/C pairing: {(result.native or {}).get('unavailable') or inst.get('note')}")
    else:
        lines.append(f"ok: Python/C paired: instantiate per node x{inst['ratio']:.3f} [{inst['ratio_ci'][0]:.3f}, "
                     f"{inst['ratio_ci'][1]:.3f}] (Python/C), held launch worst {launch['worst_us']:.2f} µs Python, "
                     f"{launch['native_launch_us']:.2f} µs C, in {result.config['held']['rounds']} rounds")
    print(lines[-1], flush=True)
    record = result.to_dict()
    record["checks"] = lines
    if chain is not None:
        record["chain_sweep"] = chain.to_dict()
    written = [write_scaling_json(args.json, record)]
    if args.csv:
        written.append(write_csv(args.csv, csv_rows(result)))
    if args.plot:
        try:
            written += plot_scaling(result, args.plot)
        except cgl.InvalidArgumentError as e:
            print(f"figures skipped: {e}", file=sys.stderr)
    if chain is not None:
        print("\n--- chain sweep ---\n" + render_scaling(chain))
    print(render_scaling(result, written))
    print("\ngoals (this benchmark's):\n" + "\n".join(goal_lines(goals)))
    failed = [c for c in lines if c.startswith("FAILED")]
    ok = not failed and result.verified and (chain is None or chain.verified)
    print(f"\n{time.perf_counter() - t0:.1f} s in all; checks {'passed' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    run_main(main, __file__)
