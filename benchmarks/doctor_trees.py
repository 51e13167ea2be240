"""The capture doctor's overhead (explain=True: capture µs and replay µs per cuGraphLaunch, plain and explained) of
today's tree and of an older one (``CGL_BEFORE``, e.g. ``git archive COMMIT cugraphlab kernels``), each measured in a
child process of its own, alternated (today, before, today, before ...), so that "the overhead stays what it is or
less" is one run's comparison.

The child calls ``cugraphlab.bench.doctor.measure_doctor(device, samples=N)`` (``run_doctor``, its old name, in a
tree older than the rename) and prints its ``overhead`` dict: the one entry point with the same signature in both
trees (f5be4c6's doctor lives in graphs/doctor.py, today's in the graphs/doctor/ package; bench.doctor's doctor and
measure_overhead are the same in both). The ratios are
computed here from the medians, so a tree whose overhead lacks ``capture_ratio`` is compared the same way.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = (
    "import json, sys\n"
    "import cugraphlab\n"
    "try:\n"
    "    from cugraphlab.bench.doctor import measure_doctor as doctor\n"
    "except ImportError:  # a tree older than the rename\n"
    "    from cugraphlab.bench.doctor import run_doctor as doctor\n"
    "r = doctor(int(sys.argv[1]), samples=int(sys.argv[2]))\n"
    "print('@@OVERHEAD@@' + json.dumps({'tree': cugraphlab.__file__, 'overhead': r.overhead}))\n"
)


def ratios(overhead: dict) -> dict:
    """Medians and explained/plain ratios of an overhead dict (measure_overhead's), for capture and replay."""
    out = {}
    for phase in ("capture", "replay"):
        plain, explained = overhead[f"{phase}_plain"]["median"], overhead[f"{phase}_explained"]["median"]
        out[f"{phase}_plain_us"], out[f"{phase}_explained_us"] = plain, explained
        out[f"{phase}_ratio"] = explained / plain if plain else None
    return out


def measure_tree(tree: Path, device: int, samples: int, timeout: float = 240) -> dict:
    """One child's overhead with the cugraphlab of ``tree``: run from that folder, whose package comes first on the
    child's import path (``python -c`` puts its working folder before everything else, the installed package
    included): {"tree", "overhead", ratios...} or {"error"}."""
    try:
        r = subprocess.run([sys.executable, "-c", CHILD, str(device), str(samples)], cwd=tree,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    line = next((l for l in r.stdout.splitlines() if l.startswith("@@OVERHEAD@@")), None)
    if line is None:
        return {"error": f"exit {r.returncode}: {(r.stderr or r.stdout)[-800:]}"}
    out = json.loads(line[len("@@OVERHEAD@@"):])
    out.update(ratios(out["overhead"]))
    return out


def before_after(before: Path, device: int, samples: int, rounds: int = 2) -> list[dict]:
    """``rounds`` alternations of today's tree and ``before``: a list of {"who", "round", ...measure_tree}."""
    runs = []
    for rnd in range(1, rounds + 1):
        for who, tree in (("today", ROOT), ("before", before)):
            runs.append({"who": who, "round": rnd, **measure_tree(tree, device, samples)})
    return runs


def compare_rows(runs: list[dict]) -> list[list]:
    """Table rows: tree, round, capture µs plain / explained, capture ratio, replay µs plain / explained, ratio."""
    rows = []
    for r in runs:
        if "error" in r:
            rows.append([r["who"], r["round"], "error", "", "", "", ""])
            continue
        rows.append([r["who"], r["round"], f"{r['capture_plain_us']:.1f} / {r['capture_explained_us']:.1f}",
                     f"{r['capture_ratio']:.2f}", f"{r['replay_plain_us']:.2f} / {r['replay_explained_us']:.2f}",
                     f"{r['replay_ratio']:.3f}", r.get("tree", "")])
    return rows


def verdict(runs: list[dict]) -> str:
    """One line: today's and before's median ratios over their rounds (capture, replay)."""
    import statistics

    def med(who, key):
        vals = [r[key] for r in runs if r["who"] == who and "error" not in r and r.get(key) is not None]
        return statistics.median(vals) if vals else None

    parts = []
    for key in ("capture_ratio", "replay_ratio"):
        t, b = med("today", key), med("before", key)
        if t is None or b is None:
            parts.append(f"{key}: not measured in both trees")
        else:
            parts.append(f"{key} today {t:.3f} vs before {b:.3f} ({'same or less' if t <= b else 'MORE'} today)")
    return "doctor overhead, one run, explained/plain (median over rounds): " + "; ".join(parts)
