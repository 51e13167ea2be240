"""Why measure's cold figure reads 0.10-0.22 µs below cuda-bench's at 1,024 floats: the two recipes taken apart.

cuda-bench 0.3.0's cold measurement (nvbench ``measure_cold_launch_timer_core``) does, per sample:

    flush the L2 (cudaMemsetAsync); cudaStreamSynchronize
    block the stream (its blocking kernel)
    gpu_frequency_start: a timestamps kernel (the throttle check; off when the throttle threshold is 0)
    cuda timer start (event)  ->  the launch  ->  cuda timer stop (event)
    gpu_frequency_stop (a second timestamps kernel); unblock; synchronize

measure's cold clock (``bench.measure.held.GpuClocks.cold``) does: flush (cuMemsetD32Async over 2 x the L2, no
synchronize), engage the hold kernel, start event, the launch, end event, release. Two differences sit before the
start event: nvbench's synchronize after the flush and its timestamps kernel between the blocking kernel and the
start event. This script times, on the same launches in one process, with CUDA events (µs; median, mean, p5-p95):

    cgl.measure         the product: cgl.measure(work, ways=("eager",), prepare=poison, check=bit-exact), its cold
                        row (the product study's settings: 200-400 samples, 2.5 s), on the same buffers and stream
    cgl cold            GpuClocks.cold itself: what cgl.measure's cold row takes per sample
    + sync              the same with cuStreamSynchronize after the flush
    + stamp             the same with a timestamps kernel (the hold module's ``stamp``: one thread writing
                        %globaltimer) queued between the hold and the start event, as nvbench's throttle check does
    + sync + stamp      both: nvbench's order
    nvbench             cuda-bench's cold GPU time, its defaults (throttle check on), on its own stream
    nvbench no-throttle the same benchmark with ``set_throttle_threshold(0)``: no timestamps kernel

The cugraphlab variants run interleaved (one sample of each in turn), before and after cuda-bench, so drift shows.
Every output is checked bit for bit against NumPy float32 afterwards.

Usage (repository root, on a GPU, cuda-bench installed): python benchmarks/studies/nvbench_product/cold_small.py
OUT_DIR [--samples 600]. Writes OUT_DIR/cold_small.json and cuda-bench's files; exit 0 when every check is bit-exact,
1 otherwise, 2 without a GPU or cuda-bench (one line).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # benchmarks/, where the studies package lives

import cugraphlab as cgl  # noqa: E402
from studies.nvbench.nvbench_side import Knobs, run_nvbench  # noqa: E402
from studies.nvbench.report import nvbench_label  # noqa: E402
from studies.nvbench_product import workloads as W  # noqa: E402
from studies.nvbench_product.product_side import SETTINGS, figure, figures_of_record  # noqa: E402
from studies.nvbench_product.recipes import _Way  # noqa: E402

NAMES = ("add 1,024", "mul 1,024", "relu 1,024", "add 2^20")
VARIANTS = ("cgl cold", "+ sync", "+ stamp", "+ sync + stamp")
PRODUCT = "cgl.measure"
GOAL_US = 0.15  # the goal at 1,024 floats: within this many µs of cuda-bench's cold, by median and by mean
NO_THROTTLE = " no-throttle"


def _variant_sample(clocks, way, *, sync: bool, stamp: bool) -> float | None:
    """GpuClocks.cold's steps, with nvbench's synchronize after the flush and/or its timestamps kernel."""
    s = clocks.stream
    clocks.flush()
    if sync:
        s.synchronize()
    clocks.hold.engage()
    try:
        if stamp:
            clocks.hold.mark_end()
        clocks.start.record(s)
        way.run(1)
        clocks.end.record(s)
    finally:
        _, _, timed_out = clocks.hold.release()
    if timed_out:
        return None
    clocks.end.synchronize()
    return clocks.start.elapsed_us(clocks.end)


def cgl_side(dev, stream, built: dict, samples: int) -> dict:
    from cugraphlab.bench.measure.held import GpuClocks

    out = {}
    clocks = GpuClocks(dev, stream)
    try:
        for name, b in built.items():
            way = _Way(name, b.call_on(stream), 1)
            got: dict[str, list[float]] = {v: [] for v in VARIANTS}
            for i in range(samples + 10):  # the first 10 rounds: warm-up
                order = VARIANTS[i % 4:] + VARIANTS[:i % 4]
                for v in order:
                    if v == "cgl cold":
                        us = clocks.cold(way)
                    else:
                        us = _variant_sample(clocks, way, sync="sync" in v, stamp="stamp" in v)
                    if us is not None and i >= 10:
                        got[v].append(us)
            out[name] = {v: figure(x, f"cugraphlab {v}") for v, x in got.items()}
    finally:
        clocks.close()
    for name, b in built.items():  # the product, after the variants (its own clocks, made and freed inside)
        r = cgl.measure(b.work, ways=("eager",), prepare=b.poison, check=lambda b=b: b.check("cgl.measure"),
                        **SETTINGS)
        out[name][PRODUCT] = figures_of_record(r.to_dict(), "eager", PRODUCT)["cold"]
    return out


def register(bench, built: dict, device, knobs: Knobs) -> list[str]:
    from cugraphlab import Stream

    names = []
    for name, b in built.items():
        def one(state, b=b):
            cache: dict = {}

            def launcher(launch):
                key = int(launch.get_stream().__cuda_stream__()[1])
                call = cache.get(key)
                if call is None:
                    call = cache[key] = b.call_on(Stream.wrap(launch.get_stream(), device=device))
                call()

            state.exec(launcher)

        for suffix in ("", NO_THROTTLE):
            reg = bench.register(one)
            reg.set_name(name + suffix)
            knobs.apply(reg)
            if suffix:
                reg.set_throttle_threshold(0.0)
            names.append(name + suffix)
    return names


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=600)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        import cuda.bench as bench
    except Exception as e:  # noqa: BLE001
        print(f"cold_small: cuda-bench does not import ({type(e).__name__}: {e})".splitlines()[0])
        return 2
    try:
        dev = cgl.Device(0)
    except cgl.CugraphlabError as e:
        print(f"cold_small: {e}".splitlines()[0])
        return 2
    from cugraphlab.bench.diff import read_record_file
    from cugraphlab.bench.records.environment import collect

    ok = True
    with dev, dev.create_stream() as s, W.load_kernels(dev) as kernels:
        env = collect(dev)
        built = {n: W.build(n, dev, s, kernels) for n in NAMES}
        try:
            for b in built.values():
                b.poison()
            before = cgl_side(dev, s, built, args.samples)
            s.synchronize()
            reg_names = register(bench, built, dev, Knobs())
            run_nvbench(bench, out / "nvbench.json", 0)
            dev.synchronize()
            after = cgl_side(dev, s, built, args.samples)
            s.synchronize()
            for b in built.values():
                v = b.check("after every recipe")
                ok = ok and bool(v.ok)
                print(v)
        finally:
            for b in built.values():
                b.close()
    nv = read_record_file(out / "nvbench.json")
    nvb = {}
    for n in reg_names:
        label = nvbench_label(nv, n)
        vals = [float(x) for x in ((nv.get("samples") or {}).get(label) or {}).get("values") or [] if x is not None]
        nvb[n] = figure(vals, "cuda-bench cold GPU time")
    print("\ncold GPU time, µs (CUDA events of each tool): median / mean [p5-p95], n")
    hdr = f"{'workload':<11} {'recipe':<22} {'before nvbench':>34} {'after nvbench':>34}"
    print(hdr)

    def cell(r):
        if not r or r.get("median") is None:
            return f"{'n/a':>34}"
        return f"{r['median']:7.3f} / {r['mean']:7.3f} [{r['p5']:.3f}-{r['p95']:.3f}] {r['n']:>4}".rjust(34)

    for name in NAMES:
        for v in (PRODUCT,) + VARIANTS:
            print(f"{name:<11} {v:<22} {cell(before[name][v])} {cell(after[name][v])}")
        for suffix, label in (("", "nvbench"), (NO_THROTTLE, "nvbench no-throttle")):
            print(f"{name:<11} {label:<22} {cell(nvb.get(name + suffix))}")
    print("\ndifferences to cuda-bench's default, µs (median; mean), both cgl passes pooled by their medians' mean:")
    for name in NAMES:
        ref = nvb.get(name) or {}
        if ref.get("median") is None:
            continue
        parts = []
        for v in (PRODUCT,) + VARIANTS:
            med = (before[name][v]["median"] + after[name][v]["median"]) / 2
            mean = (before[name][v]["mean"] + after[name][v]["mean"]) / 2
            parts.append(f"{v}: {med - ref['median']:+.3f} ({mean - ref['mean']:+.3f})")
        nt = nvb.get(name + NO_THROTTLE) or {}
        if nt.get("median") is not None:
            parts.append(f"nvbench no-throttle: {nt['median'] - ref['median']:+.3f} ({nt['mean'] - ref['mean']:+.3f})")
        print(f"  {name}: " + "; ".join(parts))
    print(f"\ngoal at 1,024 floats: within {GOAL_US} µs of cuda-bench's cold by the median and by the mean, each pass "
          "(before, after) on its own:")
    for v in (PRODUCT, "cgl cold"):
        met, n = 0, 0
        for name in (x for x in NAMES if "1,024" in x):
            ref = nvb.get(name) or {}
            for side in (before, after):
                r = side[name][v]
                if ref.get("median") is None or r.get("median") is None:
                    continue
                n += 1
                met += abs(r["median"] - ref["median"]) <= GOAL_US and abs(r["mean"] - ref["mean"]) <= GOAL_US
        print(f"  {v}: {met} of {n}")
    (out / "cold_small.json").write_text(json.dumps({
        "kind": "cugraphlab.study.nvbench_product.cold_small", "env": env, "samples": args.samples,
        "clock": "CUDA events (device), µs per sample", "cgl_before": before, "cgl_after": after,
        "nvbench": nvb, "bit_exact": ok}, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
