"""Issue 31 section 3 on a GPU: does the documented CI recipe hold, through the command line?

    cugraphlab measure WORK ... --json old.json
    cugraphlab measure WORK ... --json new.json --compare-to old.json --fail-on slower     # exit 1: SLOWER

Run from the repository root on a GPU machine (about 6-7 minutes on an H200 at the defaults: 62 commands of
about 6 s, each 4 fresh processes):

    python benchmarks/ci_recipe.py OUT_DIR [--pairs 20] [--processes 4] [--time-budget 0.3] [--dry-run]

Three experiments, every measurement a fresh ``cugraphlab measure`` command with ``--processes P`` (the process is
the unit of the verdict; 4 is the fewest with which the rank test can reach p < 0.05) and the default threshold
(5%), judging by default only the rows that repeat between processes (x ref, held, cold, device-bound):

1. **unchanged** (goal: at most 1 false SLOWER in 20 pairs): ``benchmarks/ci_recipe_work/work.py:step --setup
   make --ways eager`` (a saxpy launch on 1,024 floats: the host's pace) measured ``pairs + 1`` times, U_0 ... U_20;
   U_k runs with ``--compare-to U_{k-1} --fail-on slower``. A false alarm: exit 1 with a judged row SLOWER.
2. **1 µs delay** (goal: flagged SLOWER in at least 19 of 20): after each U_k but the last, D_k, the same command
   with ``CGL_DELAY_US=1`` (each call spins 1 µs after its launch: ``work.py``), ``--compare-to U_k --fail-on
   slower``. Flagged: exit 1 with a judged row SLOWER (the x ref row ``eager: host / reference``).
   Experiments 1 and 2 interleave: U_0 D_0 U_1 D_1 ... U_20 (41 commands).
3. **kernel +10%** (goal: SLOWER by its held row in at least 19 of 20): ``spin.cu`` (SPIN_ITERS dependent
   multiply-adds per thread, ~50 µs at 2^16 elements: the GPU's pace) and a copy with SPIN_ITERS raised 10%,
   both named spin.cu (one configuration), alternated K_0 L_0 K_1 ... (``pairs + 1`` commands); each from the
   second on with ``--compare-to`` the previous one and ``--fail-on any-change`` (a base after a longer one should
   read FASTER). Every pair is then judged base (A) against longer (B) by ``bench.diff.diff_records`` with the
   settings ``measure --compare-to`` uses (the same function, seed and threshold): SLOWER by its ``held`` row
   (the clock name ``held``) counts. Where the records have no held row (a tree whose measure has no held
   clock yet), the device-bound ``eager: device`` row is read instead and the table says so.

Every exit code, every judged row's verdict and every command's seconds go to OUT_DIR/ci_recipe.json; the summary
table is printed last. ``--max-seconds`` (default 420) stops starting commands once spent (the callable
experiments get 41/62 of it), and the table then says how many pairs were made; ``--only callable|kernel`` runs
one family (two calls of a machine instead of one). ``--dry-run`` prints the commands and runs none (no GPU needed).
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "ci_recipe_work"
ROOT = HERE.parent
SPIN_ITERS = 25_000
LONGER = 1.10


def _cgl() -> list[str]:
    return [sys.executable, "-m", "cugraphlab"]


def callable_command(json_path: Path, compare_to: Path | None, fail_on: str, args) -> list[str]:
    cmd = [*_cgl(), "measure", f"{WORK / 'work.py'}:step", "--setup", "make", "--ways", "eager",
           "--processes", str(args.processes), "--time-budget", str(args.time_budget), "--json", str(json_path)]
    if compare_to is not None:
        cmd += ["--compare-to", str(compare_to), "--fail-on", fail_on, "--threshold", f"{args.threshold:g}"]
    return cmd


def kernel_command(cu: Path, json_path: Path, compare_to: Path | None, fail_on: str, args) -> list[str]:
    cmd = [*_cgl(), "measure", str(cu), "--kernel", "spin", "--size", "2^16", "--args", "out,x,n", "--ways",
           "eager", "--processes", str(args.processes), "--time-budget", str(args.time_budget),
           "--json", str(json_path)]
    if compare_to is not None:
        cmd += ["--compare-to", str(compare_to), "--fail-on", fail_on, "--threshold", f"{args.threshold:g}"]
    return cmd


def write_kernels(out: Path) -> tuple[Path, Path]:
    """spin.cu as it is (base) and with SPIN_ITERS raised 10% (longer), each as spin.cu in its own folder."""
    text = (WORK / "spin.cu").read_text()
    line = f"#define SPIN_ITERS {SPIN_ITERS}"
    if line not in text:
        raise SystemExit(f"ci_recipe: {WORK / 'spin.cu'} has no line {line!r}")
    paths = []
    for name, iters in (("base", SPIN_ITERS), ("longer", round(SPIN_ITERS * LONGER))):
        folder = out / "kernel" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "spin.cu").write_text(text.replace(line, f"#define SPIN_ITERS {iters}"))
        paths.append(folder / "spin.cu")
    return paths[0], paths[1]


class Runner:
    """Runs (or, with dry_run, prints) each command, under the time left; keeps exit codes and seconds."""

    def __init__(self, args):
        self.args = args
        self.start = time.perf_counter()
        self.until = args.max_seconds  # seconds after start when no command is started any more
        self.log: list[dict] = []

    def left(self) -> float:
        return self.until - (time.perf_counter() - self.start)

    def __call__(self, name: str, cmd: list[str], delay_us: float = 0.0) -> int | None:
        env = dict(os.environ, CGL_DELAY_US=f"{delay_us:g}")
        if self.args.dry_run:
            print(f"{name}: {'CGL_DELAY_US=1 ' if delay_us else ''}{shlex.join(cmd)}")
            return 0
        if self.left() < 5:
            return None
        t0 = time.perf_counter()
        code, text = self.run(cmd, env, timeout=max(5.0, self.left()))
        s = time.perf_counter() - t0
        self.log.append({"name": name, "exit": code, "seconds": round(s, 2)})
        (self.args.out / "logs").mkdir(parents=True, exist_ok=True)
        (self.args.out / "logs" / f"{name}.log").write_text(shlex.join(cmd) + "\n" + text)
        print(f"{name}: exit {code}, {s:.1f} s", flush=True)
        return code

    @staticmethod
    def run(cmd: list[str], env: dict, timeout: float) -> tuple[int, str]:
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        except subprocess.TimeoutExpired as e:
            return 124, f"timed out after {timeout:.0f} s\n{e.stdout or ''}{e.stderr or ''}"
        return r.returncode, r.stdout + r.stderr


def judge(a: Path, b: Path, threshold: float) -> dict:
    """B against A as ``measure --compare-to A`` judges it (``bench.diff.diff_records``, seed 0): the judged rows'
    verdicts, and each judged row's clock."""
    from cugraphlab.bench.diff import diff_records, read_record_file

    d = diff_records(read_record_file(a), read_record_file(b), threshold, a_name=str(a), b_name=str(b), env={})
    return {"judged": {r.label: r.verdict for r in d.rows_judged},
            "clocks": {r.label: r.clock_a for r in d.rows_judged},
            "ratios": {r.label: [round(r.ratio, 4), round(r.low, 4), round(r.high, 4)] for r in d.rows_judged},
            "nothing_judged": not d.judged}


