"""The figures the GPU tests used to bound, measured and printed with their intervals.

A test that asserts ``1.05 < ratio < 3.0`` of two measurements fails at random on a noisy machine and says nothing
about why; the tests now assert correctness only (finite, positive, the structure, bit-exact results), and this
script measures each figure they bounded and prints it with its 95% interval, its clock and the range the test once
held it to, so that a reader sees where it lies and how sure it is:

* diff: the host time per launch of a loop with a 1 µs spin after each launch over the bare loop
  (``benchmarks/diff_check.py``'s probe; the test held it to 1.05-3.0);
* doctor: replay µs per cuGraphLaunch of a graph captured with the doctor explaining over one captured plainly
  (``bench.doctor.measure_overhead``; 0.8-1.25), and with CUPTI where cupti-python is installed (0.8-1.25);
* scaling: the device time of a line of 64 empty kernels over a line of 1 (more than 4), and Python's
  cuGraphInstantiate over C's on the same captures, per node count (its lower bound above 0.3);
* paired: each own way's host µs per launch (0.2-200) and its ratio to cuda.bindings' (0.1-20), in a child process;
* roof: the cold-L2 fused kernel's bandwidth over the copy roof's (below 1.1);
* signs: figures a test held against zero, each a median with its interval: the timeline's gap and kernel time per
  mode at 1,000 and 2^20 + 3 floats (gap at least 0, kernel above 0; %globaltimer, whose ticks can make a short
  kernel read 0), and memnodes' device µs per iteration of every row and its first launches' host and completion
  times (above 0).

Intervals: ``bench.stats.intervals.ratio_of_medians`` (percentile bootstrap of the ratio of medians) where the raw
samples are at hand (for one median, signs: the same bootstrap, ``bench.stats.bootstrap.plain_medians``), else the interval the record computed (diff's rows, the paired harness's and scaling's
two-level bootstraps). A figure outside the old range is printed as such: it is a finding to read, not a failure.

Usage: python benchmarks/ratio_figures.py [OUT_DIR] [--only diff,doctor,scaling,paired,roof,signs]
Writes OUT_DIR/ratio_figures.json (every row). Takes about two minutes on the H200. Exit 0 when every section ran,
1 when a section failed (its line says why), 2 without a usable GPU (one line; nothing written).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SECTIONS = ("diff", "doctor", "scaling", "paired", "roof", "signs")


def row(section: str, figure: str, value, lo=None, hi=None, *, clock: str, held: str, n: str = "") -> dict:
    """One printed figure: its value and interval (None where there is none), its clock, the test's old range."""
    def num(x):
        return float(x) if x is not None and math.isfinite(float(x)) else None

    return {"section": section, "figure": figure, "value": num(value), "lo": num(lo), "hi": num(hi),
            "clock": clock, "test_held_it_to": held, "n": n}


def _ratio(a, b, section: str, figure: str, *, clock: str, held: str) -> dict:
    from cugraphlab.bench.stats.intervals import ratio_of_medians

    iv = ratio_of_medians(a, b)
    return row(section, figure, iv.ratio, iv.low, iv.high, clock=clock, held=held, n=f"{iv.n_a}+{iv.n_b}")


def diff_rows(dev) -> list[dict]:
    spec = importlib.util.spec_from_file_location("diff_check", HERE / "diff_check.py")
    dc = importlib.util.module_from_spec(spec)
    sys.modules["diff_check"] = dc
    spec.loader.exec_module(dc)
    recs = dc.probe(dev, samples=30, launches=1000, delay_ns=1000)
    same, slower, _ = dc.check_verdicts(recs["base"].to_dict(), recs["repeat"].to_dict(), recs["delayed"].to_dict())
    out = []
    for result, what, held in ((slower, "delayed / base", "1.05 < x < 3.0"), (same, "repeat / base", "(none)")):
        r = next(r for r in result.rows if r.label == dc.HOST_ROW)
        out.append(row("diff", f"host per launch, {what} ({r.verdict})", r.ratio, r.low, r.high,
                       clock="host_call (perf_counter_ns)", held=held))
    return out


