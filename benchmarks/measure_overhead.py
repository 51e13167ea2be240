"""Issue 25: what ``cugraphlab.measure`` itself costs, paired on one GPU, in one process, one context, one stream.

Run from the repository root on a GPU machine with a C compiler (about 20 s on an H200):

    python benchmarks/measure_overhead.py [OUT_DIR] [--rounds 24] [--calls 500] [--json OUT.json]

The work: saxpy (benchmarks/measure_demo/saxpy.cu) on 1,024 floats, a launch the host pays for and the GPU does
not notice. Two pairs, each in ``--rounds`` rounds that alternate which side goes first; every side of a round is
the median of 15 samples of ``--calls`` calls each, the stream drained before each sample:

1. native: ``measure(launch, ways=("native",))``'s host µs per launch (``Launch.native()`` fired ``--calls`` times
   by measure's loop) against the C loop of ``bench.native`` (``cuLaunchKernel`` ``--calls`` times in C, timed in
   C). Goal: measure adds at most 0.05 µs per launch.
2. callable: ``measure(fn, ways=("eager",))``'s host µs per call of ``fn(stream)`` (which fires the prepared
   launch) against a bare Python loop ``for _ in range(calls): fn(stream)`` timed by perf_counter_ns. Goal: measure
   adds at most 0.1 µs per call.

Per pair: the median of the per-round differences (measure - reference) with a 95% bootstrap interval and the
sign test (``bench.stats.paired_diff``); the goal is met when the whole interval lies at or below the goal. Prints
the figures; OUT_DIR/measure_overhead.json (or ``--json``) gets them with the rounds and the environment. Exit 0
when both goals are met, 1 otherwise.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from cugraphlab.bench.scripts import require_gpu, run_main

SAXPY = Path(__file__).resolve().parent / "measure_demo" / "saxpy.cu"
GOALS_US = {"native": 0.05, "callable": 0.1}
SAMPLES = 15


QUIET = dict(min_samples=SAMPLES, max_samples=SAMPLES, sm_clock=False, reference=False, time_budget_s=60)


def saxpy_launch(dev, stream, n: int):
    """(module, [x, y, out], launch): saxpy out = 2 x + y on ``n`` fresh random floats, prepared on ``stream``."""
    import cugraphlab as cgl
    from cugraphlab.core.program import resolve_arch

    arch, kind = resolve_arch(None, dev.compute_capability)
    module = dev.load_module(cgl.compile_source(SAXPY.read_text(), "saxpy", arch=arch, kind=kind).image)
    rng = np.random.default_rng()
    x, y = (dev.to_device(rng.standard_normal(n, dtype=np.float32)) for _ in range(2))
    out = dev.array(n)
    launch = module.kernel("saxpy").prepare(("ptr", "ptr", "ptr", "f32", "u64"), (out, x, y, 2.0, n), (4, 256),
                                            stream)
    return module, [x, y, out], launch


def perf_median(loop, stream, calls: int, events=None) -> float:
    """Median over SAMPLES of perf_counter_ns around loop(calls), per call (µs), the stream drained first;
    ``events`` (start, end): recorded on the stream just outside the timed calls, as measure's timed loop does."""
    values = []
    for _ in range(SAMPLES):
        stream.synchronize()
        if events is not None:
            events[0].record(stream)
        t0 = time.perf_counter_ns()
        loop(calls)
        t1 = time.perf_counter_ns()
        if events is not None:
            events[1].record(stream)
        values.append((t1 - t0) / 1e3 / calls)
    stream.synchronize()
    return statistics.median(values)


def c_median(loop, stream, calls: int) -> float:
    """Median over SAMPLES of a C loop's own timing of loop(calls), per call (µs), the stream drained first."""
    values = []
    for _ in range(SAMPLES):
        stream.synchronize()
        values.append(loop(calls) / 1e3 / calls)  # the C loop's own CLOCK_MONOTONIC ns
    stream.synchronize()
    return statistics.median(values)


def _pair(name: str, measured: list[float], reference: list[float]) -> dict:
    from cugraphlab.bench.stats.paired_diff import goal_verdict, paired_difference

    goal = GOALS_US[name]
    diff = paired_difference(measured, reference)
    shifted = paired_difference(measured, [r + goal for r in reference])
    word, reason = goal_verdict(shifted, "no_more")
    return {"goal_us": goal, "measure_us": statistics.median(measured), "reference_us": statistics.median(reference),
            "adds": diff.to_dict(), "verdict": word, "reason": reason}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", nargs="?", type=Path, help="folder for measure_overhead.json")
    p.add_argument("--rounds", type=int, default=24)
    p.add_argument("--calls", type=int, default=500)
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    require_gpu(__file__)  # before anything is created: no GPU is one line, exit 2

    import cugraphlab as cgl
    from cugraphlab.bench.native.loops import NativeFloor
    from cugraphlab.bench.records.environment import collect

    n, calls = 1024, args.calls
    quiet = dict(QUIET, calls=calls)
    with cgl.Device(0) as dev, dev.create_stream() as s:
        module, buffers, launch = saxpy_launch(dev, s, n)
        c_loop = NativeFloor().launch_loop(launch)

        def fn(stream):
            launch()

        def bare(k):
            for _ in range(k):
                fn(s)

        sides = {"native": ([], []), "callable": ([], [])}
        for r in range(args.rounds):
            first = r % 2 == 0
            for _ in range(2):
                if first:
                    m = cgl.measure(launch, ways=("native",), **quiet)["native"].host.median
                    sides["native"][0].append(m)
                    m = cgl.measure(fn, stream=s, ways=("eager",), **quiet)["eager"].host.median
                    sides["callable"][0].append(m)
                else:
                    sides["native"][1].append(c_median(c_loop, s, calls))
                    sides["callable"][1].append(perf_median(bare, s, calls))
                first = not first
        env = collect(dev)
        for a in (*buffers, module):
            a.close()
    result = {"kind": "cugraphlab.study.measure_overhead", "work": f"saxpy on {n:,} floats", "calls": calls,
              "rounds": args.rounds, "samples_per_side": SAMPLES,
              "pairs": {k: _pair(k, *v) for k, v in sides.items()},
              "raw": {k: {"measure": v[0], "reference": v[1]} for k, v in sides.items()}, "env": env}
    what = {"native": ("measure(launch, ways=('native',))", "the C loop"),
            "callable": ("measure(fn, ways=('eager',))", "a bare Python loop calling fn(stream)")}
    print(f"cugraphlab measure overhead: saxpy on {n:,} floats, {calls} calls per sample, {args.rounds} rounds, "
          f"paired (alternating order), host µs per call")
    for k, pr in result["pairs"].items():
        a = pr["adds"]
        print(f"  {what[k][0]}: {pr['measure_us']:.3f} us; {what[k][1]}: {pr['reference_us']:.3f} us; measure adds "
              f"{a['median']:+.3f} us [{a['lo']:+.3f}, {a['hi']:+.3f}] ({a['above']} of {a['n']} rounds above 0, "
              f"sign test p = {a['p_sign']:.2g}); goal <= {pr['goal_us']} us: {pr['verdict']} ({pr['reason']})")
    path = args.json or (args.out / "measure_overhead.json" if args.out else None)
    if path:
        from cugraphlab.core.files import write_json

        write_json(path, result)
        print(f"written to {path}")
    return 0 if all(pr["verdict"] == "met" for pr in result["pairs"].values()) else 1


if __name__ == "__main__":
    run_main(main, __file__)
