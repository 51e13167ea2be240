"""Why measure's held row and cuda-bench's batch differ: the recipes side by side on the same work, one process.

The product study (``compare.py``) finds cugraphlab's ``held`` row 0.6-1.0 µs per call above cuda-bench's batch of
a graph of 50 calls / 50, and, for the graph of 50 itself, cugraphlab's held and cold figures 9-14% below
cuda-bench's. This script times, with CUDA events on one stream of one process (µs, medians of ``--samples``
samples with their p5-p95 spread):

    eager  add 2^20   held(K): K launches queued behind the hold kernel, events around them, / K, K = 1 .. 32
                      graph-of-50 held(1): one replay of a graph of 50 captured launches queued behind the hold / 50
                      graph-of-50 loop: events around a Python loop of R replays (GPU-bound: the host is faster) / 50R
    graph50 add 2^20  held(K): K replays queued behind the hold / K, K = 1 .. 32
                      loop: events around a Python loop of R replays / R
                      cold(1): one replay after an L2 flush, queued behind the hold

What each answers: held(K) against K shows whether queueing more calls behind the hold changes the GPU's time per
call (the front end working ahead); graph-of-50 against eager held(K) is the GPU's own cost of a stream launch
that a graph removes; loop against held(K) is the difference between "queued behind a blocking kernel" and
"launched while the GPU is busy" (cuda-bench's batch is of the second kind).

Usage (repository root, on a GPU): python benchmarks/studies/nvbench_product/recipes.py [--samples 200] [--json F]
Exit 0 when every output was bit-exact afterwards, 1 otherwise, 2 without a GPU (one line).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # benchmarks/, where the studies package lives

import cugraphlab as cgl  # noqa: E402
from studies.nvbench_product import workloads as W  # noqa: E402

KS = (1, 2, 4, 8, 16, 32)


class _Way:
    """What GpuClocks takes: a name, launches per call, and run(n) enqueuing n calls."""

    def __init__(self, name: str, call, per_call: int):
        self.name, self.call, self.per_call = name, call, per_call

    def run(self, n: int) -> None:
        for _ in range(n):
            self.call()


def _summary(values: list[float]) -> dict:
    v = sorted(values)
    n = len(v)
    return {"median": statistics.median(v), "p5": v[int(0.05 * (n - 1))], "p95": v[int(0.95 * (n - 1))], "n": n}


def _held(dev, stream, way, k: int, samples: int, cold: bool = False) -> dict:
    from cugraphlab.bench.measure.held import GpuClocks

    clocks = GpuClocks(dev, stream, held_calls=k, max_queued=max(k * way.per_call, 32))
    try:
        got = []
        for _ in range(samples + 5):  # the first 5: warm-up
            us = clocks.cold(way) if cold else clocks.held(way)
            if us is not None:
                got.append(us)
        return _summary(got[5:]) if len(got) > 5 else {"median": None, "n": 0, "refused": clocks.note(way.name)}
    finally:
        clocks.close()


def _loop(dev, stream, call, replays: int, samples: int, per: int) -> dict:
    start, end = dev.create_event(), dev.create_event()
    try:
        got = []
        for i in range(samples + 5):
            start.record(stream)
            for _ in range(replays):
                call()
            end.record(stream)
            end.synchronize()
            if i >= 5:
                got.append(start.elapsed_us(end) / (replays * per))
        return _summary(got)
    finally:
        start.close()
        end.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    try:
        dev = cgl.Device(0)
    except cgl.CugraphlabError as e:
        print(f"recipes: {e}".splitlines()[0])
        return 2
    rows: dict = {}
    ok = True
    from cugraphlab.bench.records.environment import collect

    with dev, dev.create_stream() as s:
        env = collect(dev)
        kernels = W.load_kernels(dev)
        add = W.build("add 2^20", dev, s, kernels)
        g50 = W.build(f"graph{W.GRAPH_LAUNCHES} add 2^20", dev, s, kernels)
        from cugraphlab.graphs.capture import capture_launches
        from cugraphlab.graphs.exec import ready_exec

        of50 = ready_exec(capture_launches(s, [add.work] * W.GRAPH_LAUNCHES), s)
        try:
            for built in (add, g50):
                built.poison()
            eager = _Way("eager", add.call_on(s), 1)
            graph = _Way("graph50", g50.call_on(s), 1)
            replay50 = _Way("of50", lambda: of50.launch(s), 1)
            for k in KS:
                rows[f"eager add held(K={k})"] = _held(dev, s, eager, k, args.samples)
            h = _held(dev, s, replay50, 1, args.samples)
            rows["eager add: graph of 50 held(1) / 50"] = {**h, **{q: (h[q] / 50 if h.get(q) else None)
                                                                  for q in ("median", "p5", "p95")}}
            rows["eager add: graph of 50 loop / 50"] = _loop(dev, s, lambda: of50.launch(s), 20, args.samples, 50)
            for k in KS:
                rows[f"graph50 held(K={k})"] = _held(dev, s, graph, k, args.samples)
            rows["graph50 loop"] = _loop(dev, s, g50.call_on(s), 20, args.samples, 1)
            rows["graph50 cold(1)"] = _held(dev, s, graph, 1, args.samples, cold=True)
            rows["eager add cold(1)"] = _held(dev, s, eager, 1, args.samples, cold=True)
            s.synchronize()
            for built in (add, g50):
                v = built.check("after the recipes")
                ok = ok and bool(v.ok)
                print(v)
        finally:
            of50.close()
            g50.close()
            add.close()
            kernels.close()
    print(f"{'recipe':<40} {'median µs':>10} {'p5':>9} {'p95':>9} {'n':>5}")
    for name, r in rows.items():
        if r.get("median") is None:
            print(f"{name:<40} {'n/a':>10}  {r.get('refused', '')}")
            continue
        print(f"{name:<40} {r['median']:>10.3f} {r['p5']:>9.3f} {r['p95']:>9.3f} {r['n']:>5}")
    if args.json:
        Path(args.json).write_text(json.dumps({"kind": "cugraphlab.study.nvbench_product.recipes",
                                               "env": env, "rows": rows, "bit_exact": ok}, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
