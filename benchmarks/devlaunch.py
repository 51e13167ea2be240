"""Device graph launch on one GPU, in one go: the build, the checks of every launch mode and loop, the measurement.

1. The build: kernels/devlaunch.cu through NVRTC (-rdc=true -dlto) and nvJitLink with libcudadevrt.a (where found,
   the cubin's size and the seconds, cold and from the cache).
2. The checks the GPU tests make (tests/experiment/test_device_loop_gpu.py, test_device_loop_folded_gpu.py):
   fire-and-forget, tail and sibling launches, counted self, scheduler and folded loops (1, 2 and 1000 iterations),
   the decision every 50 iterations (50, 100, 1000; 1001 refused), feedback loops (the chain applied 25 and 100
   times), threshold loops, the folded loops again at 1,024, 2^20 and 1,000,003 floats (many blocks, the scalar
   tail); a device launch from outside a graph must come back as a cudaError_t.
3. ``bench.graphs.devlaunch.measure_devlaunch`` at 1,024 and 2^20 floats (the loops table, launch latency,
   timeline), its report, then a short table last.

Usage: python benchmarks/devlaunch.py OUT [--repeats 5] [--iterations 1000] [--watchdog 140]
OUT: a folder (made if missing; it gets devlaunch.json and devlaunch.log, a copy of stdout and stderr) or a file
ending in .json (the record; nothing else written).
Exit 0 when every check passed (the goal of the issue may still be unmet: the record says so), 1 otherwise,
2 where device graph launch is unavailable here (the reason on one line).

First it prints where the CUDA headers were looked for (core.cuda_headers: every folder, why each was refused).
faulthandler is on: a crash in native code prints every thread's Python stack, and after ``--watchdog`` seconds
(0: never) a hung run prints them and exits. On any failure the script prints a traceback summary (the full traceback
for an unexpected error) and still writes OUT.json: the error, its traceback and the header search.
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os
import sys
import time
import traceback

from cugraphlab import Chain, Device
from cugraphlab.bench.graphs.devlaunch import measure_devlaunch
from cugraphlab.bench.scripts import require_gpu, run_main
from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import CudaError, InvalidArgumentError, UnsupportedError
from cugraphlab.core.files import write_json
from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs
from cugraphlab.core.link import build_relocatable, find_cudadevrt, nvjitlink_version
from cugraphlab.core.sources import read_headers, read_source
from cugraphlab.experiment.device_loop import device_loop
from cugraphlab.graphs.device_launch import DEVICE_STREAMS
from cugraphlab.report.devlaunch import render_devlaunch
from cugraphlab.report.tables import format_table

#: the development goal this benchmark judges (the record keeps the gap, not the goal): the device loop within this
#: many µs per iteration of the unrolled graph
GOAL_US = 0.5


def header_search() -> dict:
    """Where the one header search of core.cuda_headers looked, beside the libcudadevrt.a found (if any)."""
    from cugraphlab.core.cuda_headers import search_include_dir

    try:
        devrt = find_cudadevrt()
    except UnsupportedError as e:
        devrt, devrt_error = None, str(e)
    else:
        devrt_error = ""
    s = search_include_dir(beside=(devrt,) if devrt else ())
    return {"found": s.found, "via": s.via, "nvrtc_major": s.nvrtc_major, "devrt": devrt, "devrt_error": devrt_error,
            "looked": [{"folder": x.folder, "via": x.via, "refused": x.refused} for x in s.looked],
            "summary": s.summary()}


def traceback_summary(e: BaseException, frames: int = 8) -> list[str]:
    """The last ``frames`` frames of ``e``'s traceback as "file:line in function: code", then the error itself."""
    tb = traceback.extract_tb(e.__traceback__)[-frames:]
    out = [f"{f.filename}:{f.lineno} in {f.name}: {(f.line or '').strip()}" for f in tb]
    return out + [f"{type(e).__module__}.{type(e).__name__}: {e}"]


def fail(out: str, e: BaseException, code: int, started: float, search: dict | None) -> int:
    """Report ``e`` (a traceback summary; the whole traceback unless it is an UnsupportedError), write OUT.json."""
    summary = traceback_summary(e)
    print(f"devlaunch: {type(e).__name__}: {e}", file=sys.stderr)
    print("traceback (most recent call last):", file=sys.stderr)
    for line in summary[:-1]:
        print("  " + line, file=sys.stderr)
    if not isinstance(e, UnsupportedError):
        print("".join(traceback.format_exception(e)), file=sys.stderr)
    record = {"kind": "cugraphlab.study.devlaunch.failure", "exit": code, "error": type(e).__name__, "message": str(e),
              "traceback": summary, "full_traceback": traceback.format_exception(e), "header_search": search,
              "seconds": time.perf_counter() - started}
    try:
        with open(out, "w") as f:
            json.dump(record, f, indent=1)
        print(f"failure record written to {out}", file=sys.stderr)
    except OSError as w:
        print(f"devlaunch: could not write {out}: {w}", file=sys.stderr)
    return code


