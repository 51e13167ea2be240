"""The capture doctor on the H200: the gallery, the modes table, the overhead of explain=True, and zero false alarms
over the existing examples run under the doctor.

1. ``bench.doctor.measure_doctor``: each gallery case in its teaching mode (the diagnoses), every case in every capture
   mode (the table), the state checks after each, and capture/replay µs with and without ``explain=True``.
2. Every ``examples/NN_*.py`` except the doctor's own lesson, and every course notebook (its solutions twin turned
   into a plain script), each in a fresh process under ``graphs.doctor.run_explained(replay=True)`` (what
   ``cugraphlab doctor --replay SCRIPT`` does): its exit code and the findings of every capture it made and of the
   replay watch (graphs.doctor.launches). The only ones allowed are those a lesson makes on purpose
   (doctor_programs.INTENDED, each with its reason); the programs are correct, so anything else is a false alarm.
   The counts line: examples and notebooks under the doctor, programs with findings K of N.
3. The overhead ratios, explained/plain, for capture and replay; with ``CGL_BEFORE=DIR`` (an older tree: ``git
   archive COMMIT cugraphlab kernels``) the same overhead measured in child processes of today's tree and of that
   one, alternated, in this run (doctor_trees.py).

Usage: [CGL_BEFORE=DIR] python benchmarks/doctor.py OUT.json [--samples 31] [--device 0] [--workers 4]
       [--timeout 300]
       [--programs all|examples|notebooks]
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from cugraphlab.bench.doctor import measure_doctor
from cugraphlab.bench.scripts import require_gpu, run_main
from cugraphlab.core.files import write_json
from cugraphlab.report.doctor import render_doctor
from cugraphlab.report.tables import format_table
from doctor_programs import INTENDED, counts, counts_line, run_all, unintended
from doctor_trees import before_after, compare_rows, ratios, verdict


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", help="JSON file to write")
    ap.add_argument("--samples", type=int, default=31)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--workers", type=int, default=4, help="programs run at a time")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per program")
    ap.add_argument("--programs", choices=("all", "examples", "notebooks"), default="all",
                    help="which correct programs run under the doctor")
    args = ap.parse_args()
    require_gpu(__file__, args.device)  # before anything is created: no GPU is one line, exit 2
    t0 = time.perf_counter()

    record = measure_doctor(args.device, samples=args.samples)
    print(render_doctor(record))

    runs = run_all(workers=args.workers, timeout=args.timeout, programs=args.programs)
    c = counts(runs)
    rows = [[r["program"], r["code"], r["captures"], len(r["findings"]), len(r.get("hazards") or []),
             len(unintended(r)), f"{r['seconds']:.1f}"] for r in runs]
    print("\nexamples and notebooks under the doctor and its replay watch:")
    print(format_table(["program", "exit", "captures", "findings", "replay findings", "false alarms", "s"], rows))
    for r in runs:
        bad = unintended(r)
        for f in bad:
            print(f"  FALSE ALARM? {r['program']}: {f}")
        for f in (r["findings"] or []) + (r.get("hazards") or []):
            if f not in bad:
                kind = f.split(":", 1)[0]
                print(f"  intended by the lesson: {r['program']}: {f} ({INTENDED[r['program']][kind]})")
        if r.get("error"):
            print(f"  {r['program']} exit {r['code']}: {r['error'][-400:]}")
    print(counts_line(c))

    trees = []
    before = os.environ.get("CGL_BEFORE")
    if before:
        if not (Path(before) / "cugraphlab").is_dir():
            print(f"CGL_BEFORE={before} holds no cugraphlab/: the before/after overhead is not measured")
        else:
            trees = before_after(Path(before).resolve(), args.device, args.samples)
            print("\nexplain=True overhead, today's tree and CGL_BEFORE's, alternated (child processes; capture: "
                  "host clock perf_counter_ns around the capture, replay: host clock per cuGraphLaunch):")
            print(format_table(["tree", "round", "capture us plain / explained", "ratio",
                                "replay us plain / explained", "ratio", "cugraphlab"], compare_rows(trees)))
            for r in trees:
                if "error" in r:
                    print(f"  {r['who']} round {r['round']}: {r['error'][-400:]}")
            print(verdict(trees))

    o = record.overhead
    summary = [
        ["gallery cases named (class and call)", f"{sum(case['named'] for case in record.cases)}/{len(record.cases)}"],
        ["state restored after every case and mode", "yes" if record.restored_all else "NO"],
        ["false alarms: clean case, all modes", record.false_alarms],
        ["programs under the doctor (examples + notebooks)", f"{c['examples']} + {c['notebooks']} = {c['programs']}"],
        ["programs with findings (false alarms)", f"{c['with_findings']} of {c['programs']} ({c['false_alarms']})"],
        ["programs exiting 0", f"{c['exit_0']}/{c['programs']}"],
        ["capture us, plain / explained (median)",
         f"{o['capture_plain']['median']:.1f} / {o['capture_explained']['median']:.1f}"],
        ["explain us per watched call", f"{o['explain_us_per_call']:.2f}"],
        ["replay us per cuGraphLaunch, plain / explained",
         f"{o['replay_plain']['median']:.2f} / {o['replay_explained']['median']:.2f}"],
        ["wall seconds", f"{time.perf_counter() - t0:.1f}"],
    ]
    out = record.to_dict()
    out["programs_under_doctor"] = runs
    out["program_counts"] = c
    out["example_false_alarms"] = c["false_alarms"]
    out["intended"] = INTENDED
    out["overhead_before_after"] = trees
    write_json(args.out, out)
    print("\n" + format_table(["doctor on this GPU", ""], summary, align="ll"))
    q = ratios(o)
    print(f"doctor overhead, this run, explained/plain: capture {q['capture_ratio']:.2f} "
          f"({q['capture_plain_us']:.1f} / {q['capture_explained_us']:.1f} us, host clock), replay "
          f"{q['replay_ratio']:.3f} ({q['replay_plain_us']:.2f} / {q['replay_explained_us']:.2f} us per cuGraphLaunch, "
          f"host clock)")
    print(counts_line(c))
    ok = record.ok and c["false_alarms"] == 0 and c["exit_0"] == c["programs"]
    return 0 if ok else 1


if __name__ == "__main__":
    run_main(main, __file__)
