"""Issue 18: the native launch (``Launch.native().fire()``, core.native_launch) against C, paired, same process.

Run from the repository root on a GPU machine with a C compiler (about 40 s on an H200):

    python benchmarks/native_launch.py OUT_DIR [--quick]

1. Checks: ``add`` through ``Launch.native()`` (GIL held and released) on fresh random inputs with the output
   poisoned, bit-exact against NumPy, once and after a loop of 5,000 calls; a refused launch (4,096 threads per
   block) raises CudaError naming CUDA_ERROR_INVALID_VALUE; ``NativeGraphLaunch`` of a 4-launch graph bit-exact.
2. ``bench.paired.harness.measure_paired`` (one process, one context and stream per fresh context, ways interleaved):
   bindings (reference), cugraphlab_launch, ctypes, c, cugraphlab_native, cugraphlab_native_nogil at 1,024 and
   2^20 floats; then graph mode (cuGraphLaunch of 4 captured launches): bindings, cugraphlab, c, cugraphlab_native.
   Each way is checked bit-exact once per context by the harness itself.

Writes OUT_DIR/native_launch.json (every record) and OUT_DIR/native_launch.log (what is printed); prints the
paired tables last, with the issue's criterion: cugraphlab_native minus C <= 0.4 µs per launch (the upper end of
its 95% interval).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from cugraphlab.bench.scripts import require_gpu, run_main

TARGET_US = 0.4
LAUNCH_WAYS = "bindings,cugraphlab_launch,ctypes,c,cugraphlab_native,cugraphlab_native_nogil"
GRAPH_WAYS = "bindings,cugraphlab,c,cugraphlab_native"


def _differ(out, expected, s) -> int:
    got = out.to_numpy(stream=s)
    return int(np.count_nonzero(got.view(np.uint32) != expected.view(np.uint32)))


def checks(say) -> dict:
    from cugraphlab import Device
    from cugraphlab.core.errors import CudaError
    from cugraphlab.core.launch import LaunchConfig
    from cugraphlab.core.native_launch import NativeGraphLaunch
    from cugraphlab.graphs.capture import capture_launches
    from cugraphlab.graphs.exec import ready_exec

    sig, n = ("ptr", "ptr", "ptr", "u64"), 1 << 20
    rng = np.random.default_rng()
    result = {}
    with Device(0) as dev, dev.load_kernels(names=["add"]) as ks, dev.create_stream() as s, \
            dev.array(n) as dx, dev.array(n) as dy, dev.array(n) as out:
        launch = ks["add"].prepare(sig, (out, dx, dy, n), LaunchConfig(min(1024, dev.sm_count * 8), 256), s)

        def fresh():
            x = rng.standard_normal(n, dtype=np.float32)
            y = rng.standard_normal(n, dtype=np.float32)
            dx.copy_from(x, stream=s)
            dy.copy_from(y, stream=s)
            out.poison(s)
            return x + y

        for release_gil in (False, True):
            with launch.native(release_gil=release_gil) as nl:
                expected = fresh()
                nl.fire()
                s.synchronize()
                once = _differ(out, expected, s)
                expected = fresh()
                fire = nl.fire
                for _ in range(5000):
                    fire()
                s.synchronize()
                loop = _differ(out, expected, s)
            key = "native_nogil" if release_gil else "native"
            result[key] = {"mismatches_once": once, "mismatches_after_5000": loop}
            say(f"check {key}: {once} and {loop} of {n:,} elements differ from NumPy (once, after 5,000 calls)")
        bad = ks["add"].prepare(sig, (out, dx, dy, n), LaunchConfig(1, 4096), s)
        with bad.native() as nl:
            try:
                nl.fire()
                result["refused"] = "no error"
            except CudaError as e:
                result["refused"] = e.name
        say(f"check refused launch (4096 threads): {result['refused']}")
        with ready_exec(capture_launches(s, [launch], 4), s) as exe, NativeGraphLaunch(exe, s) as g:
            expected = fresh()
            for _ in range(100):
                g.fire()
            s.synchronize()
            result["graph"] = {"mismatches": _differ(out, expected, s)}
        say(f"check native graph launch: {result['graph']['mismatches']} of {n:,} differ")
    ok = (all(v["mismatches_once"] == 0 and v["mismatches_after_5000"] == 0 for k, v in result.items()
              if k.startswith("native")) and result["refused"] == "CUDA_ERROR_INVALID_VALUE"
          and result["graph"]["mismatches"] == 0)
    result["ok"] = ok
    return result


def verdict(record) -> str:
    try:
        row = record.way("cugraphlab_native")
    except KeyError:
        return "cugraphlab_native: not measured (" + record.skipped.get("cugraphlab_native", "?") + ")"
    d = row.vs_c_us
    if d is None:
        return "cugraphlab_native: no C row to compare with"
    met = "MET" if d.hi <= TARGET_US else "NOT MET"
    return (f"cugraphlab_native minus C: {d.median:+.3f} us [{d.lo:+.3f}, {d.hi:+.3f}] per launch; target <= "
            f"{TARGET_US} us: {met}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", help="folder for native_launch.json and native_launch.log")
    ap.add_argument("--quick", action="store_true", help="2 contexts, fewer rounds (a smoke run)")
    a = ap.parse_args(argv)
    require_gpu(__file__)  # before anything is created: no GPU is one line, exit 2
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        print(line, flush=True)

    from cugraphlab.bench.paired.harness import measure_paired
    from cugraphlab.report.paired import render_paired

    t0 = time.perf_counter()
    check = checks(say)
    contexts, rounds, max_rounds = (2, 3, 6) if a.quick else (3, 5, 20)
    records, tables = {}, []
    for label, size, mode, ways in (("launch_1024", 1024, "launch", LAUNCH_WAYS),
                                    ("launch_1M", 1 << 20, "launch", LAUNCH_WAYS),
                                    ("graph_1024", 1024, "graph", GRAPH_WAYS)):
        rec = measure_paired(0, size=size, contexts=contexts, rounds=rounds, max_rounds=max_rounds, launches=2000,
                             held_launches=512, ways=ways, mode=mode, progress=say, time_cap_s=8.0)
        records[label] = rec.to_dict()
        tables.append(render_paired(rec))
        if mode == "launch":
            tables.append(verdict(rec))
        tables.append("")
    elapsed = time.perf_counter() - t0
    (out / "native_launch.json").write_text(json.dumps(
        {"checks": check, "paired": records, "target_us": TARGET_US, "seconds": round(elapsed, 1)}, indent=1))
    say("")
    say(f"checks: {'all passed' if check['ok'] else 'FAILED'}; {elapsed:.1f} s")
    for t in tables:
        say(t)
    (out / "native_launch.log").write_text("\n".join(lines) + "\n")
    return 0 if check["ok"] else 1


if __name__ == "__main__":
    run_main(main, __file__)
