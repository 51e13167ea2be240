"""The product's side of the nvbench study (issue 31 §2): every workload of ``workloads.py`` measured by what a user
runs, ``cgl.measure`` and the ``cugraphlab measure`` command, and their held and cold figures written to JSON.

    for each workload (workloads.WORKLOADS):
      cgl.measure(work, ways=(WAY,), prepare=poison, check=bit-exact against NumPy, min_samples=..., ...)
          WAY: "eager" for a launch or a callable, "graph" for the graph of 50 (a GraphExec has no eager way)
      cugraphlab measure workloads.py:cli_call --setup setup_<slug> --prepare cli_prepare --check cli_check
          --ways eager --min-samples ... --json ...   (a separate process: the command as a user types it; the
          work is then a callable making one call of the workload on the stream it is given)
      the output checked bit for bit again after both

What each figure is (``measure``'s clocks, bench/measure/held.py): ``cold``, one call after an L2 flush, queued behind
the hold kernel, CUDA events around that call alone (nvbench's cold recipe); ``held``, K calls queued behind the hold,
events around them, / K (the GPU's own time per call, no host gap: what nvbench's batch of the same work made
GPU-bound reads). Per figure: median, mean, n, p5, p95 and the ~95% interval of the median, in µs.

Writes OUT_DIR/product_side.json (``cgl.measure``: ``{"figures": {workload: {"cold": {...}, "held": {...}}},
"skipped": {workload: why}, "checks": [...], ...}``, the shape ``compare.py`` reads), OUT_DIR/product_side_cli.json
(the same from the command) and OUT_DIR/records/ (every measure record, API and CLI). Prints one line per workload.

Usage (repository root, on a GPU): python benchmarks/studies/nvbench_product/product_side.py OUT_DIR [--quick]
    [--only NAME ...] [--no-cli]
Exit 0 when every measured workload was bit-exact, 1 otherwise; 2 without a GPU (one line).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # benchmarks/, where the studies package lives

import cugraphlab as cgl  # noqa: E402
from studies.nvbench_product import workloads as W  # noqa: E402

__all__ = ["figure", "figures_of_record", "measure_api", "measure_cli", "main", "SETTINGS", "QUICK"]

#: sampling per measurement: enough rounds (one held and one cold sample each) for a mean to settle
SETTINGS = {"min_samples": 200, "max_samples": 400, "time_budget_s": 2.5}
QUICK = {"min_samples": 30, "max_samples": 60, "time_budget_s": 1.0}


def way_of(built) -> str:
    return "graph" if built.kind == "graph" else "eager"


def figure(values: list[float], source: str) -> dict:
    """median, mean, n, p5, p95 and the ~95% interval of the median (order statistics) of raw µs samples."""
    v = sorted(float(x) for x in values if x is not None and math.isfinite(float(x)))
    if not v:
        return {"median": None, "mean": None, "n": 0, "source": source}
    n = len(v)
    half = 1.96 * math.sqrt(n) / 2
    lo, hi = max(0, int(math.floor(n / 2 - half))), min(n - 1, int(math.ceil(n / 2 + half)))
    return {"median": statistics.median(v), "mean": statistics.fmean(v), "n": n, "p5": v[int(0.05 * (n - 1))],
            "p95": v[int(0.95 * (n - 1))], "median_ci": [v[lo], v[hi]],
            "stdev": statistics.stdev(v) if n > 1 else 0.0, "source": source}


def figures_of_record(d: dict, way: str, via: str) -> dict:
    """The held and cold figures of one way of a measure record (as a dict: ``to_dict()`` or a --json file)."""
    out = {}
    for clock in ("held", "cold"):
        row = (d.get("samples") or {}).get(f"{way}: {clock}")
        out[clock] = figure(row["values"] if row else [], f"{via}: {way}: {clock} ({clock} clock)")
    w = next((x for x in d.get("ways", []) if x.get("way") == way), {})
    out["note"] = w.get("gpu_note", "") or w.get("note", "")
    out["held_calls"] = w.get("held_calls")
    out["check"] = w.get("check")
    for clock in ("host", "device"):
        s = w.get(clock) or {}
        out[f"{clock}_median"] = s.get("median")
    return out


def measure_api(built, dev, settings: dict, records: Path) -> dict:
    way = way_of(built)
    kw = dict(ways=(way,), prepare=built.poison, check=lambda: built.check("cgl.measure"), **settings)
    if built.kind == "callable":
        kw.update(stream=built.stream_kind, device=dev)
    r = cgl.measure(built.work, **kw)
    d = r.to_dict()
    r.save(records / f"api_{W.slug(built.name)}.json")
    return figures_of_record(d, way, "cgl.measure")


def measure_cli(built, settings: dict, records: Path) -> tuple[dict, str]:
    """``cugraphlab measure`` in its own process; (figures, the command's output)."""
    out = records / f"cli_{W.slug(built.name)}.json"
    target = HERE / "workloads.py"
    argv = [sys.executable, "-m", "cugraphlab", "measure", f"{target}:cli_call", "--setup",
            f"setup_{W.slug(built.name)}", "--prepare", "cli_prepare", "--check", "cli_check", "--ways", "eager",
            "--min-samples", str(settings["min_samples"]), "--max-samples", str(settings["max_samples"]),
            "--time-budget", str(settings["time_budget_s"]), "--json", str(out)]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=dict(os.environ))
    text = p.stdout + p.stderr
    if p.returncode != 0 or not out.exists():
        raise RuntimeError(f"cugraphlab measure exited {p.returncode}: {text.strip().splitlines()[-1:]}")
    return figures_of_record(json.loads(out.read_text()), "eager", "cugraphlab measure"), text


