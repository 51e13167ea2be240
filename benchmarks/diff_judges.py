"""Does ``cugraphlab diff`` judge what ``cugraphlab run`` writes? (issue 25 section 4, on the H200; about a minute.)

Four `run` records, each made by the command line in a process of its own, one after the other, at a small
iteration count (``--iters 1000``, the default 5 repeats, each timed loop cut into 10 chunks: 50 samples a row):

* ``a``: the run; ``b``: the same run again; ``slow``: the same with ``CUGRAPHLAB_LAUNCH_DELAY_NS=1000`` in its
  environment (``experiment.runners``' test hook: a busy-wait of 1 µs after every launch call, chosen when the
  Runner is made, never in the plain loops); ``small``: the run at 1,024 floats (another configuration).

Then ``cugraphlab diff`` on the pairs, through the command line (its exit code with ``--fail-on slower``) and as a
record (its rows), and the verdicts against what they must be:

* ``a`` against ``a`` (a record against itself): SAME on every row, exit 0;
* ``a`` against ``b`` (two runs one after the other): the device-bound rows (graph, fused: wall and device) SAME;
  the eager rows are bound by the host, whose launch cost a new process may draw from another mode
  (docs/studies/launch-cost-modes.md), so any verdict is shown but none is required;
* ``a`` against ``slow``: the eager rows SLOWER (4 launches of about 5.5 µs each per iteration, 1 µs more each:
  about +18%), exit 1 with --fail-on slower; graph and fused stay SAME (one launch per iteration, or per 50, stays
  cheaper than the GPU's iteration, so the GPU sets the pace);
* ``a`` against ``small``: refused, exit 2, one line naming the size.

Last, what cutting loops into chunks costs: ``measure_run`` at the defaults (5,000 iterations x 5 repeats) with
``chunks=1`` and with ``chunks=10``, alternated twice, in this process: the medians each prints, side by side.

Usage (repository root, package installed, on a GPU machine):  python benchmarks/diff_judges.py OUT_DIR
Writes OUT_DIR/run_{a,b,slow,small}.json, OUT_DIR/diff_{self,repeat,slow}.json and prints everything; the last line
says whether every verdict was as it must be (exit 0) or which were not (exit 1).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from cugraphlab.bench.scripts import require_gpu, run_main
from cugraphlab.report.tables import format_table

DELAY_NS = 1000
DEVICE_BOUND = ("graph: wall", "graph: device", "fused: wall", "fused: device")
EAGER = ("eager: wall", "eager: device")
#: pair -> (B's record, what the rows must be: row -> allowed verdicts; None: any), the exit code --fail-on gives
PAIRS = {
    "self": ("a", {"*": ("SAME",)}, 0),
    "repeat": ("b", {**{r: ("SAME",) for r in DEVICE_BOUND}, **{r: None for r in EAGER}}, None),
    "slow": ("slow", {**{r: ("SLOWER",) for r in EAGER}, **{r: ("SAME",) for r in DEVICE_BOUND}}, 1),
}


def subprocess_runner(args: list[str], env: dict | None = None) -> tuple[int, str, str]:
    """``python -m cugraphlab ARGS`` in a process of its own: (exit code, stdout, stderr)."""
    r = subprocess.run([sys.executable, "-m", "cugraphlab", *args], capture_output=True, text=True,
                       env={**os.environ, **(env or {})}, timeout=300)
    return r.returncode, r.stdout, r.stderr


def judge(pair: str, diff: dict) -> list[list]:
    """Rows of the verdict table for one pair's diff record: pair, row, B/A, interval, verdict, expected, ok."""
    _b, must, _rc = PAIRS[pair]
    out = []
    for r in diff["rows"]:
        allowed = must.get("*", must.get(r["label"], ()))
        ok = allowed is None or r["verdict"] in allowed
        interval = "-" if r["low"] is None else f"[{r['low']:.3f}, {r['high']:.3f}]"
        out.append([pair, r["label"], f"{r['ratio']:.3f}", interval, r["verdict"],
                    "any" if allowed is None else "/".join(allowed), "ok" if ok else "WRONG"])
    return out


