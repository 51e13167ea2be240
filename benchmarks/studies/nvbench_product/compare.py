"""The product study's table: cuda-bench's figures beside cugraphlab's, per workload, and the goal lines (issue 31 §2).

Reads the two sides' JSON files, each holding ``"figures": {workload: {"cold": {...}, "held": {...}}}`` where each
figure is ``{"median": µs or null, "mean": µs or null, "n": count, "source": what it is}``:

    nvbench_side.json   (nvbench_side.py) cold: nvbench's cold GPU time (L2 flushed, stream held, events around one
                        call); held: nvbench's batch GPU mean of a graph of 50 calls / 50 (a mean only)
    product side        (product_side.py) cold: ``measure``'s cold figure; held: its held figure (calls queued behind
                        the hold kernel, events around them / calls); also accepted as ``"cold_us"`` / ``"held_us"``
                        lists of raw samples per workload, or ``{"workloads": {name: {...}}}`` of the same shape

Prints per workload: cuda-bench cold (median, mean), cgl cold (median, mean), the differences (cgl - cuda-bench, %
and µs); the same for held (cuda-bench's held is a mean, so both of cgl's figures are set against that mean); then
the goal lines, each "met" or "NOT met" with its misses:

    cold, 2^20 floats and above: within 3% by the median and by the mean
    cold, 1,024 floats: within 0.15 µs by the median and by the mean
    held: within 3% (cgl's median and mean against cuda-bench's mean)

A workload either side lacks is listed as missing, with the side's reason where it gave one.

Usage: python3 benchmarks/studies/nvbench_product/compare.py NVBENCH_SIDE.json PRODUCT_SIDE.json [--json OUT.json]
Exit 0 when every goal is met, 1 when one is not (or a workload could not be compared), 2 on bad input (one line).
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

from cugraphlab.report.tables import format_table

__all__ = ["GOAL_REL", "GOAL_SMALL_US", "figures_of", "compare", "render", "main"]

GOAL_REL = 0.03
GOAL_SMALL_US = 0.15
SMALL_MARK = "1,024"  # the workloads at 1,024 floats carry it in their names ("add 1,024")


def _fig(v) -> dict:
    """A figure from ``{"median", "mean"}`` or from a list of raw samples."""
    if isinstance(v, dict):
        return {"median": v.get("median"), "mean": v.get("mean"), "n": v.get("n"), "source": v.get("source")}
    if isinstance(v, (list, tuple)):
        vals = [float(x) for x in v if x is not None and math.isfinite(float(x))]
        if vals:
            return {"median": statistics.median(vals), "mean": statistics.fmean(vals), "n": len(vals),
                    "source": "raw samples"}
    return {"median": None, "mean": None, "n": 0, "source": None}


def figures_of(doc: dict) -> dict[str, dict]:
    """``{workload: {"cold": figure, "held": figure}}`` of one side's JSON (the shapes in the module docstring)."""
    per = doc.get("figures") or doc.get("workloads")
    if not isinstance(per, dict):
        raise ValueError("the file holds no 'figures' (or 'workloads') object of workloads")
    out = {}
    for name, f in per.items():
        if not isinstance(f, dict):
            continue
        out[name] = {"cold": _fig(f.get("cold", f.get("cold_us"))), "held": _fig(f.get("held", f.get("held_us")))}
    return out


def _diff(cgl, nv) -> tuple[float | None, float | None]:
    """(cgl / nv - 1, cgl - nv) or Nones."""
    if cgl is None or nv is None or not nv:
        return None, None
    return cgl / nv - 1.0, cgl - nv


def compare(nv_doc: dict, cgl_doc: dict) -> dict:
    """Rows per workload and the goal lines (see the module docstring)."""
    nv, cg = figures_of(nv_doc), figures_of(cgl_doc)
    names = list(nv) + [n for n in cg if n not in nv]
    why = {**(nv_doc.get("skipped") or {}), **(cgl_doc.get("skipped") or {})}
    rows, missing = [], {}
    for name in names:
        if name not in nv or name not in cg:
            side = "cuda-bench" if name not in nv else "cugraphlab"
            missing[name] = f"no {side} figures" + (f" ({why[name]})" if name in why else "")
            continue
        row = {"workload": name, "small": SMALL_MARK in name}
        for kind in ("cold", "held"):
            a, b = nv[name][kind], cg[name][kind]
            ref_med = a["median"] if a["median"] is not None else a["mean"]  # nvbench's held is a mean only
            rel_med, us_med = _diff(b["median"], ref_med)
            rel_mean, us_mean = _diff(b["mean"], a["mean"])
            row[kind] = {"nv": a, "cgl": b, "rel_median": rel_med, "rel_mean": rel_mean, "us_median": us_med,
                         "us_mean": us_mean}
        rows.append(row)
    return {"rows": rows, "missing": missing, "goals": _goals(rows, missing)}


