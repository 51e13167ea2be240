"""cuda-bench (nvbench) and cugraphlab time the same kernels side by side (issue 25 section 6; one device call,
about 60-90 s on an H200, ``--quick`` about 20 s).

The kernels: a user's saxpy at 2^20 floats, and the chain's add, mul, sub and relu at 2^20 and 1,024 floats
(``workloads``), each launch prepared once by cugraphlab and checked bit for bit against NumPy before, after
nvbench's launches and after cugraphlab's. Then, in this order, in one process and one context (nvbench's runtime
and cugraphlab share the device's primary context):

1. nvbench (``nvbench_side``): per workload a benchmark of the one launch and one of a graph of 50 of it, each
   measured cold and batch; JSON with the raw cold GPU times (``--jsonbin``) and its markdown table.
2. cugraphlab (``measure``): the same launch isolated after an L2 flush (nvbench's cold way), isolated warm, in an
   eager loop (nvbench's batch way), as graphs of 50, held back to back, on rotating cold sets, and from a C loop.
3. The report (``report``): both tools side by side, the agreement judged by ``cugraphlab diff`` at ±3%, and what
   only cugraphlab shows (host µs per launch, the native floor, the graph's saving).

Usage (repository root, package and cuda-bench installed):

    python benchmarks/studies/nvbench/run.py OUT_DIR [--quick] [--device N]

Writes OUT_DIR/nvbench.json (+ nvbench.json-bin/, nvbench.md): nvbench's; OUT_DIR/cugraphlab.json: cugraphlab's
record (kind cugraphlab.study.nvbench); OUT_DIR/nvbench_study.log: what is printed. Then, for example:

    cugraphlab diff OUT_DIR/nvbench.json OUT_DIR/cugraphlab.json --threshold 3% \
        --pair "saxpy 2^20 [Device=0]: cold GPU" "saxpy 2^20: cold isolated"

Exit 0 when every check is bit-exact, 1 otherwise; 2 when cuda-bench or a GPU is missing (one line).
"""
from __future__ import annotations

import argparse
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/, where the studies package lives

import cugraphlab as cgl  # noqa: E402
from cugraphlab.bench.diff import read_record_file  # noqa: E402
from cugraphlab.bench.records.environment import collect  # noqa: E402
from cugraphlab.bench.records.record import clocks  # noqa: E402
from cugraphlab.core.files import Tee, write_json  # noqa: E402
from cugraphlab.experiment.runners import Runner  # noqa: E402
from studies.nvbench.measure import ROWS, UNROLL, Rig, Settings, measure_workload  # noqa: E402
from studies.nvbench.nvbench_side import Knobs, register_workloads, run_nvbench  # noqa: E402
from studies.nvbench.report import NvbenchStudyResult, render_study  # noqa: E402
from studies.nvbench.workloads import SAXPY_SOURCE, build_workloads, plan  # noqa: E402

WHEEL = "cuda_bench-0.3.0-cp312-cp312-manylinux_2_27_x86_64.whl"


def load_cuda_bench():
    """The ``cuda.bench`` module; SystemExit(2) with one line when it is not installed."""
    try:
        import cuda.bench as bench

        bench.State  # noqa: B018  - loads the native extension for this CUDA major now, not mid-run
        return bench
    except Exception as e:  # ImportError, or its extension failing to load
        print(f"nvbench study: cuda-bench cannot be used here ({type(e).__name__}: {e}); install it with "
              f"pip install --no-deps {WHEEL} (benchmarks/h200.sh installs it from .carry/cuda-bench/)",
              file=sys.stderr)
        raise SystemExit(2) from None


def _check(checks: list, verification) -> None:
    checks.append({"text": str(verification), "ok": bool(verification.ok)})