def doctor_rows(dev, cupti: bool) -> list[dict]:
    from cugraphlab.bench.doctor import DoctorResult, measure_overhead

    rec = DoctorResult()
    with dev.load_kernels(names=["empty"]) as ks:
        measure_overhead(dev, ks, rec, launches=32, samples=31, replays=100, cupti=cupti)
    s = {k: v["values"] for k, v in rec.samples.items()}
    variant = "cupti" if cupti else "explained"
    return [_ratio(s["replay_plain"], s[f"replay_{variant}"], "doctor",
                   f"replay per cuGraphLaunch, {variant} / plain", clock="host_call (perf_counter_ns)",
                   held="0.8 < x < 1.25"),
            _ratio(s["capture_plain"], s[f"capture_{variant}"], "doctor",
                   f"capture of 32 launches, {variant} / plain", clock="host_api (perf_counter_ns)",
                   held="(none: capture is what the doctor slows)")]


def scaling_rows(dev) -> list[dict]:
    from cugraphlab.bench.scaling.plan import sample_label
    from cugraphlab.bench.scaling.sweep import make_plan, measure_scaling

    r = measure_scaling(dev, make_plan([1, 4, 16, 64], [1, 4], work="empty", repeats=3, budget_s=3))
    s = {k: v["values"] for k, v in r.samples.items()}
    out = [_ratio(s[sample_label("line", 1, "device_us")], s[sample_label("line", 64, "device_us")], "scaling",
                  "device time, line of 64 empty kernels / line of 1", clock="device (cuEventElapsedTime)",
                  held="x > 4")]
    for e in sorted((e for e in r.paired["instantiate"]["points"] if e["topology"] == "line"),
                    key=lambda e: e["nodes"]):
        iv = e.get("ratio") or {}
        out.append(row("scaling", f"cuGraphInstantiate, Python / C, line of {e['nodes']} nodes", iv.get("median"),
                       iv.get("lo"), iv.get("hi"), clock="host_api (perf_counter_ns; C: clock_gettime)",
                       held="lo > 0.3", n=str(iv.get("n", ""))))
    return out


PAIRED = ("import json; from cugraphlab.bench.paired.harness import measure_paired; "
          "r = measure_paired(0, size=1024, contexts=2, rounds=2, max_rounds=3, launches=500, held_launches=128, "
          "warmup=50); print(json.dumps(r.to_dict()))")


def paired_rows(_dev) -> list[dict]:
    """In a child process, as the GPU test ran it: the harness makes contexts of its own."""
    p = subprocess.run([sys.executable, "-c", PAIRED], capture_output=True, text=True, cwd=HERE.parent, timeout=300,
                       check=False)  # run from the repository root, as the GPU test did
    if p.returncode != 0:
        raise RuntimeError(f"the paired child exited {p.returncode}: {p.stderr.strip().splitlines()[-1:]}")
    d = json.loads(p.stdout.strip().splitlines()[-1])
    out = []
    for w in d["ways"]:
        us, ratio = w.get("us") or {}, w.get("ratio") or {}
        out.append(row("paired", f"{w['name']}: host us per launch", us.get("median"), us.get("lo"), us.get("hi"),
                       clock="host_call (perf_counter_ns)", held="0.2 < x < 200"))
        out.append(row("paired", f"{w['name']}: / cuda.bindings", ratio.get("median"), ratio.get("lo"),
                       ratio.get("hi"), clock="host_call, paired rounds", held="0.1 < x < 20"))
    return out


def roof_rows(_dev) -> list[dict]:
    from cugraphlab.bench.run import measure_run

    r = measure_run(size=1 << 20, iters=500, repeats=2, cold_l2=True, seed=3)
    fused, copy = r.roof.get("fused_cold_gbps"), r.roof.get("copy_gbps")
    return [row("roof", "cold-L2 fused GB/s / copy roof GB/s", fused / copy if fused and copy else None,
                clock="device (cuEventElapsedTime), medians of each", held="x < 1.1",
                n="medians only: the roof keeps no samples")]


def _median(section: str, figure: str, summary, *, clock: str, held: str) -> dict:
    """One median with its 95% percentile-bootstrap interval, from the Summary's raw samples."""
    import numpy as np

    from cugraphlab.bench.stats.bootstrap import plain_medians

    x = np.asarray(summary.samples, dtype=float)
    meds = plain_medians(x, 2000, np.random.default_rng(0)) if x.size > 1 else x
    return row(section, figure, summary.median, np.percentile(meds, 2.5), np.percentile(meds, 97.5), clock=clock,
               held=held, n=str(x.size))


