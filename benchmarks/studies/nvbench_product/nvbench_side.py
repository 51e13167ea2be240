"""cuda-bench's side of the product study: NVIDIA's nvbench (``cuda.bench``) timing the study's workloads.

For every workload of ``workloads.py`` two benchmarks, run by nvbench with its own stream:

    "<workload>"           the launcher makes one call of the work on nvbench's stream. nvbench's cold GPU time is
                           its default recipe: L2 flushed, the stream held by its blocking kernel while the call is
                           queued, CUDA events around that call alone (raw samples from ``--jsonbin``): **cold**
    "<workload> graph x50" the launcher makes one cuGraphLaunch of a graph of 50 calls of the work (captured once on
                           a cugraphlab stream, uploaded): nvbench's batch GPU time of it (events around many calls
                           made back to back; the GPU is the slower side) divided by 50 is the GPU time of the work
                           made GPU-bound: **held**; its cold GPU time / 50 is kept beside it

A workload that cannot be captured (a callable that synchronises, a library missing) has no graph benchmark, and
its entry says why. Every workload is checked bit for bit against NumPy float32 (``Built.check``, outputs poisoned
first): after a first call, after nvbench's launches, and after one launch of its graph of 50.

Usage (repository root, package and cuda-bench installed; about a minute on an H200):
    python3 benchmarks/studies/nvbench_product/nvbench_side.py OUT_DIR [--quick] [--workloads "add 2^20,..."]
Writes OUT_DIR/nvbench.json (+ nvbench.json-bin/, nvbench.md: nvbench's own files) and OUT_DIR/nvbench_side.json
(kind ``cugraphlab.study.nvbench_product.nvbench``: per workload cold and held figures in µs, median and mean, with
their source; ``compare.py`` reads it). Exit 0 when every check is bit-exact, 1 otherwise, 2 when cuda-bench or a
GPU is missing (one line).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/, where the studies package lives

from studies.nvbench.nvbench_side import Knobs, run_nvbench  # noqa: E402
from studies.nvbench.report import nvbench_label  # noqa: E402
from studies.nvbench_product import workloads as W  # noqa: E402

__all__ = ["KIND", "GRAPH_SUFFIX", "register", "nvbench_figures", "run_side", "main"]

KIND = "cugraphlab.study.nvbench_product.nvbench"
GRAPH_SUFFIX = f" graph x{W.GRAPH_LAUNCHES}"


def _stream_key(launch) -> int:
    return int(launch.get_stream().__cuda_stream__()[1])


def graph_of_calls(built, stream, calls: int = W.GRAPH_LAUNCHES):
    """A ready GraphExec of ``calls`` calls of the work, captured on ``stream`` (a cugraphlab Stream)."""
    from cugraphlab.graphs.capture import capture
    from cugraphlab.graphs.exec import ready_exec

    call = built.call_on(stream)
    with capture(stream) as cap:
        for _ in range(calls):
            call()
    return ready_exec(cap.graph, stream)


def register(bench, built: dict, graphs: dict, device, knobs: Knobs) -> list[str]:
    """Register the benchmarks with ``bench`` (the ``cuda.bench`` module, or a stand-in): per workload ``name``
    (one call on nvbench's stream) and, where ``graphs`` has one, ``name + GRAPH_SUFFIX``. Returns their names."""
    from cugraphlab import Stream, cu

    names = []
    for name, b in built.items():
        def one(state, b=b):
            cache: dict = {}

            def launcher(launch):
                key = _stream_key(launch)
                call = cache.get(key)
                if call is None:  # nvbench's stream, wrapped once (not owned: nvbench destroys it)
                    call = cache[key] = b.call_on(Stream.wrap(launch.get_stream(), device=device))
                call()

            state.exec(launcher)

        regs = [(one, name)]
        if name in graphs:
            def graph(state, exe=graphs[name]):
                streams: dict = {}

                def launcher(launch):
                    key = _stream_key(launch)
                    s = streams.get(key)
                    if s is None:
                        s = streams[key] = Stream.wrap(launch.get_stream(), device=device)
                    cu("cuGraphLaunch", exe.handle, s.handle)

                state.exec(launcher)

            regs.append((graph, name + GRAPH_SUFFIX))
        for fn, bench_name in regs:
            reg = bench.register(fn)
            reg.set_name(bench_name)
            knobs.apply(reg)
            names.append(bench_name)
    return names


def _stats(values) -> dict:
    v = [float(x) for x in values or [] if x is not None]
    if not v:
        return {"n": 0, "median": None, "mean": None}
    return {"n": len(v), "median": statistics.median(v), "mean": statistics.fmean(v)}


def nvbench_figures(nv: dict, names, calls: int = W.GRAPH_LAUNCHES, gpu_bound=()) -> dict:
    """Per workload, from nvbench's record (as ``cugraphlab diff`` reads its JSON): ``cold`` (its cold GPU samples,
    µs: median, mean, n), ``held`` (batch GPU mean of the graph of ``calls`` / ``calls``; a mean only, nvbench
    keeps no batch samples) and ``held_cold`` (the graph's cold GPU samples / ``calls``). A workload of
    ``gpu_bound`` (a graph of launches already) without a graph of its own calls: ``held`` is the batch GPU mean of
    one call."""
    out = {}
    samples = nv.get("samples") or {}
    summaries = nv.get("nvbench") or {}
    for name in names:
        entry: dict = {}
        label = nvbench_label(nv, name)
        entry["cold"] = _stats((samples.get(label) or {}).get("values")) if label else _stats([])
        entry["cold"]["source"] = "nvbench cold GPU time (L2 flushed, stream held by its blocking kernel)"
        g = nvbench_label(nv, name + GRAPH_SUFFIX)
        if g:
            batch = (summaries.get(g) or {}).get("batch_gpu_mean_us")
            entry["held"] = {"n": None, "median": None, "mean": None if batch is None else batch / calls,
                             "source": f"nvbench batch GPU mean of a graph of {calls} calls / {calls}"}
            cold = [v / calls for v in (samples.get(g) or {}).get("values") or [] if v is not None]
            entry["held_cold"] = {**_stats(cold), "source": f"nvbench cold GPU time of the graph of {calls} / "
                                                            f"{calls}"}
        elif name in gpu_bound and label:
            batch = (summaries.get(label) or {}).get("batch_gpu_mean_us")
            entry["held"] = {"n": None, "median": None, "mean": batch,
                             "source": "nvbench batch GPU mean of one call (a graph of launches: GPU-bound already)"}
        out[name] = entry
    return out


def _check(checks: list, verification) -> bool:
    checks.append({"text": str(verification), "ok": bool(verification.ok)})
    return bool(verification.ok)


def run_side(dev, out: Path, bench, *, quick: bool = False, names=None) -> dict:
    """Build every workload (``names``: a subset), check it, capture its graph of 50, let nvbench time both,
    check again; returns the side's record (also written to ``out/nvbench_side.json`` by ``main``)."""
    from cugraphlab.bench.diff import read_record_file
    from cugraphlab.bench.records.environment import collect

    names = list(names or W.WORKLOADS)
    knobs = Knobs.quick() if quick else Knobs()
    checks: list = []
    skipped: dict = {}
    no_graph: dict = {}
    built: dict = {}
    graphs: dict = {}
    facts: dict = {}
    with dev.create_stream() as stream, W.load_kernels(dev) as kernels:
        try:
            for name in names:
                need = W.NEEDS.get(name)
                if need:
                    try:
                        __import__(need)
                    except Exception as e:  # ImportError, or a library that fails to load
                        skipped[name] = f"{need} does not import ({type(e).__name__}: {e})".splitlines()[0]
                        continue
                b = built[name] = W.build(name, dev, stream, kernels)
                b.poison()
                b.call_on(stream)()
                _check(checks, b.check("first call"))
                try:
                    graphs[name] = graph_of_calls(b, stream)
                except Exception as e:  # a callable that cannot be captured: no held figure, and why
                    no_graph[name] = f"{type(e).__name__}: {e}".splitlines()[0]
                    continue
                b.poison()
                graphs[name].launch(stream)
                _check(checks, b.check(f"one launch of its graph of {W.GRAPH_LAUNCHES}"))
            stream.synchronize()
            t0 = time.perf_counter()
            bench_names = register(bench, built, graphs, dev, knobs)
            argv = run_nvbench(bench, out / "nvbench.json", getattr(dev, "ordinal", 0))
            facts["nvbench_seconds"] = round(time.perf_counter() - t0, 2)
            dev.synchronize()
            for name, b in built.items():
                _check(checks, b.check("after nvbench's launches"))
        finally:
            for exe in graphs.values():
                exe.close()
            for b in built.values():
                b.close()
    nv = read_record_file(out / "nvbench.json")
    return {"kind": KIND, "schema": 1,
            "config": {"workloads": list(built), "benchmarks": bench_names, "nvbench": knobs.to_dict(),
                       "nvbench_argv": argv, "graph_calls": W.GRAPH_LAUNCHES, "quick": quick},
            "env": collect(dev), "nvbench_env": nv.get("env"), "clocks": {
                "cold": "nvbench cold GPU time: CUDA events around one call after an L2 flush, queued behind "
                        "nvbench's blocking kernel",
                "held": f"nvbench batch GPU time of a graph of {W.GRAPH_LAUNCHES} calls / {W.GRAPH_LAUNCHES}: "
                        "CUDA events around many graph launches back to back"},
            "figures": nvbench_figures(nv, list(built), gpu_bound=[n for n, b in built.items() if b.kind == "graph"]),
            "skipped": skipped, "no_graph": no_graph,
            "checks": checks, "facts": facts, "verified": bool(checks) and all(c["ok"] for c in checks)}


def _load_cuda_bench():
    from studies.nvbench.run import load_cuda_bench

    return load_cuda_bench()


def main(argv=None, bench=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", help="folder for nvbench.json and nvbench_side.json (made if missing)")
    ap.add_argument("--quick", action="store_true", help="nvbench's short settings (about 4x faster)")
    ap.add_argument("--workloads", default=None, help="a comma list of workload names (default: all)")
    ap.add_argument("--device", type=int, default=0)
    a = ap.parse_args(argv)
    names = [n.strip() for n in a.workloads.split(",")] if a.workloads else list(W.WORKLOADS)
    # "add 1,024" holds a comma: join the pieces that are not names with the one before
    merged: list[str] = []
    for n in names:
        if merged and merged[-1] + "," + n in W.WORKLOADS:
            merged[-1] = merged[-1] + "," + n
        else:
            merged.append(n)
    bad = [n for n in merged if n not in W.WORKLOADS]
    if bad:
        print(f"nvbench_side: unknown workload {bad[0]!r}; workloads: {', '.join(W.WORKLOADS)}", file=sys.stderr)
        return 2
    bench = bench if bench is not None else _load_cuda_bench()
    import cugraphlab as cgl
    from cugraphlab.core.errors import CugraphlabError
    from cugraphlab.core.files import write_json

    try:
        dev = cgl.Device(a.device)
    except CugraphlabError as e:
        print(f"nvbench_side: {str(e).splitlines()[0]}", file=sys.stderr)
        return 2
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with dev:
        rec = run_side(dev, out, bench, quick=a.quick, names=merged)
    write_json(out / "nvbench_side.json", rec)
    for name, f in rec["figures"].items():
        cold, held = f["cold"], f.get("held") or {}
        print(f"{name}: cold median {_us(cold.get('median'))} mean {_us(cold.get('mean'))} (n {cold.get('n')}); "
              f"held {_us(held.get('mean'))}" + (f" (no graph: {rec['no_graph'][name]})"
                                                  if name in rec["no_graph"] else ""))
    for name, why in rec["skipped"].items():
        print(f"{name}: skipped ({why})")
    bad = [c["text"] for c in rec["checks"] if not c["ok"]]
    print("checks: " + ("all bit-exact" if not bad else "FAILED: " + "; ".join(bad)))
    print(f"wrote {out / 'nvbench_side.json'}, {out / 'nvbench.json'}")
    return 0 if rec["verified"] else 1


def _us(v) -> str:
    return "n/a" if v is None else f"{v:.3f} µs"


if __name__ == "__main__":
    sys.exit(main())
