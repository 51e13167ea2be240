"""Where the launch-cost modes come from (issue 14 §1) and the paired figures (§2, issue 18 §1's native floor).

Run from the repository root on a GPU machine (about 3 minutes; ``--quick`` about 1):

    python benchmarks/studies/launch_modes/run.py results/launch_modes.json

Every experiment runs in a child process of its own (``python -m studies.launch_modes.measure``, same interpreter),
so this process never touches the GPU and every setting read at context creation or per process applies:

  (a) six fresh primary contexts in one process x 4 streams each: µs per launch of ``add`` (1,024 floats) by the bare
      binding and by the C loop, 5,000 launches x 9 repeats per stream, interleaved;
  (b) the same with CUDA_DEVICE_MAX_CONNECTIONS = 1, 8, 32 (three contexts each);
  (c) created contexts (cuCtxCreate with SCHED_SPIN, SCHED_YIELD, SCHED_BLOCKING_SYNC) interleaved with primary ones;
  (d) one context and stream per process, pinned to core 0, 4 or 8, four processes per core, interleaved;
  (e) the SM clock beside every sample (clockprobe kernel), flagged below 75% of the rated clock;
  (f) the held-device figure (a spin kernel holds the stream while 512 launches queue) beside the long-loop one;
  (g) the paired measurement of every way (cugraphlab, bindings, ctypes, C, cuda.core, CuPy RawModule) as ratios to
      the bare binding with 95% intervals.

Writes one JSON with every child's data and summary; prints the tables last.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import sys as _sys
import tempfile
import time
from pathlib import Path
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))  # benchmarks/, where the studies package lives

from studies.launch_modes.measure import run_child, summarize_grid


def _f(v, fmt="{:.2f}"):
    return "-" if v is None else fmt.format(v)


def _grid_table(title: str, summary: dict) -> list[str]:
    out = [title, "  ctx kind           stream  bindings  C      bind/C  held bind  held C  SM MHz"]
    for r in summary["rows"]:
        out.append(f"  {r['context']:>3} {r['kind']:<14} {r['stream']:>6}  {_f(r.get('bindings')):>8}  "
                   f"{_f(r.get('c')):>5}  {_f(r.get('ratio'), '{:.3f}'):>6}  {_f(r.get('bindings_held')):>9}  "
                   f"{_f(r.get('c_held')):>6}  {_f(r.get('sm_mhz'), '{:.0f}'):>6}")
    out.append(_spread_line(summary))
    return out


def _spread_line(s: dict) -> str:
    parts = []
    for w in ("bindings", "c"):
        ctx = ", ".join(_f(x) for x in s["per_context"].get(w, []))
        parts.append(f"{w}: contexts [{ctx}], within-context spread x{_f(s['within_context_spread'].get(w), '{:.3f}')}"
                     f", across contexts x{_f(s['across_context_spread'].get(w), '{:.3f}')}")
    return "  " + "; ".join(parts)


def _summary_line(label: str, s: dict) -> str:
    m, h, c = s["median"], s["held_median"], s["sm_mhz"]
    return (f"  {label:<22} bindings {_f(m.get('bindings'))} (held {_f(h.get('bindings'))})  C {_f(m.get('c'))} "
            f"(held {_f(h.get('c'))})  within x{_f(s['within_context_spread'].get('bindings'), '{:.3f}')}  "
            f"across x{_f(s['across_context_spread'].get('bindings'), '{:.3f}')}  SM {_f(c['min'], '{:.0f}')}-"
            f"{_f(c['max'], '{:.0f}')} MHz, {c['low_samples']} low")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("json_out", help="where to write the JSON")
    p.add_argument("--quick", action="store_true", help="fewer contexts, launches and processes (about a minute)")
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--skip", default="", help="experiments to skip, e.g. b,d")
    a = p.parse_args(argv)
    skip = set(a.skip.split(",")) if a.skip else set()
    q = a.quick
    launches, repeats = ("2000", "5") if q else ("5000", "9")
    base = ["--device", str(a.device), "--launches", launches, "--repeats", repeats, "--quiet"]
    results: dict = {"quick": q, "started": time.strftime("%Y-%m-%d %H:%M:%S"), "experiments": {}}
    t_all = time.perf_counter()
    tmp = tempfile.mkdtemp(prefix="cgl-launch-modes-")
    counter, failures = [0], []

    def child(args, env=None):
        counter[0] += 1
        path = os.path.join(tmp, f"child{counter[0]}.json")
        data = run_child(path, args, env=env)
        if "error" in data:
            failures.append(args)
            print(f"child {args} failed: {data['error']}\n{data.get('stderr', '')}", file=sys.stderr)
        return data

    ex = results["experiments"]
    if "a" not in skip:
        print("(a) fresh primary contexts x streams ...", file=sys.stderr, flush=True)
        d = child([*base, "--contexts", "3" if q else "6", "--streams", "2" if q else "4"])
        ex["a"] = {"data": d, "summary": summarize_grid(d) if "error" not in d else None}
    if "b" not in skip:
        ex["b"] = {}
        for conns in ("1", "8", "32"):
            print(f"(b) CUDA_DEVICE_MAX_CONNECTIONS={conns} ...", file=sys.stderr, flush=True)
            d = child([*base, "--contexts", "2" if q else "3", "--streams", "2" if q else "4"],
                      env={"CUDA_DEVICE_MAX_CONNECTIONS": conns})
            ex["b"][conns] = {"data": d, "summary": summarize_grid(d) if "error" not in d else None}
    if "c" not in skip:
        print("(c) created contexts vs primary ...", file=sys.stderr, flush=True)
        d = child([*base, "--contexts", "1" if q else "2", "--streams", "2", "--kinds",
                   "primary,spin,yield,blocking_sync"])
        ex["c"] = {"data": d, "summary": summarize_grid(d) if "error" not in d else None, "by_kind": {}}
        if "error" not in d:
            for kind in ("primary", "spin", "yield", "blocking_sync"):
                sub = dict(d, contexts=[x for x in d["contexts"] if x["kind"] == kind])
                ex["c"]["by_kind"][kind] = summarize_grid(sub)
    if "d" not in skip:
        ex["d"] = {}
        cores = [c for c in (0, 4, 8) if c in os.sched_getaffinity(0)]
        for rep in range(2 if q else 4):
            for core in cores:
                print(f"(d) pinned to core {core}, process {rep + 1} ...", file=sys.stderr, flush=True)
                d = child([*base, "--contexts", "1", "--streams", "1", "--pin", str(core)])
                ex["d"].setdefault(str(core), []).append(
                    {"data": d, "summary": summarize_grid(d) if "error" not in d else None})
    if "g" not in skip:
        print("(g) paired measurement of every way ...", file=sys.stderr, flush=True)
        d = child(["--experiment", "paired", "--device", str(a.device), "--contexts", "2" if q else "3",
                   "--rounds", "5", "--launches", "2000", "--held", "512", "--quiet"])
        ex["g"] = d
    results["seconds"] = round(time.perf_counter() - t_all, 1)
    Path(a.json_out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json_out).write_text(json.dumps(results, indent=1))

    # --- the tables, last ---------------------------------------------------------------------------------------
    lines = [f"launch modes study ({'quick' if q else 'full'}): {launches} launches x {repeats} repeats per stream "
             f"and way, add on 1,024 floats; µs per launch (host); {results['seconds']:.0f} s in all"]
    if ex.get("a", {}).get("summary"):
        lines += _grid_table("(a) fresh primary contexts x streams (bindings and C, long loop and held):",
                             ex["a"]["summary"])
    if ex.get("b"):
        lines.append("(b) CUDA_DEVICE_MAX_CONNECTIONS:")
        for conns, v in ex["b"].items():
            lines.append(_summary_line(f"{conns} connections", v["summary"]) if v["summary"] else
                         f"  {conns}: failed")
            if v["summary"]:
                lines.append(_spread_line(v["summary"]))
    if ex.get("c", {}).get("by_kind"):
        lines.append("(c) context kinds (interleaved in one process):")
        for kind, s in ex["c"]["by_kind"].items():
            lines.append(_summary_line(kind, s))
    if ex.get("d"):
        lines.append("(d) pinned processes (one context, one stream each): bindings / C µs per process")
        for core, runs in ex["d"].items():
            cells = [f"{_f(r['summary']['median'].get('bindings'))}/{_f(r['summary']['median'].get('c'))}"
                     if r["summary"] else "failed" for r in runs]
            lines.append(f"  core {core}: " + "  ".join(cells))
    lows = []
    for key in ("a", "c"):
        s = ex.get(key, {}).get("summary")
        if s:
            lows.append(f"{key}: SM {_f(s['sm_mhz']['min'], '{:.0f}')}-{_f(s['sm_mhz']['max'], '{:.0f}')} MHz "
                        f"(rated {_f(s['sm_mhz']['rated'], '{:.0f}')}), {s['sm_mhz']['low_samples']} samples low")
    if lows:
        lines.append("(e) SM clock per sample: " + "; ".join(lows))
    if ex.get("a", {}).get("summary"):
        s = ex["a"]["summary"]
        lines.append(f"(f) held vs long loop, (a): bindings {_f(s['held_median'].get('bindings'))} held vs "
                     f"{_f(s['median'].get('bindings'))} long; C {_f(s['held_median'].get('c'))} held vs "
                     f"{_f(s['median'].get('c'))} long")
    if ex.get("g") and "error" not in ex["g"]:
        from cugraphlab.report.paired import render_paired

        lines.append("(g) " + render_paired(ex["g"]))
    print("\n".join(lines))
    if failures:
        print(f"{len(failures)} child processes failed (see above)", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
