"""The capture doctor on the H200: the gallery, the modes table, the overhead of explain=True, and zero false alarms
over the existing examples run under the doctor.

1. ``bench.doctor.run_doctor``: each gallery case in its teaching mode (the diagnoses), every case in every capture
   mode (the table), the state checks after each, and capture/replay µs with and without ``explain=True``.
2. Every ``examples/NN_*.py`` except the doctor's own lesson, each in a fresh process under
   ``graphs.doctor.run_explained(replay=True)`` (what ``cugraphlab doctor --replay SCRIPT`` does): its exit code and
   the findings of every capture it made (must be none: the examples are correct), and of the replay watch
   (graphs.doctor.launches), where the only ones allowed are those a lesson makes on purpose (``INTENDED``: the
   update lesson shows a refused cuGraphExecUpdate).

Usage: python benchmarks/doctor.py OUT.json [--samples 31] [--device 0]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cugraphlab.bench.doctor import run_doctor
from cugraphlab.bench.scripts import require_gpu, run_main
from cugraphlab.report.doctor import render_doctor
from cugraphlab.report.files import write_json
from cugraphlab.report.tables import format_table

ROOT = Path(__file__).resolve().parents[1]
RUNNER = (
    "import json, sys\n"
    "from cugraphlab.graphs.doctor import run_explained\n"
    "code, ds = run_explained(sys.argv[1], [], replay=True)\n"
    "hazards = [f'{f.kind}: {f.line()}' for d in ds if d.mode == 'replay' for f in d.findings]\n"
    "print('@@DOCTOR@@' + json.dumps({'code': code, 'captures': sum(d.mode != 'replay' for d in ds), "
    "'findings': [f.line() for d in ds if d.mode != 'replay' for f in d.findings], 'hazards': hazards, "
    "'failed': sum(not d.ok for d in ds)}))\n"
)
#: replay-watch findings a lesson makes on purpose: example -> the classes it shows
INTENDED = {"04_update.py": {"update_refused"}}


def unintended(run: dict) -> list[str]:
    """The replay watch's findings in an example that its lesson does not make on purpose."""
    allowed = INTENDED.get(run["example"], set())
    return [h for h in run.get("hazards") or [] if h.split(":", 1)[0] not in allowed]


def run_example(path: Path) -> dict:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", RUNNER, str(path)], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    seconds = time.perf_counter() - t0
    line = next((l for l in r.stdout.splitlines() if l.startswith("@@DOCTOR@@")), None)
    if line is None:
        return {"example": path.name, "code": r.returncode, "captures": None, "findings": [], "failed": None,
                "seconds": seconds, "error": (r.stderr or r.stdout)[-2000:]}
    out = json.loads(line[len("@@DOCTOR@@"):])
    out.update(example=path.name, seconds=seconds)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", help="JSON file to write")
    ap.add_argument("--samples", type=int, default=31)
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args()
    require_gpu(__file__, args.device)  # before anything is created: no GPU is one line, exit 2
    t0 = time.perf_counter()

    record = run_doctor(args.device, samples=args.samples)
    print(render_doctor(record))

    examples = [p for p in sorted((ROOT / "examples").glob("[0-9][0-9]_*.py")) if "doctor" not in p.name]
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(run_example, examples))
    alarms = sum(len(r["findings"]) + len(unintended(r)) for r in runs)
    rows = [[r["example"], r["code"], r["captures"], len(r["findings"]), len(r.get("hazards") or []),
             f"{r['seconds']:.1f}"] for r in runs]
    print("\nexisting examples under the doctor and its replay watch:")
    print(format_table(["example", "exit", "captures", "findings", "replay findings", "s"], rows))
    for r in runs:
        for f in r["findings"] + unintended(r):
            print(f"  FALSE ALARM? {r['example']}: {f}")
        for h in r.get("hazards") or []:
            if h not in unintended(r):
                print(f"  intended by the lesson: {r['example']}: {h}")
        if r.get("error"):
            print(f"  {r['example']} did not report: {r['error'][-400:]}")

    o = record.overhead
    summary = [
        ["gallery cases named (class and call)", f"{sum(c['named'] for c in record.cases)}/{len(record.cases)}"],
        ["state restored after every case and mode", "yes" if record.restored_all else "NO"],
        ["false alarms: clean case, all modes", record.false_alarms],
        ["false alarms: examples under the doctor and the replay watch", alarms],
        ["examples exiting 0", f"{sum(r['code'] == 0 for r in runs)}/{len(runs)}"],
        ["capture us, plain / explained (median)",
         f"{o['capture_plain']['median']:.1f} / {o['capture_explained']['median']:.1f}"],
        ["explain us per watched call", f"{o['explain_us_per_call']:.2f}"],
        ["replay us per cuGraphLaunch, plain / explained",
         f"{o['replay_plain']['median']:.2f} / {o['replay_explained']['median']:.2f}"],
        ["wall seconds", f"{time.perf_counter() - t0:.1f}"],
    ]
    out = record.to_dict()
    out["examples_under_doctor"] = runs
    out["example_false_alarms"] = alarms
    write_json(args.out, out)
    print("\n" + format_table(["doctor on this GPU", ""], summary, align="ll"))
    ok = record.ok and alarms == 0 and all(r["code"] == 0 for r in runs)
    return 0 if ok else 1


if __name__ == "__main__":
    run_main(main, __file__)