def _within(row: dict, kind: str, small_us: bool) -> tuple[bool | None, str]:
    e = row[kind]
    if small_us:
        got = [e["us_median"], e["us_mean"]]
        ok = None if None in got else all(abs(v) <= GOAL_SMALL_US for v in got)
        return ok, f"{_sig(e['us_median'], 'µs')} / {_sig(e['us_mean'], 'µs')}"
    got = [e["rel_median"], e["rel_mean"]]
    ok = None if None in got else all(abs(v) <= GOAL_REL for v in got)
    return ok, f"{_sig(e['rel_median'])} / {_sig(e['rel_mean'])}"


def _goals(rows: list, missing: dict) -> list[dict]:
    specs = [("cold, 2^20 floats and above: within 3% by the median and by the mean", "cold",
              lambda r: not r["small"], False),
             ("cold, 1,024 floats: within 0.15 µs by the median and by the mean", "cold", lambda r: r["small"], True),
             ("held: within 3% (cgl's median and mean against cuda-bench's mean)", "held", lambda r: True, False)]
    goals = []
    for text, kind, which, small_us in specs:
        judged = [r for r in rows if which(r)]
        results = [(r["workload"], *_within(r, kind, small_us)) for r in judged]
        misses = [f"{w} {how}" for w, ok, how in results if ok is False]
        undecided = [w for w, ok, _ in results if ok is None]
        met = bool(results) and not misses and not undecided
        goals.append({"goal": text, "met": met, "judged": len(results),
                      "within": sum(1 for _, ok, _ in results if ok), "misses": misses, "undecided": undecided})
    if missing:
        goals.append({"goal": "every workload compared", "met": False, "judged": len(rows) + len(missing),
                      "within": len(rows), "misses": [f"{k}: {v}" for k, v in missing.items()], "undecided": []})
    return goals


def _sig(v, unit: str = "%") -> str:
    if v is None:
        return "n/a"
    return f"{v * 100:+.1f}%" if unit == "%" else f"{v:+.3f} µs"


def _num(v) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def render(result: dict) -> str:
    lines = []
    for kind, title in (("cold", "cold: one call after an L2 flush, queued behind a held stream, events around it"),
                        ("held", "held: the GPU's time per call with no host gaps (cuda-bench: batch of a graph of "
                                 "50 calls / 50; cgl: measure's held row)")):
        rows = []
        for r in result["rows"]:
            e = r[kind]
            rows.append([r["workload"], f"{_num(e['nv']['median'])} ({_num(e['nv']['mean'])})",
                         f"{_num(e['cgl']['median'])} ({_num(e['cgl']['mean'])})",
                         f"{_sig(e['rel_median'])} ({_sig(e['rel_mean'])})",
                         f"{_sig(e['us_median'], 'µs')} ({_sig(e['us_mean'], 'µs')})"])
        lines += [f"{title}; µs per call, median (mean); difference: cgl - cuda-bench",
                  format_table(["workload", "cuda-bench", "cgl", "difference %", "difference µs"], rows,
                               align="lrrrr"), ""]
    for name, why in result["missing"].items():
        lines.append(f"{name}: not compared: {why}")
    lines.append("goals:")
    for g in result["goals"]:
        state = "met" if g["met"] else "NOT met"
        line = f"  {g['goal']}: {state}, {g['within']} of {g['judged']}"
        if g["misses"]:
            line += "; misses: " + "; ".join(g["misses"])
        if g["undecided"]:
            line += "; no figure: " + ", ".join(g["undecided"])
        lines.append(line)
    return "\n".join(lines)


def _read(path: str) -> dict:
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: {type(e).__name__}: {e}".splitlines()[0]) from None
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: not a JSON object")
    return doc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("nvbench_side", help="nvbench_side.py's JSON (OUT_DIR/nvbench_side.json)")
    ap.add_argument("product_side", help="product_side.py's JSON")
    ap.add_argument("--json", default=None, help="also write the rows and goals as JSON")
    a = ap.parse_args(argv)
    try:
        nv_doc, cgl_doc = _read(a.nvbench_side), _read(a.product_side)
        result = compare(nv_doc, cgl_doc)
    except ValueError as e:
        print(f"compare: {e}", file=sys.stderr)
        return 2
    print(render(result))
    if a.json:
        Path(a.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0 if all(g["met"] for g in result["goals"]) else 1


if __name__ == "__main__":
    sys.exit(main())