def build_info(dev, tmp_cache: str) -> dict:
    src, headers = read_source("devlaunch"), read_headers()
    cache = Cache(tmp_cache)
    t0 = time.perf_counter()
    cold = build_relocatable(src, "devlaunch", arch=dev.arch, headers=headers, cache=cache)
    t1 = time.perf_counter()
    warm = build_relocatable(src, "devlaunch", arch=dev.arch, headers=headers, cache=cache)
    t2 = time.perf_counter()
    return {"devrt": find_cudadevrt(), "nvjitlink": "%d.%d" % nvjitlink_version(), "cubin_bytes": len(cold.image),
            "cold_s": t1 - t0, "warm_s": t2 - t1, "warm_hit": warm.cache_hit, "log": cold.log}


EVERY = 50  # the decision every K iterations, K as the unrolled graph's


def _launches_ok(c, shape: str, every: int = 1) -> bool:
    """The device launches a passed loop must have made: self/folded one per decision but the last, scheduler 2."""
    if shape == "scheduler":
        return c.launches == 2 * c.iterations
    return c.launches == c.iterations // every - 1


def _threshold(chain) -> float:
    """A threshold the running total of 32 outputs crosses after a few dozen iterations (a scale: run_loop draws
    fresh inputs and NumPy predicts on those)."""
    return (float(abs(chain.expected()[:32]).sum()) or 1.0) * 37.0


def folded_checks(chain, kit) -> list[tuple[str, bool, str]]:
    """The folded loop and the decision every EVERY iterations on ``chain``: counts, launches, bits."""
    out = []
    for every, counts, fb in ((1, (1, 2, 1000), 25), (EVERY, (EVERY, 2 * EVERY, 1000), 2 * EVERY)):
        runs = [kit.run_loop("folded", n, every=every) for n in counts]
        runs.append(kit.run_loop("folded", fb, feedback=True, every=every))
        out += [(c.kind, c.ok and _launches_ok(c, "folded", every), f"{c}; launches as expected: "
                 f"{_launches_ok(c, 'folded', every)}") for c in runs]
        c = kit.run_loop("folded", 10_000, threshold=_threshold(chain), probe=32, every=every)
        out.append((c.kind, c.ok and 1 < c.iterations < 10_000, str(c)))
    try:
        kit.folded_exec(1001, every=EVERY)
    except InvalidArgumentError as e:
        out.append(("decision every K: count not a multiple refused", True, f"1001 iterations refused: {e}"))
    else:
        out.append(("decision every K: count not a multiple refused", False, "1001 iterations were accepted"))
    return out


def checks(dev) -> list[tuple[str, bool, str]]:
    out = []
    with Chain(dev, n=1000) as chain:
        kit = device_loop(chain, capacity=64)
        runs = [kit.run_launch("fire_and_forget"), kit.run_launch("tail"), kit.run_launch("sibling")]
        for shape in ("self", "scheduler"):
            runs += [kit.run_loop(shape, n) for n in (1, 2, 1000)]
            runs.append(kit.run_loop(shape, 25, feedback=True))
            runs.append(kit.run_loop(shape, 10_000, threshold=_threshold(chain), probe=32))
        out += [(c.kind, c.ok, str(c)) for c in runs]
        out += folded_checks(chain, kit)
    for size in (1024, 1 << 20, 1_000_003):
        with Chain(dev, n=size, seed=size) as chain:
            kit = device_loop(chain, capacity=8)
            out += [(f"[{size:,}] {k}", ok, f"[{size:,} floats, {chain.grid} blocks] {t}")
                    for k, ok, t in folded_checks(chain, kit)]
    return out


def outside_a_graph(dev) -> tuple[str, bool, str]:
    """Last (a refused device launch could, on some driver, leave the context unusable): cudaGraphLaunch from a
    kernel launched on a stream, not inside a graph, must come back to the kernel as a cudaError_t."""
    with Chain(dev, n=1000) as chain:
        kit = device_loop(chain, capacity=4)
        work = kit.work_exec()
        args = PackedArgs(("u64", "u64", "ptr", "ptr", "u64"),
                          (work.device_handle, DEVICE_STREAMS["fire_and_forget"], kit.state, 0, 0))
        kit.reset()
        try:
            Launch(kit.kernels["dl_launch"], args, LaunchConfig(1, 32), chain.stream)()
        except CudaError as e:  # what driver 580 does: the host launch itself is refused
            st = kit.read_state()
            usable = chain.verify("graph").ok
            return ("device launch outside a graph", e.name == "CUDA_ERROR_NOT_SUPPORTED" and st.launches == 0
                    and usable, f"device launch outside a graph: the host launch refused with {e.name}; "
                                f"{st.launches} launches; context usable afterwards: {usable}")
        st = kit.read_state()
        return ("device launch outside a graph", st.status != 0,
                f"device launch outside a graph: refused on the device with {st.status_name} ({st.status}), "
                f"{st.launches} launches")


