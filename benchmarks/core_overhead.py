"""What cugraphlab's own layers add to a launch, next to the bare cuda.bindings call, plus the classic run.

Measures, interleaved sample by sample so drift hits every variant alike (host clock: perf_counter_ns around a loop
of N calls, divided by N; the stream is synchronized between samples, outside the timed region):

* empty kernel: bare ``cuLaunchKernel`` with arguments packed by hand vs ``Launch()`` vs ``Chain.run("eager")``
  (the chain's four kernels, per launch);
* the 4-kernel chain graph: bare ``cuGraphLaunch`` vs ``GraphExec.launch`` vs ``Chain.run("graph")``;
* a warm-cache load of the whole kernel set (wall clock);
* the classic experiment (``measure_run``) at 1,048,576 and 1,024 floats.

Usage: python benchmarks/core_overhead.py [--out benchmarks/results] [--quick]
Writes <date>_<gpu>_core_overhead.json next to a printed table.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import os
import sys
import time
from pathlib import Path

from cuda.bindings import driver

from cugraphlab import Chain, Device, NoDeviceError
from cugraphlab.bench.records.environment import collect
from cugraphlab.bench.run import measure_run
from cugraphlab.bench.stats.summary import summarize
from cugraphlab.core.files import write_json
from cugraphlab.report.env import versions_line
from cugraphlab.report.run import render_run
from cugraphlab.report.tables import format_table

CLOCK = "perf_counter_ns around a loop of N calls / N (host)"


def interleaved(variants: dict, samples: int, sync) -> dict:
    """Run each variant once per round, ``samples`` rounds; returns name -> Summary of µs per call."""
    raw = {k: [] for k in variants}
    for _ in range(samples):
        for name, fn in variants.items():
            raw[name].append(fn())
            sync()
    return {k: summarize(v, unit="us", clock=CLOCK) for k, v in raw.items()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    ap.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    ap.add_argument("--calls", type=int, default=2000, help="calls per sample")
    args = ap.parse_args()
    samples = 5 if args.quick else 31
    n_calls = args.calls
    record = {"kind": "cugraphlab.study.core_overhead", "clock": CLOCK, "calls_per_sample": n_calls,
              "samples": samples}

    with Device(0) as dev, dev.load_kernels() as ks, dev.create_stream() as stream, \
            Chain(dev, n=1 << 20, kernels=ks, stream=stream) as chain:
        record["env"] = collect(dev)
        sync = stream.synchronize

        # --- one launch of the empty kernel --------------------------------------------------------------------
        f, s = ks["empty"].handle, stream.handle
        bare_params = (ctypes.c_void_p * 1)()  # no arguments: a valid, empty void** array
        bare_addr = ctypes.addressof(bare_params)
        launch = ks["empty"].prepare((), (), (1, 32), stream)
        lk = driver.cuLaunchKernel

        def bare_launch():
            t0 = time.perf_counter_ns()
            for _ in range(n_calls):
                lk(f, 1, 1, 1, 32, 1, 1, 0, s, bare_addr, 0)
            return (time.perf_counter_ns() - t0) / 1e3 / n_calls

        def ours_launch():
            t0 = time.perf_counter_ns()
            for _ in range(n_calls):
                launch()
            return (time.perf_counter_ns() - t0) / 1e3 / n_calls

        # bare launches of the chain's own kernels, arguments packed by hand, for the chain's eager loop
        chain_calls = [lc.call_args for lc in chain.launches]

        def bare_chain():
            t0 = time.perf_counter_ns()
            for _ in range(n_calls // 4):
                for c in chain_calls:
                    lk(*c)
            return (time.perf_counter_ns() - t0) / 1e3 / (n_calls // 4 * 4)

        def ours_chain():
            t0 = time.perf_counter_ns()
            chain.run("eager", n_calls // 4)
            return (time.perf_counter_ns() - t0) / 1e3 / (n_calls // 4 * 4)

        for fn in (bare_launch, ours_launch, bare_chain, ours_chain):  # warm-up
            fn()
            sync()
        launches = interleaved({"bare cuLaunchKernel (empty)": bare_launch, "Launch() (empty)": ours_launch,
                                "bare cuLaunchKernel (chain kernels)": bare_chain,
                                "Chain.run eager (per kernel)": ours_chain}, samples, sync)

        # --- one launch of the 4-kernel graph ------------------------------------------------------------------
        exe = chain.graph_exec()
        gl, h = driver.cuGraphLaunch, exe.handle
        n_graph = max(n_calls // 4, 100)

        def bare_graph():
            t0 = time.perf_counter_ns()
            for _ in range(n_graph):
                gl(h, s)
            return (time.perf_counter_ns() - t0) / 1e3 / n_graph

        def ours_exec():
            t0 = time.perf_counter_ns()
            for _ in range(n_graph):
                exe.launch(stream)
            return (time.perf_counter_ns() - t0) / 1e3 / n_graph

        def ours_chain_graph():
            t0 = time.perf_counter_ns()
            chain.run("graph", n_graph)
            return (time.perf_counter_ns() - t0) / 1e3 / n_graph

        for fn in (bare_graph, ours_exec, ours_chain_graph):
            fn()
            sync()
        graphs = interleaved({"bare cuGraphLaunch": bare_graph, "GraphExec.launch": ours_exec,
                              "Chain.run graph (per launch)": ours_chain_graph}, samples, sync)

        # --- warm-cache load of the kernel set -----------------------------------------------------------------
        dev.load_kernels().close()  # make sure the default cache holds the set
        loads = []
        for _ in range(samples):
            t0 = time.perf_counter_ns()
            with dev.load_kernels() as warm:
                loads.append((time.perf_counter_ns() - t0) / 1e6)
                assert all(c.cache_hit for c in warm.compiled.values())
        load = summarize(loads, unit="ms", clock="perf_counter_ns around KernelSet.load (host)")

    rows = []
    for k, v in {**launches, **graphs}.items():
        rows.append([k, f"{v.median:.3f}", f"{v.p5:.3f}-{v.p95:.3f}", v.n])
    rows.append(["warm-cache kernel set load (ms)", f"{load.median:.3f}", f"{load.p5:.3f}-{load.p95:.3f}", load.n])
    d_launch = launches["Chain.run eager (per kernel)"].median - launches["bare cuLaunchKernel (chain kernels)"].median
    d_launch1 = launches["Launch() (empty)"].median - launches["bare cuLaunchKernel (empty)"].median
    d_graph = graphs["Chain.run graph (per launch)"].median - graphs["bare cuGraphLaunch"].median
    d_graph1 = graphs["GraphExec.launch"].median - graphs["bare cuGraphLaunch"].median
    print(format_table(["host us per call", "median", "p5-p95", "samples"], rows, align="lrrr"))
    print(f"\nadded by cugraphlab: eager loop {d_launch:+.3f} us/launch (Launch() {d_launch1:+.3f}); "
          f"graph loop {d_graph:+.3f} us/launch (GraphExec.launch {d_graph1:+.3f})")
    record.update({"launch_us": {k: v.to_dict() for k, v in launches.items()},
                   "graph_launch_us": {k: v.to_dict() for k, v in graphs.items()},
                   "warm_load_ms": load.to_dict(),
                   "added_us": {"eager_loop": d_launch, "launch_call": d_launch1, "graph_loop": d_graph,
                                "graph_exec_launch": d_graph1}})

    runs = {}
    for size in (1 << 20, 1024):
        r = measure_run(size=size, iters=5000, repeats=3 if args.quick else 7)
        print("\n" + render_run(r))
        runs[str(size)] = r.to_dict()
    record["classic"] = runs
    print("\n" + versions_line(record["env"]))

    gpu = record["env"]["gpu"]["name"].replace("NVIDIA ", "").replace(" ", "-")
    name = f"{datetime.date.today().isoformat()}_{gpu}_core_overhead.json"
    path = write_json(os.path.join(args.out, name), record)
    print(f"written: {path}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except NoDeviceError as e:  # no driver or no GPU: one line and exit 2, as every command says it
        print(f"{Path(__file__).name}: no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