def _slower(j: dict | None) -> list[str]:
    return [] if j is None else [k for k, v in j["judged"].items() if v == "SLOWER"]


def _made(code: int | None, path: Path, args) -> bool:
    """Whether a command wrote its record (exit 0 or 1: measured, compared); a dry run makes none but goes on."""
    return args.dry_run or (code in (0, 1) and path.is_file())


def callable_experiments(run: Runner, out: Path, args) -> tuple[list, list]:
    d = out / "callable"
    d.mkdir(parents=True, exist_ok=True)
    unchanged, delayed = [], []
    prev = None  # the last U record made (a failed command starts the chain again)
    for k in range(args.pairs + 1):
        u = d / f"u_{k}.json"
        code = run(f"u_{k}", callable_command(u, prev, "slower", args))
        if code is None:
            break
        if prev is not None:
            j = judge(prev, u, args.threshold) if _made(code, u, args) and not args.dry_run else None
            unchanged.append({"a": prev.name, "b": u.name, "exit": code, "judging": j,
                              "false_slower": code == 1 and bool(_slower(j))})
        prev = u if _made(code, u, args) else None
        if k == args.pairs or prev is None:
            continue
        dk = d / f"d_{k}.json"
        code = run(f"d_{k}", callable_command(dk, u, "slower", args), delay_us=1.0)
        if code is None:
            break
        j = judge(u, dk, args.threshold) if _made(code, dk, args) and not args.dry_run else None
        delayed.append({"a": u.name, "b": dk.name, "exit": code, "judging": j,
                        "flagged_slower": code == 1 and bool(_slower(j))})
    return unchanged, delayed


def _read_by(j: dict | None) -> tuple[str | None, str | None]:
    """(label, verdict) of the held row, else of the device-bound eager device row, else (None, None)."""
    if j is None:
        return None, None
    held = [k for k, c in j["clocks"].items() if c == "held"]
    if held:
        return held[0], j["judged"][held[0]]
    dev = [k for k, c in j["clocks"].items() if c == "device"]
    return (dev[0], j["judged"][dev[0]]) if dev else (None, None)


def kernel_experiment(run: Runner, out: Path, args) -> list:
    base, longer = write_kernels(out)
    d = out / "kernel"
    pairs = []
    prev = None  # (path, is_longer) of the last record made
    for k in range(args.pairs + 1):
        is_longer = k % 2 == 1
        path = d / f"{'l' if is_longer else 'k'}_{k}.json"
        code = run(f"kernel_{k}", kernel_command(longer if is_longer else base, path, prev and prev[0],
                                                 "any-change", args))
        if code is None:
            break
        made = _made(code, path, args)
        if prev is not None and prev[1] != is_longer:
            a, b = (prev[0], path) if is_longer else (path, prev[0])  # A: the base kernel, B: the one 10% longer
            j = judge(a, b, args.threshold) if made and not args.dry_run else None
            label, verdict = _read_by(j)
            pairs.append({"a": a.name, "b": b.name, "cli_exit": code, "cli_direction": "longer after base" if
                          is_longer else "base after longer", "judging": j, "read_by": label, "verdict": verdict,
                          "by_held": bool(label) and j["clocks"][label] == "held", "slower": verdict == "SLOWER"})
        prev = (path, is_longer) if made else None
    return pairs