def _line(name: str, f: dict) -> str:
    def cell(x):
        return "-" if x.get("median") is None else f"{x['median']:.3f}/{x['mean']:.3f} (n={x['n']})"

    extra = f"  [{f['note']}]" if f.get("note") else ""
    return f"  {name:<20} cold {cell(f['cold'])}  held {cell(f['held'])} K={f.get('held_calls')}{extra}"


def main(argv=None, cli_runner=None) -> int:
    """The study (module docstring); ``cli_runner``: the command-line side instead of ``measure_cli`` (tests)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--quick", action="store_true", help="fewer samples (a check that it runs)")
    ap.add_argument("--only", action="append", metavar="NAME",
                    help="a workload to measure (repeat it; default: all)")
    ap.add_argument("--no-cli", action="store_true", help="leave out the command-line measurements")
    args = ap.parse_args(argv)
    out = Path(args.out_dir)
    records = out / "records"
    records.mkdir(parents=True, exist_ok=True)
    names = W.WORKLOADS if not args.only else tuple(args.only)
    unknown = [n for n in names if n not in W.WORKLOADS]
    if unknown:
        print(f"product side: no workload {unknown[0]!r}; workloads: {', '.join(W.WORKLOADS)}", file=sys.stderr)
        return 2
    settings = QUICK if args.quick else SETTINGS
    try:
        dev = cgl.Device(0)
    except cgl.CugraphlabError as e:
        print(f"product side: no GPU here ({e})", file=sys.stderr)
        return 2
    api = {"figures": {}, "skipped": {}, "checks": [], "settings": settings, "via": "cgl.measure"}
    cli = {"figures": {}, "skipped": {}, "checks": [], "settings": settings, "via": "cugraphlab measure"}
    t0 = time.perf_counter()
    ok = True
    described = dev.describe()
    with dev, dev.create_stream() as stream:
        kernels = W.load_kernels(dev)
        try:
            for name in names:
                need = W.NEEDS.get(name)
                try:
                    if need:
                        __import__(need)
                    built = W.build(name, dev, stream, kernels)
                except Exception as e:  # noqa: BLE001 - a library that is not installed: said, not fatal
                    why = f"{type(e).__name__}: {e}"
                    api["skipped"][name] = cli["skipped"][name] = why
                    print(f"  {name:<20} skipped: {why}")
                    continue
                try:
                    for doc, run in ((api, lambda b=built: measure_api(b, dev, settings, records)),
                                     (cli, None if args.no_cli else
                                      (lambda b=built: (cli_runner or measure_cli)(b, settings, records)[0]))):
                        if run is None:
                            continue
                        try:
                            f = run()
                        except Exception as e:  # noqa: BLE001 - one workload's failure is its row, not the study's
                            doc["skipped"][name] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                            print(f"  {name:<20} {doc['via']}: FAILED: {doc['skipped'][name]}")
                            ok = False
                            continue
                        doc["figures"][name] = f
                        if f.get("check") not in (None, "passed"):
                            ok = False
                        built.poison()
                        built.call_on(stream)()  # one more call, checked: the buffers are still right
                        stream.synchronize()
                        v = built.check(f"after {doc['via']}")
                        doc["checks"].append({"workload": name, "via": doc["via"], "text": str(v), "ok": bool(v.ok)})
                        ok = ok and bool(v.ok)
                        print(f"{doc['via']}:" + _line(name, f)[1:])
                finally:
                    built.close()
        finally:
            kernels.close()
    env = {"device": described, "seconds": time.perf_counter() - t0, "cugraphlab": getattr(cgl, "__version__", "")}
    for doc, fname in ((api, "product_side.json"), (cli, "product_side_cli.json")):
        doc["env"] = env
        (out / fname).write_text(json.dumps(doc, indent=1))
    print(f"written: {out / 'product_side.json'}, {out / 'product_side_cli.json'}, {records}/ "
          f"({env['seconds']:.0f} s); checks {'all bit-exact' if ok else 'NOT all passed'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