def signs_rows(dev) -> list[dict]:
    """What tests/bench/test_measure_gpu.py and test_memnodes_gpu.py once held against zero, as those tests ran it
    (more iterations and samples here, for the intervals)."""
    from cugraphlab.bench.graphs.memnodes import MEM_ROWS, PRE_ROW, measure_memnodes
    from cugraphlab.bench.measure.timeline import measure_timeline

    out = []
    for n in (1000, (1 << 20) + 3):
        for m in measure_timeline(dev, size=n, iters=50).modes:
            out.append(_median("signs", f"timeline {n:,}: {m.mode} gap us", m.gap_us, clock="globaltimer",
                               held="x >= 0"))
            out.append(_median("signs", f"timeline {n:,}: {m.mode} kernel us", m.kernel_us, clock="globaltimer",
                               held="x > 0"))
    r = measure_memnodes(dev, [1 << 20, 1024], 500, 7, first_samples=7, seed=11)
    for s in r.sizes:
        for name in [*(MEM_ROWS[sh] for sh in s.shapes()), PRE_ROW]:
            out.append(_median("signs", f"memnodes {s.size:,}: {name} device us/iter",
                               s.steady_row(name).device_us_per_iter, clock="device (cuEventElapsedTime)",
                               held="x > 0"))
        for f in s.first:
            for what, summ, clock in (("complete", f.complete_us, "wall (perf_counter_ns, launch to completion)"),
                                      ("host API", f.host_api_us, "host_api (perf_counter_ns)")):
                out.append(_median("signs", f"memnodes {s.size:,}: first launch, {f.name} {what} us", summ,
                                   clock=clock, held="x > 0"))
    return out


def render(rows: list[dict]) -> str:
    from cugraphlab.report.tables import format_table

    def f(x):
        return "-" if x is None else f"{x:.3f}"

    body = [[r["section"], r["figure"], f(r["value"]), f"[{f(r['lo'])}, {f(r['hi'])}]", r["clock"],
             r["test_held_it_to"], _inside(r)] for r in rows]
    return format_table(["", "figure", "value", "95% interval", "clock", "the test held it to", ""], body)


def _inside(r: dict) -> str:
    """Whether the value lies in the range the test once asserted (a reading, not a verdict)."""
    held, v = r["test_held_it_to"], r["value"]
    if v is None or held.startswith("("):
        return ""
    x = r["lo"] if held.startswith("lo") and r["lo"] is not None else v
    return "inside" if eval(held.replace("lo", "x"), {}, {"x": x}) else "OUTSIDE"  # noqa: S307 (our literals)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default="ratio_figures_out", help="folder for ratio_figures.json")
    ap.add_argument("--only", default=",".join(SECTIONS), help=f"sections, comma-separated ({', '.join(SECTIONS)})")
    args = ap.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(only) - set(SECTIONS))
    if unknown or not only:
        print(f"ratio_figures.py: --only takes {', '.join(SECTIONS)}; got {args.only!r}", file=sys.stderr)
        return 2
    from cugraphlab import Device
    from cugraphlab.core.errors import NoDeviceError

    try:
        dev = Device(0)
    except NoDeviceError as e:
        print(f"ratio_figures.py: no usable GPU: {e}", file=sys.stderr)
        return 2
    rows, failed, t0 = [], [], time.perf_counter()
    with dev:
        for section in only:
            runs = [lambda: doctor_rows(dev, False), lambda: _cupti_rows(dev)] if section == "doctor" else [
                lambda s=section: globals()[f"{s}_rows"](dev)]
            for run in runs:
                try:
                    rows += run()
                except Exception as e:  # one section's failure is a line; the others still run
                    failed.append(f"{section}: {type(e).__name__}: {e}")
                    print(f"{section}: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ratio_figures.json").write_text(json.dumps({"rows": rows, "failed": failed}, indent=1) + "\n")
    print(render(rows))
    print(f"\n{len(rows)} figures in {time.perf_counter() - t0:.0f} s; intervals at 95%; JSON in {out}"
          + (f"; {len(failed)} section(s) failed" if failed else ""))
    return 1 if failed else 0


def _cupti_rows(dev) -> list[dict]:
    from cugraphlab.graphs.doctor.cupti import cupti_available

    if not cupti_available():
        print("doctor: CUPTI rows skipped (cupti-python is not importable)")
        return []
    return doctor_rows(dev, True)


if __name__ == "__main__":
    sys.exit(main())