def summary_rows(unchanged: list, delayed: list, kernel: list, pairs: int) -> list[list]:
    false = sum(p["false_slower"] for p in unchanged)
    blind = sum(p["exit"] == 1 and not p["false_slower"] for p in unchanged)
    flagged = sum(p["flagged_slower"] for p in delayed)
    slower = sum(p["slower"] for p in kernel)
    read = [p for p in kernel if p["judging"]]  # a pair whose command failed has no verdict (and counts as missed)
    held = bool(read) and all(p["by_held"] for p in read)
    need = pairs - 1
    how = "its held row" if held else "its eager: device row (no held row in these records)"
    return [
        ["unchanged saxpy callable, 1,024 floats", len(unchanged),
         f"{false} false SLOWER" + (f" ({blind} exit 1: nothing judged)" if blind else ""), "at most 1",
         "met" if len(unchanged) == pairs and false <= 1 else "NOT met"],
        ["the same with a 1 µs spin per call", len(delayed), f"{flagged} SLOWER", f"at least {need}",
         "met" if flagged >= need else "NOT met"],
        [f"spin kernel ~50 µs made 10% longer, by {how}", len(kernel), f"{slower} SLOWER", f"at least {need}",
         "met" if slower >= need and held else "NOT met"],
    ]


def print_table(rows: list[list], args) -> None:
    head = ["experiment", "pairs", "read", "goal", ""]
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    print(f"\nci_recipe: `measure --compare-to OLD --fail-on slower` through the command line, {args.processes} "
          f"processes per command, --time-budget {args.time_budget:g} s per process, threshold "
          f"{args.threshold:.0%}, default judging (x ref, held, cold, device-bound rows)")
    for r in [head, *rows]:
        print("  " + "  ".join(str(c).ljust(w) for c, w in zip(r, widths)))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--pairs", type=int, default=20)
    p.add_argument("--processes", type=int, default=4, help="--processes of each measure command (at least 4)")
    p.add_argument("--time-budget", type=float, default=0.3, help="--time-budget per process (s)")
    p.add_argument("--threshold", type=float, default=0.05, help="the threshold measure uses by default (0.05)")
    p.add_argument("--max-seconds", type=float, default=420.0, help="start no command after this many seconds")
    p.add_argument("--only", choices=("callable", "kernel"), default=None, help="one experiment family only")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run none")
    args = p.parse_args(argv)
    if args.pairs < 1:
        p.error("--pairs must be >= 1")
    if args.processes < 4:
        p.error("--processes must be >= 4: with fewer the rank test over processes cannot reach p < 0.05")
    if not args.time_budget > 0 or not args.max_seconds > 0:
        p.error("--time-budget and --max-seconds must be > 0")
    if not 0 < args.threshold < 1:
        p.error("--threshold is a fraction in (0, 1), e.g. 0.05")
    args.out.mkdir(parents=True, exist_ok=True)
    run = Runner(args)
    if args.only is None:  # 2 x pairs + 1 callable commands, then pairs + 1 kernel ones: each its share of the time
        run.until = args.max_seconds * (2 * args.pairs + 1) / (3 * args.pairs + 2)
    unchanged, delayed = callable_experiments(run, args.out, args) if args.only != "kernel" else ([], [])
    run.until = args.max_seconds
    kernel = kernel_experiment(run, args.out, args) if args.only != "callable" else []
    if args.dry_run:
        return 0
    rows = summary_rows(unchanged, delayed, kernel, args.pairs)
    failed = [c["name"] for c in run.log if c["exit"] not in (0, 1)]
    if failed:
        print(f"commands that failed (exit 2 or a timeout; see logs/): {', '.join(failed)}")
    record = {"kind": "cugraphlab.study.ci_recipe", "pairs": args.pairs, "processes": args.processes,
              "time_budget_s": args.time_budget, "threshold": args.threshold, "spin_iters": SPIN_ITERS,
              "longer": LONGER, "seconds": round(time.perf_counter() - run.start, 1), "commands": run.log,
              "unchanged": unchanged, "delay_1us": delayed, "kernel_10pct": kernel,
              "summary": [dict(zip(("experiment", "pairs", "read", "goal", "met"), r)) for r in rows]}
    (args.out / "ci_recipe.json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"written: {args.out / 'ci_recipe.json'} ({record['seconds']:.0f} s)")
    if args.only is None:
        print_table(rows, args)
        return 0 if all(r[-1] == "met" for r in rows) else 1
    print_table([r for r in rows if r[1]], args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
