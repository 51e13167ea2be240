"""Issue 25: where ``measure``'s +0.1 µs per call over the C loop comes from, taken apart, paired in one process.

Run from the repository root on a GPU machine with a C compiler (about 60 s on an H200 at 60 rounds):

    python benchmarks/measure_overhead_parts.py [OUT_DIR] [--rounds 60] [--calls 500] [--json OUT.json]

``measure_overhead.py`` compares two pairs, measure's native way with the C loop and measure of a callable with a
bare Python loop; both came out about +0.1 µs per call on the H200 (round 6). This script times, in the same
rounds (the order rotated every round), every step between the C loop and measure, each the median of 15 samples of
``--calls`` calls, host µs per call (perf_counter_ns around the calls; the C loop's own CLOCK_MONOTONIC for it):

    c_loop          bench.native's C loop: cuLaunchKernel ``calls`` times in C, timed in C
    floor_measured  measure(launch, ways=("floor",)): the same C loop inside measure's timed loop
    fire_bare       Launch.native().fire driven by starmap into a zero-length deque (measure's loop), no events
    fire_events     the same between a start and an end CUDA event (what measure's timed loop records)
    native_measure  measure(launch, ways=("native",))
    python_bare     ``for _ in range(calls): fn(stream)``, fn firing the prepared launch, no events
    starmap_bare    fn(stream) driven by starmap into a zero-length deque, no events
    call_measure    measure(fn, ways=("eager",))

Differences, each paired round by round with a 95% bootstrap interval and the sign test: floor_measured - c_loop
(measure's harness around a C loop), fire_bare - c_loop (one Python-to-C call per launch), fire_events - fire_bare
(the events), native_measure - fire_events (the rest of measure), native_measure - fire_bare (all of measure's
harness around the native launch), native_measure - c_loop (the issue's native pair), starmap_bare - python_bare
(a C loop against Python's, for a Python function), call_measure - starmap_bare and call_measure - python_bare
(the callable goal's pair).
Prints them; OUT_DIR/measure_overhead_parts.json gets them with every round and the environment.
"""
from __future__ import annotations

import argparse
import statistics
import time
from collections import deque
from itertools import repeat, starmap
from pathlib import Path

import numpy as np

from cugraphlab.bench.scripts import require_gpu, run_main
from measure_overhead import QUIET, SAMPLES, c_median, perf_median, saxpy_launch

PARTS = {
    "floor_measured - c_loop": ("floor_measured", "c_loop"),
    "fire_bare - c_loop": ("fire_bare", "c_loop"),
    "fire_events - fire_bare": ("fire_events", "fire_bare"),
    "native_measure - fire_events": ("native_measure", "fire_events"),
    "native_measure - fire_bare": ("native_measure", "fire_bare"),
    "native_measure - c_loop": ("native_measure", "c_loop"),
    "starmap_bare - python_bare": ("starmap_bare", "python_bare"),
    "call_measure - starmap_bare": ("call_measure", "starmap_bare"),
    "call_measure - python_bare": ("call_measure", "python_bare"),
}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", nargs="?", type=Path)
    p.add_argument("--rounds", type=int, default=60)
    p.add_argument("--calls", type=int, default=500)
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    require_gpu(__file__)  # before anything is created: no GPU is one line, exit 2

    import cugraphlab as cgl
    from cugraphlab.bench.native.loops import NativeFloor
    from cugraphlab.bench.records.environment import collect
    from cugraphlab.bench.stats.paired_diff import paired_difference

    n, calls = 1024, args.calls
    quiet = dict(QUIET, calls=calls)
    with cgl.Device(0) as dev, dev.create_stream() as s:
        module, (x, y, out), launch = saxpy_launch(dev, s, n)
        c_loop = NativeFloor().launch_loop(launch)
        native = launch.native()
        fire = native.fire
        events = (dev.create_event(), dev.create_event())

        def fn(stream):
            launch()

        def python_bare(k):
            for _ in range(k):
                fn(s)

        def fire_loop(k):
            deque(starmap(fire, repeat((), k)), maxlen=0)

        def starmap_loop(k):
            deque(starmap(fn, repeat((s,), k)), maxlen=0)

        sides = {
            "c_loop": lambda: c_median(c_loop, s, calls),
            "floor_measured": lambda: cgl.measure(launch, ways=("floor",), **quiet)["floor"].host.median,
            "fire_bare": lambda: perf_median(fire_loop, s, calls),
            "fire_events": lambda: perf_median(fire_loop, s, calls, events),
            "native_measure": lambda: cgl.measure(launch, ways=("native",), **quiet)["native"].host.median,
            "python_bare": lambda: perf_median(python_bare, s, calls),
            "starmap_bare": lambda: perf_median(starmap_loop, s, calls),
            "call_measure": lambda: cgl.measure(fn, stream=s, ways=("eager",), **quiet)["eager"].host.median,
        }
        names = list(sides)
        for name in names:  # warm every side once
            sides[name]()
        values = {k: [] for k in names}
        t0 = time.perf_counter()
        for r in range(args.rounds):
            k = r % len(names)
            for name in names[k:] + names[:k]:
                values[name].append(sides[name]())
        seconds = time.perf_counter() - t0
        expected = np.float32(2.0) * x.to_numpy() + y.to_numpy()
        bits_ok = bool(np.array_equal(out.to_numpy().view(np.uint32), expected.view(np.uint32)))
        env = collect(dev)
        native.close()
        for a in (*events, x, y, out, module):
            a.close()
    parts = {label: paired_difference(values[a], values[b]).to_dict() for label, (a, b) in PARTS.items()}
    result = {"kind": "cugraphlab.study.measure_overhead_parts", "work": f"saxpy on {n:,} floats", "calls": calls,
              "rounds": args.rounds, "samples_per_side": SAMPLES, "seconds": seconds, "saxpy_bits_equal": bits_ok,
              "medians_us": {k: statistics.median(v) for k, v in values.items()}, "parts": parts, "raw": values,
              "env": env}
    print(f"measure's overhead taken apart: saxpy on {n:,} floats, {calls} calls per sample, {args.rounds} rounds "
          f"({seconds:.0f} s), host us per call, medians:")
    for k, v in result["medians_us"].items():
        print(f"  {k:15s} {v:.3f}")
    print("paired differences (median [95% interval], rounds above 0):")
    for label, d in parts.items():
        print(f"  {label:30s} {d['median']:+.3f} [{d['lo']:+.3f}, {d['hi']:+.3f}]  {d['above']} of {d['n']}, "
              f"sign test p = {d['p_sign']:.2g}")
    print(f"saxpy output bit-equal to NumPy after the rounds: {bits_ok}")
    path = args.json or (args.out / "measure_overhead_parts.json" if args.out else None)
    if path:
        from cugraphlab.core.files import write_json

        write_json(path, result)
        print(f"written to {path}")
    return 0 if bits_ok else 1


if __name__ == "__main__":
    run_main(main, __file__)
