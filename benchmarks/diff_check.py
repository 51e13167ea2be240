"""Does ``cugraphlab diff`` find a deliberate cost of 1 µs per launch, and leave an identical run alone?

Three records of the same launch probe, made in one process, one context and one stream (so that all three land in
the same launch-cost mode, see issue 14):

* ``base``: bare ``cuLaunchKernel`` of the empty kernel (grid 1, block 32, no arguments), the binding fetched
  through ``cugraphlab.core`` (``Kernel.prepare`` -> ``Launch.fn`` / ``Launch.call_args``), each status tested;
* ``delayed``: the same loop with a busy-wait of ``--delay-ns`` (1,000 ns: ``perf_counter_ns`` spin) after every
  launch. The cost lives in this script's loop only; the package's hot loops are untouched;
* ``repeat``: the base loop again, as a second record.

Per sample: CUDA events recorded around the loop, ``perf_counter_ns`` around the launches alone; then the end event
is synchronized (outside the host timing). Two rows per record: host time per launch (clock ``host_call``) and the
device span per launch (clock ``device``: cuEventElapsedTime / launches). The three loops are interleaved sample by
sample, their order rotated each round, so drift hits all three alike.

Then ``diff(base, repeat)`` must say SAME or AMBIGUOUS for every row and ``diff(base, delayed)`` SLOWER for every
row; the script prints both diffs, a summary table last, and exits 1 when a verdict is wrong.

Usage: python benchmarks/diff_check.py OUT_DIR [--samples 30] [--launches 2000] [--delay-ns 1000] [--threshold 5%]
Writes OUT_DIR/latency_probe_{base,delayed,repeat}.json, OUT_DIR/diff_{repeat,delayed}.json (and the forest plots
OUT_DIR/diff_{repeat,delayed}.png/.svg where matplotlib is installed). Takes a few seconds.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from cugraphlab import Device
from cugraphlab.bench.diff import diff_records, parse_threshold, read_record_file
from cugraphlab.bench.records.environment import collect
from cugraphlab.bench.records.record import Record, clocks
from cugraphlab.bench.scripts import require_gpu, run_main
from cugraphlab.core.errors import check
from cugraphlab.core.files import write_json
from cugraphlab.report.diff import render_diff
from cugraphlab.report.tables import format_table

ROLES = ("base", "delayed", "repeat")
HOST_ROW = "cuLaunchKernel empty: host per launch"
DEVICE_ROW = "cuLaunchKernel empty: device span per launch"


@dataclass(kw_only=True)
class LatencyProbeResult(Record):
    """Per-launch cost of bare cuLaunchKernel of the empty kernel: raw samples per clock."""

    KIND: ClassVar[str] = "cugraphlab.study.diff_check.probe"


def _loops(launch, launches: int, delay_ns: int):
    """The two timed loops: bare launches, and launches each followed by a ``delay_ns`` spin."""
    fn, call = launch.fn, launch.call_args
    perf = time.perf_counter_ns
    api = launch.api

    def bare() -> tuple[int, int]:
        t0 = perf()
        for _ in range(launches):
            r = fn(*call)
            if r[0]:
                check(r, api)
        return t0, perf()

    def delayed() -> tuple[int, int]:
        t0 = perf()
        for _ in range(launches):
            r = fn(*call)
            if r[0]:
                check(r, api)
            end = perf() + delay_ns
            while perf() < end:
                pass
        return t0, perf()

    return bare, delayed


def spin_cost_ns(delay_ns: int, repeats: int = 20000) -> float:
    """What one spin of ``delay_ns`` really costs on this host (ns, perf_counter_ns around ``repeats`` spins)."""
    perf = time.perf_counter_ns
    t0 = perf()
    for _ in range(repeats):
        end = perf() + delay_ns
        while perf() < end:
            pass
    return (perf() - t0) / repeats


def probe(dev, *, samples: int = 30, launches: int = 2000, delay_ns: int = 1000, warmup: int = 3) -> dict:
    """The three LatencyProbeResult records (role -> record), measured interleaved on one stream of ``dev``."""
    with dev.load_kernels(names=["empty"]) as ks, dev.create_stream() as stream, \
            dev.create_event() as start, dev.create_event() as end:
        launch = ks["empty"].prepare((), (), (1, 32), stream)
        bare, delayed = _loops(launch, launches, delay_ns)
        loop_of = {"base": bare, "delayed": delayed, "repeat": bare}
        host = {r: [] for r in ROLES}
        device = {r: [] for r in ROLES}

        def one(role: str) -> tuple[float, float]:
            start.record(stream)
            t0, t1 = loop_of[role]()
            end.record(stream)
            end.synchronize()
            return (t1 - t0) / 1e3 / launches, start.elapsed_us(end) / launches

        for _ in range(warmup):
            for role in ROLES:
                one(role)
        for i in range(samples):
            order = ROLES[i % 3:] + ROLES[:i % 3]  # rotate, so no loop always runs first
            for role in order:
                h, d = one(role)
                host[role].append(h)
                device[role].append(d)
        env = collect(dev)
    spin = spin_cost_ns(delay_ns)
    out = {}
    for role in ROLES:
        # the delay is what the records differ in on purpose: part of the environment (shown side by side by
        # diff), not of the configuration (which diff requires to match)
        injected = {"role": role, "launch_delay_ns": delay_ns if role == "delayed" else 0,
                    "spin_cost_ns": spin if role == "delayed" else None, "how": "busy-wait in this script's loop"}
        rec = LatencyProbeResult(
            config={"kernel": "empty", "grid": 1, "block": 32, "launches_per_sample": launches, "samples": samples,
                    "interleaved": "base, delayed, repeat sample by sample, order rotated; one context, one stream"},
            env={**env, "injected": injected}, clocks=clocks("host_call", "device"))
        rec.keep_samples(HOST_ROW, host[role], "us", "host_call")
        rec.keep_samples(DEVICE_ROW, device[role], "us", "device")
        out[role] = rec
    return out


def check_verdicts(base: dict, repeat: dict, delayed: dict, *, threshold: float = 0.05, names=("A", "B", "C")):
    """diff(base, repeat) and diff(base, delayed) as DiffResults, and the rows whose verdict is wrong."""
    same = diff_records(base, repeat, threshold=threshold, a_name=names[0], b_name=names[2])
    slower = diff_records(base, delayed, threshold=threshold, a_name=names[0], b_name=names[1])
    wrong = [("repeat", r.label, r.verdict) for r in same.rows if r.verdict not in ("SAME", "AMBIGUOUS")]
    wrong += [("delayed", r.label, r.verdict) for r in slower.rows if r.verdict != "SLOWER"]
    if len(same.rows) != 2 or len(slower.rows) != 2:
        wrong.append(("rows", f"{len(same.rows)} and {len(slower.rows)} rows compared, expected 2 each", ""))
    return same, slower, wrong


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default="diff_check_out", help="folder for the JSON records (and plots)")
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--launches", type=int, default=2000, help="launches per sample")
    ap.add_argument("--delay-ns", type=int, default=1000, help="busy-wait per launch of the delayed record")
    ap.add_argument("--threshold", default="5%")
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args(argv)
    require_gpu(__file__, args.device)  # before anything is created: no GPU is one line, exit 2
    threshold = parse_threshold(args.threshold)
    out = Path(args.out)
    t_start = time.perf_counter()
    with Device(args.device) as dev:
        records = probe(dev, samples=args.samples, launches=args.launches, delay_ns=args.delay_ns)
    paths = {role: write_json(out / f"latency_probe_{role}.json", rec) for role, rec in records.items()}
    back = {role: read_record_file(p) for role, p in paths.items()}  # diff what a user would diff: the files
    same, slower, wrong = check_verdicts(back["base"], back["repeat"], back["delayed"], threshold=threshold,
                                         names=(str(paths["base"]), str(paths["delayed"]), str(paths["repeat"])))
    write_json(out / "diff_repeat.json", same)
    write_json(out / "diff_delayed.json", slower)
    try:
        from cugraphlab.report.diff import plot_diff

        plot_diff(same, out / "diff_repeat")
        plot_diff(slower, out / "diff_delayed")
    except Exception as e:  # no matplotlib on the GPU box: the check stands without the figure
        print(f"(no plots: {e})")
    print("=== diff base -> repeat (expected SAME or AMBIGUOUS) ===")
    print(render_diff(same))
    print("\n=== diff base -> delayed (expected SLOWER) ===")
    print(render_diff(slower))
    spin = records["delayed"].env["injected"]["spin_cost_ns"]
    rows = []
    for pair, result, expected in (("repeat", same, "SAME/AMBIGUOUS"), ("delayed", slower, "SLOWER")):
        for r in result.rows:
            ok = r.verdict in expected.split("/")
            rows.append([pair, r.label.split(": ")[1], f"{r.median_a:.3f}", f"{r.median_b:.3f}", f"{r.ratio:.3f}",
                         f"[{r.low:.3f}, {r.high:.3f}]", r.verdict, expected, "ok" if ok else "WRONG"])
    print(f"\nspin of {args.delay_ns} ns measured at {spin:.0f} ns; {args.samples} samples x {args.launches} launches "
          f"per record; threshold {threshold * 100:g}%; {time.perf_counter() - t_start:.1f} s; JSON in {out}")
    print(format_table(["B", "row", "A us", "B us", "B/A", "95% interval", "verdict", "expected", ""], rows))
    if wrong:
        print(f"FAILED: {wrong}", file=sys.stderr)
        return 1
    print("diff check passed")
    return 0


if __name__ == "__main__":
    run_main(main, __file__)