def output_paths(out: str) -> tuple[str, str | None]:
    """(the record's path, the log's path or None) for OUT: a .json file, or a folder (made if missing)."""
    if out.endswith(".json") and not os.path.isdir(out):
        return out, None
    os.makedirs(out, exist_ok=True)
    return os.path.join(out, "devlaunch.json"), os.path.join(out, "devlaunch.log")


class Tee:
    """stdout written to the terminal and to a log file too (flushed on every write: a killed run keeps its log)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, text: str) -> int:
        for s in self.streams:
            s.write(text)
            s.flush()
        return len(text)

    def flush(self) -> None:
        for s in self.streams:
            s.flush()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="a folder (devlaunch.json and devlaunch.log go there) or a .json file to write")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--watchdog", type=float, default=140.0,
                    help="seconds after which a hung run prints every thread's stack and exits (0: never)")
    args = ap.parse_args()
    require_gpu(__file__)  # before anything is created: no GPU is one line, exit 2
    faulthandler.enable()
    if args.watchdog > 0:
        faulthandler.dump_traceback_later(args.watchdog, exit=True)
    args.out, log = output_paths(args.out)
    if log is not None:  # after faulthandler, which writes to the real stderr's descriptor
        log_file = open(log, "w")
        sys.stdout, sys.stderr = Tee(sys.stdout, log_file), Tee(sys.stderr, log_file)
    t_start = time.perf_counter()
    search = None
    try:
        search = header_search()
        print(f"headers: {search['found'] or 'NONE'}" + (f" (via {search['via']})" if search["found"] else "")
              + f"; NVRTC {search['nvrtc_major']}; libcudadevrt.a: {search['devrt'] or search['devrt_error']}")
        print("  " + search["summary"])
        return measure(args, t_start, search)
    except UnsupportedError as e:
        return fail(args.out, e, 2, t_start, search)
    except Exception as e:
        return fail(args.out, e, 1, t_start, search)
    finally:
        faulthandler.cancel_dump_traceback_later()


def measure(args, t_start: float, search: dict) -> int:
    with Device(0) as dev:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            build = build_info(dev, tmp)
        print(f"build: {build['cubin_bytes']:,}-byte cubin, nvJitLink {build['nvjitlink']}, "
              f"{build['cold_s']:.2f} s cold, {build['warm_s'] * 1e3:.1f} ms from the cache "
              f"(hit: {build['warm_hit']}); libcudadevrt.a: {build['devrt']}")
        found = checks(dev)
        for kind, ok, text in found:
            print(("ok   " if ok else "FAIL ") + text)
        result = measure_devlaunch(dev, iters=args.iterations, repeats=args.repeats)
        found.append(outside_a_graph(dev))
        print(("ok   " if found[-1][1] else "FAIL ") + found[-1][2])
    result.config["build"] = build
    result.config["header_search"] = search
    result.checks += [{"kind": k, "ok": ok, "text": t, "script": True} for k, ok, t in found]
    print()
    print(render_devlaunch(result))
    write_json(args.out, result)
    rows = [[f"{r.size:,}", r.name, f"{r.device.median:.2f}", f"{r.wall.median:.2f}",
             "ok" if r.verified and r.iterations_ok is not False else "FAIL"] for r in result.loops]
    rows += [["", "latency: " + r.name, f"{r.us.median:.2f}", "", ""] for r in result.latency]
    g = result.against_unrolled
    print(f"\nrecord written to {args.out} ({time.perf_counter() - t_start:.1f} s)")
    print(format_table(["floats", "way", "device us/iter", "wall us/iter", "check"], rows, align="rlrrl"))
    print(f"goal (device loop within {GOAL_US} us/iter of the unrolled graph at {g['size']:,} floats): best loop "
          f"deciding every iteration ({g['device_loop']}) {g['device_loop_us']:.2f} vs {g['unrolled_us']:.2f}, gap "
          f"{g['gap_us']:+.2f} us: {'met' if g['gap_us'] <= GOAL_US else 'NOT met'}")
    print(f"  with a decision every {g['every_k']} iterations: {g['every_k_us']:.2f} vs {g['unrolled_us']:.2f}, "
          f"gap {g['every_k_gap_us']:+.2f} us: {'within' if g['every_k_gap_us'] <= GOAL_US else 'NOT within'} "
          f"{GOAL_US} us")
    return 0 if result.verified and all(ok for _k, ok, _t in found) else 1


if __name__ == "__main__":
    run_main(main, __file__)
