"""How long judging takes on a CPU (issue 31 section 3: a diff of two measure records of about 1,000 samples a side
at most 0.3 s, a compare record against itself at most 3 s, the plugin's judging at most 0.5 s per test).

    python benchmarks/judge_speed.py [--repeats 5] [--before]

No GPU: it judges committed H200 records (benchmarks/results/) as ``cugraphlab diff``, ``measure --compare-to``
and the pytest plugin do, in this process, and prints for each case the best and the median of ``--repeats``
runs by ``time.perf_counter`` (wall) and by ``time.process_time`` (this process's CPU time, which other work on a
shared machine disturbs less, though it counts every thread's time: rows are judged on up to
``bench.diff.THREADS`` threads), and ``cugraphlab diff`` as a command (a fresh Python: its start and imports
included). ``--before`` also runs the bootstrap loop the one core replaced (tests/helpers/old_bootstrap.py, the
reference the tests compare against) on the same cases, for the before/after figures.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PLUGIN = RESULTS / "2026-12-01_H200_round6" / "plugin_run_0"
MEASURE = RESULTS / "2026-12-01_H200_round7"
COMPARE = RESULTS / "2026-12-01_H200_round4"

GOALS = {"diff": 0.3, "compare": 3.0, "plugin": 0.5}


def cases() -> list[tuple[str, str, Path, Path, dict]]:
    """(goal key, what, A, B, diff_records keywords)."""
    eager = PLUGIN / "test_launch_costs.py__test_eager.json"
    delayed = PLUGIN / "test_launch_costs.py__test_delayed.json"
    return [
        ("diff", "measure records, 7 rows x ~970 samples (6 processes) a side: test_eager against test_delayed",
         eager, delayed, {"allow_config": "all"}),
        ("diff", "measure record against itself, 7 rows x ~970 samples (6 processes)", eager, eager, {}),
        ("diff", "measure records, 14 rows x 800 samples (4 processes) a side: CuPy callable against itself",
         MEASURE / "2026-12-01_H200_measure_cupy.json", MEASURE / "2026-12-01_H200_measure_cupy.json", {}),
        ("diff", "measure records, 22 rows x 200 samples (1 process) a side: saxpy 2^10 against 2^20",
         MEASURE / "2026-12-01_H200_measure_saxpy_2_10.json", MEASURE / "2026-12-01_H200_measure_saxpy_2_20.json",
         {"allow_config": "all"}),
        ("compare", "compare record against itself, 82 rows, 3,220 samples (grouped by round)",
         COMPARE / "2026-12-01_H200_compare_default_1.json", COMPARE / "2026-12-01_H200_compare_default_1.json", {}),
        ("compare", "compare record against another run of it",
         COMPARE / "2026-12-01_H200_compare_default_1.json", COMPARE / "2026-12-01_H200_compare_default_2.json", {}),
    ]


def _time(fn, repeats: int) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return wall, cpu


def _line(what: str, wall: list[float], cpu: list[float], goal: float | None) -> str:
    best = min(wall)
    verdict = "" if goal is None else f"  goal <= {goal:g} s: {'met' if best <= goal else 'NOT met'} (best wall)"
    return (f"  wall best {best:7.3f} s, median {statistics.median(wall):7.3f} s | CPU best {min(cpu):7.3f} s, "
            f"median {statistics.median(cpu):7.3f} s{verdict}\n    {what}")


def _use_old_loop() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("old_bootstrap", ROOT / "tests" / "helpers" / "old_bootstrap.py")
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    grouped_medians, plain_medians = old.grouped_medians, old.plain_medians

    from cugraphlab.bench import diff
    from cugraphlab.bench.stats import intervals

    diff.SHARED_DRAWS = 0  # every row its own draws, on one thread, through the old loop: as before
    diff.THREADS = 1
    intervals._grouped_bootstrap_medians = grouped_medians
    intervals._bootstrap_medians = plain_medians


def run(repeats: int, label: str) -> list[tuple[str, float]]:
    from cugraphlab.bench.diff import diff_records, read_record_file
    from cugraphlab.testing.store import compare as plugin_compare

    out = []
    print(f"\n{label}: cugraphlab diff's judging (diff_records), in this process, {repeats} runs each")
    for goal, what, a, b, kw in cases():
        ra, rb = read_record_file(a), read_record_file(b)
        diff_records(ra, rb, env={}, **kw)  # imports and first-touch costs out of the figures
        wall, cpu = _time(lambda: diff_records(ra, rb, env={}, **kw), repeats)
        print(_line(what, wall, cpu, GOALS[goal]))
        out.append((what, min(wall)))
    # the plugin: per test, read the saved record and judge the new one against it (testing.store.compare); here
    # each committed plugin record against itself (the same sizes as a run against its saved record)
    for name in ("test_eager", "test_eager_and_graph", "test_delayed"):
        saved = PLUGIN / f"test_launch_costs.py__{name}.json"
        new = read_record_file(saved)
        wall, cpu = _time(lambda: plugin_compare(read_record_file(saved), new, name), repeats)
        what = f"the plugin's judging of one test ({name}: read the saved record, diff, pick the judged rows)"
        print(_line(what, wall, cpu, GOALS["plugin"]))
        out.append((what, min(wall)))
    return out


def command(repeats: int) -> None:
    a = PLUGIN / "test_launch_costs.py__test_eager.json"
    b = PLUGIN / "test_launch_costs.py__test_delayed.json"
    cmd = [sys.executable, "-m", "cugraphlab", "diff", str(a), str(b), "--allow-config", "all"]
    wall = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False, cwd=ROOT)
        wall.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import cugraphlab.cli"], capture_output=True, cwd=ROOT)
    start = time.perf_counter() - t0
    print(f"\n`cugraphlab diff` as a command (test_eager against test_delayed), {repeats} runs: wall best "
          f"{min(wall):.3f} s, median {statistics.median(wall):.3f} s (a fresh Python that imports cugraphlab.cli "
          f"and exits: {start:.3f} s)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--before", action="store_true", help="also time the bootstrap loop the core replaced")
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    from cugraphlab.bench.diff import THREADS

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"judging speed on this CPU (python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
          f"{load:.1f} at the start: wall figures grow with other work, CPU figures less); seconds per comparison; "
          f"rows judged on up to {THREADS} threads")
    after = run(args.repeats, "now (bench.stats.bootstrap, the one core)")
    command(args.repeats)
    if args.before:
        _use_old_loop()
        before = run(max(1, min(args.repeats, 2)), "before (the loop the core replaced)")
        print("\nbefore -> now, best wall:")
        for (what, b), (_, a) in zip(before, after):
            print(f"  {b:7.3f} s -> {a:7.3f} s  ({b / a:5.1f}x)  {what.split(':')[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