def chunk_cost(iters: int = 5000, repeats: int = 5) -> list[str]:
    """measure_run with chunks=1 and chunks=10, alternated twice: each mode's printed medians side by side."""
    from cugraphlab.bench.run import measure_run

    figures: dict[int, list] = {1: [], 10: []}
    seconds: dict[int, float] = {1: 0.0, 10: 0.0}
    for chunks in (1, 10, 1, 10):
        t0 = time.perf_counter()
        r = measure_run(iters=iters, repeats=repeats, chunks=chunks, seed=3)
        seconds[chunks] += time.perf_counter() - t0
        figures[chunks].append({m.mode: (m.wall_us_per_iter.median, m.device_us_per_iter.median) for m in r.modes})
    rows = []
    for mode in figures[1][0]:
        one = [f[mode] for f in figures[1]]
        ten = [f[mode] for f in figures[10]]
        w1, w10 = sum(x[0] for x in one) / 2, sum(x[0] for x in ten) / 2
        d1, d10 = sum(x[1] for x in one) / 2, sum(x[1] for x in ten) / 2
        rows.append([mode, f"{w1:.3f}", f"{w10:.3f}", f"{(w10 / w1 - 1) * 100:+.2f}%", f"{d1:.3f}", f"{d10:.3f}",
                     f"{(d10 / d1 - 1) * 100:+.2f}%"])
    return [f"what chunks cost: measure_run({iters} iterations x {repeats} repeats), chunks=1 and chunks=10 "
            "alternated twice; medians (us/iter), mean of the two runs each:",
            format_table(["mode", "wall, 1 chunk", "wall, 10 chunks", "diff", "device, 1 chunk", "device, 10 chunks",
                          "diff"], rows),
            f"seconds per run: {seconds[1] / 2:.2f} (1 chunk), {seconds[10] / 2:.2f} (10 chunks)"]


def main(argv=None, runner=subprocess_runner, cost=chunk_cost) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default="diff_judges_out", help="folder for the records and diffs")
    ap.add_argument("--iters", type=int, default=1000, help="iterations per timed loop of the four runs")
    args = ap.parse_args(argv)
    if runner is subprocess_runner:  # the runs need a GPU; a runner given by a test does not
        require_gpu(__file__)  # before anything is created: no GPU is one line, exit 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    wrong: list[str] = []
    runs = {"a": ([], None), "b": ([], None), "slow": ([], {"CUGRAPHLAB_LAUNCH_DELAY_NS": str(DELAY_NS)}),
            "small": (["--size", "1024"], None)}
    for name, (extra, env) in runs.items():
        t0 = time.perf_counter()
        rc, stdout, stderr = runner(["run", "--iters", str(args.iters), *extra, "--json", str(out / f"run_{name}.json")],
                                    env)
        print(f"=== cugraphlab run {' '.join(extra)} --iters {args.iters}{' (env ' + str(env) + ')' if env else ''}: "
              f"exit {rc}, {time.perf_counter() - t0:.1f} s ===")
        print(stdout.rstrip())
        if rc != 0:
            print(stderr.rstrip())
            wrong.append(f"run {name} exited {rc}")
    table = []
    for pair, (b, _must, want_rc) in PAIRS.items():
        diff_json = out / f"diff_{pair}.json"
        rc, stdout, stderr = runner(["diff", str(out / "run_a.json"), str(out / f"run_{b}.json"), "--json",
                                     str(diff_json), "--fail-on", "slower"])
        print(f"\n=== cugraphlab diff run_a.json run_{b}.json --fail-on slower: exit {rc} ===")
        print(stdout.rstrip() + (("\n" + stderr.rstrip()) if stderr.strip() else ""))
        if want_rc is not None and rc != want_rc:
            wrong.append(f"diff {pair} exited {rc}, expected {want_rc}")
        if not diff_json.exists():
            wrong.append(f"diff {pair} wrote no record")
            continue
        rows = judge(pair, json.loads(diff_json.read_text()))
        wrong += [f"{r[0]}: {r[1]} is {r[4]}, expected {r[5]}" for r in rows if r[-1] == "WRONG"]
        table += rows
    rc, stdout, stderr = runner(["diff", str(out / "run_a.json"), str(out / "run_small.json")])
    lines = stderr.strip().splitlines()
    print(f"\n=== cugraphlab diff run_a.json run_small.json: exit {rc} ===\n{stderr.rstrip()}")
    if rc != 2 or len(lines) != 1 or "size: 1048576 -> 1024" not in lines[0]:
        wrong.append(f"other configurations: exit {rc}, {len(lines)} line(s), expected exit 2 and one line "
                     "naming the size")
    print()
    for line in cost():
        print(line)
    print(f"\nverdicts (threshold 5%; {time.perf_counter() - t_start:.0f} s in all):")
    print(format_table(["pair", "row", "B/A", "95% interval", "verdict", "expected", ""], table))
    if wrong:
        print("diff judges: WRONG: " + "; ".join(wrong))
        return 1
    print("diff judges: every verdict as it must be")
    return 0


if __name__ == "__main__":
    run_main(main, __file__)