def study(dev, out: Path, bench, *, quick: bool, items=None) -> tuple[NvbenchStudyResult, dict]:
    """Both sides on ``dev``; returns cugraphlab's record and nvbench's (read back as ``cugraphlab diff`` reads
    it). ``items``: (kernel, floats) pairs instead of ``workloads.plan`` (tests)."""
    settings, knobs = (Settings.quick(), Knobs.quick()) if quick else (Settings(), Knobs())
    checks: list = []
    facts: dict = {}
    with dev.create_stream() as stream, dev.load_kernels(names=["add", "mul", "sub", "relu", "hold"],
                                                          extra_sources={"saxpy": SAXPY_SOURCE}) as kernels:
        workloads = build_workloads(dev, kernels, stream, items or plan(quick))
        runners = {}
        try:
            for w in workloads:
                w.launch_on(stream)()
                _check(checks, w.check(stream, "first launch"))
                w.poison(stream)
                runners[w.name] = Runner([w.launch_on(stream)], stream)
            graphs = {name: r.graph_exec(UNROLL) for name, r in runners.items()}
            stream.synchronize()
            t0 = time.perf_counter()
            register_workloads(bench, workloads, graphs, dev, knobs)
            argv = run_nvbench(bench, out / "nvbench.json", getattr(dev, "ordinal", 0))
            facts["nvbench_seconds"] = time.perf_counter() - t0
            dev.synchronize()
            for w in workloads:
                _check(checks, w.check(stream, "after nvbench's launches"))
            t0 = time.perf_counter()
            samples: dict = {}
            with Rig(dev, stream, kernels, settings) as rig:
                facts["l2_bytes"] = rig.l2_bytes
                for w in workloads:
                    rows, cks, more = measure_workload(rig, w)
                    samples[w.name] = rows
                    for c in cks:
                        _check(checks, c)
                    facts[w.name] = more
                if rig.native_why:
                    facts["C loop"] = f"not measured: {rig.native_why}"
            facts["cugraphlab_seconds"] = time.perf_counter() - t0
        finally:
            for r in runners.values():
                r.close()
            for w in workloads:
                w.close()
    rec = NvbenchStudyResult(
        config={"workloads": [w.name for w in workloads], "settings": vars(settings), "nvbench": knobs.to_dict(),
                "nvbench_argv": argv, "unroll": UNROLL, "quick": quick, "rows": {k: v[1] for k, v in ROWS.items()}},
        env=collect(dev), clocks=clocks("wall", "device", "host_call"), workloads=[w.name for w in workloads],
        checks=checks, facts=facts)
    for name, rows in samples.items():
        for row, values in rows.items():
            if values:
                rec.keep_samples(f"{name}: {row}", values, "us", ROWS[row][0])
    return rec, read_record_file(out / "nvbench.json")


def main(argv=None, bench=None, items=None) -> int:
    """The command line above; ``bench`` (the cuda.bench module) and ``items`` (workloads.plan's pairs) for
    tests."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", help="folder for nvbench.json, cugraphlab.json and nvbench_study.log (made if "
                                    "missing)")
    ap.add_argument("--quick", action="store_true", help="three workloads, fewer samples (a smoke run)")
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args(argv)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    bench = bench if bench is not None else load_cuda_bench()
    t0 = time.perf_counter()
    try:
        with cgl.Device(args.device) as dev:
            rec, nv = study(dev, out, bench, quick=args.quick, items=items)
    except cgl.NoDeviceError as e:
        print(f"nvbench study: no usable GPU: {e}", file=sys.stderr)
        return 2
    write_json(out / "cugraphlab.json", rec)
    with open(out / "nvbench_study.log", "w", encoding="utf-8") as log, redirect_stdout(Tee(sys.stdout, log)):
        print(f"nvbench study: {len(rec.workloads)} workloads, nvbench {rec.facts.get('nvbench_seconds', 0):.1f} s, "
              f"cugraphlab {rec.facts.get('cugraphlab_seconds', 0):.1f} s, {time.perf_counter() - t0:.1f} s in all; "
              f"L2 {rec.facts.get('l2_bytes', 0) / 2**20:.0f} MiB")
        refused = rec.config["nvbench"].get("refused")
        if refused:
            print("nvbench settings refused (its defaults used): " + "; ".join(f"{k}: {v}" for k, v in refused.items()))
        print(render_study(nv, rec.to_dict()))
        print(f"written: {out / 'nvbench.json'} (+ -bin/), {out / 'cugraphlab.json'}, {out / 'nvbench_study.log'}")
    return 0 if rec.verified else 1


if __name__ == "__main__":
    sys.exit(main())
