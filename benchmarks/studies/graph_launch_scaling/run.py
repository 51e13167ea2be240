"""Graph launch against size by NVIDIA's protocol, from the package's own C and from Python (issue 31 §4).

NVIDIA's claim (CUDA 12.6, "constant time launch for straight-line CUDA graphs"): a repeat ``cuGraphLaunch`` of a
straight line into an idle stream, after upload, costs about 2.5 µs + about 1 ns per node (before 12.6: about 2 µs
+ 200 ns per node). NVIDIA measures it with cuda-samples ``cudaGraphsPerfScaling``; this study runs the same
protocol (``protocol.py``) in C (``repeat_launch.c``, built at run time by the package's
``core.native.load_c_library``, the driver's entry points given as function pointers) and from Python through
cugraphlab and through the bare binding, on the same executable, interleaved round by round. Empty kernels without
parameters (kernels/empty.cu), one block of 32 threads, captured as a straight line by
``experiment.scaling.ScalingWorkload`` (its nodes and edges checked).

Usage (repository root, package installed; about 20 s a run on an H200):
    python3 benchmarks/studies/graph_launch_scaling/run.py OUT.json [--trials 1000] [--rounds 20] [--lengths ...]
Prints the table and the fits against NVIDIA's model; writes OUT.json (kind ``cugraphlab.study.graph_launch_scaling``:
the raw API and total times of every trial, per way and length). Exit 0 when every graph had its expected structure
and every way ran, 1 otherwise, 2 on bad input or no GPU (one line).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/, where the studies package lives

from cugraphlab.core.errors import CugraphlabError, check  # noqa: E402
from studies.graph_launch_scaling.protocol import C_WAY, KIND, LENGTHS, WAYS, CRepeat, python_trials, render  # noqa: E402

__all__ = ["measure", "main"]


def _rotated(items, r: int) -> list:
    k = r % len(items)
    return list(items[k:]) + list(items[:k])


def measure(dev, lengths=LENGTHS, trials: int = 1000, rounds: int = 20, *, c_entry=None, c_cache=None,
            clock=time.perf_counter_ns, progress=None) -> dict:
    """The protocol on ``dev`` (a cugraphlab Device): per length, ``trials`` repeat launches per way in ``rounds``
    rounds (the order of the ways rotated each round), after an upload, a first launch and one warm-up round.
    ``c_entry``/``c_cache``: the C loop's driver entry points and build cache (tests). Returns the record."""
    from cugraphlab.bench.native.loops import handle_address
    from cugraphlab.bench.records.environment import collect
    from cugraphlab.core._calls import cu, driver_fn
    from cugraphlab.experiment.scaling import ScalingWorkload, Shape

    per = max(1, trials // rounds)
    try:
        c_loop, native = CRepeat(c_entry, c_cache), "built"
    except CugraphlabError as e:  # no C compiler, no libcuda.so.1: the Python ways stand alone, and it says why
        c_loop, native = None, f"{type(e).__name__}: {e}".splitlines()[0]
    env = collect(dev)
    env.setdefault("driver", {})["version_int"] = cu("cuDriverGetVersion")
    record = {"kind": KIND, "schema": 1,
              "config": {"lengths": list(lengths), "trials": per * rounds, "rounds": rounds, "per_round": per,
                         "ways": [w for w in WAYS if w != C_WAY or c_loop is not None], "kernel": "empty (no "
                         "parameters), 1 block of 32 threads", "protocol": "upload, first launch, then per trial: "
                         "drain; time cuGraphLaunch (API); until cuStreamSynchronize returns (total)"},
              "env": env, "clocks": {C_WAY: "CLOCK_MONOTONIC in C", "python": "time.perf_counter_ns"},
              "native": native, "points": [], "checks": []}
    bind = driver_fn("cuGraphLaunch")
    with ScalingWorkload(dev, "empty") as w:
        s = w.stream
        for n in lengths:
            shape = Shape("line", n)
            with w.capture(shape) as g:
                structure = w.structure(g) == w.expected_structure(shape)
                record["checks"].append({"text": f"line of {n}: nodes and edges "
                                                 f"{'as expected' if structure else 'WRONG'}", "ok": structure})
                with g.instantiate() as exe:
                    exe.upload(s)
                    s.synchronize()
                    exe.launch(s)
                    s.synchronize()
                    h, sh = exe.handle, s.handle

                    def bindings(h=h, sh=sh):
                        r = bind(h, sh)
                        if r[0]:
                            check(r, "cuGraphLaunch")

                    python = {"cugraphlab": lambda exe=exe: exe.launch(s), "cuda.bindings": bindings}
                    ways = record["config"]["ways"]
                    got = {way: {"api_us": [], "total_us": []} for way in ways}
                    for r in range(-1, rounds):  # round -1: the warm-up, not kept
                        for way in _rotated(ways, max(r, 0)):
                            if way == C_WAY:
                                api, total = c_loop.trials(handle_address(h), handle_address(sh), per)
                            else:
                                api, total = python_trials(python[way], s.synchronize, per, clock)
                            if r >= 0:
                                got[way]["api_us"] += [round(v, 4) for v in api]
                                got[way]["total_us"] += [round(v, 4) for v in total]
                    s.synchronize()
            record["points"].append({"nodes": shape.nodes(), "length": n, "ways": got})
            if progress:
                progress(f"line of {n:,} nodes: " + ", ".join(
                    f"{way} {sorted(v['api_us'])[len(v['api_us']) // 2]:.2f} µs" for way, v in got.items()))
    return record


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="the JSON record to write")
    ap.add_argument("--trials", type=int, default=1000, help="trials per way and length (default 1000)")
    ap.add_argument("--rounds", type=int, default=20, help="rounds the trials are cut into (default 20)")
    ap.add_argument("--lengths", default=",".join(map(str, LENGTHS)), help="straight-line lengths, a comma list")
    ap.add_argument("--device", type=int, default=0)
    a = ap.parse_args(argv)
    try:
        lengths = [int(v) for v in a.lengths.split(",") if v.strip()]
    except ValueError:
        lengths = []
    if not lengths or min(lengths) < 1 or a.trials < 1 or a.rounds < 1 or a.rounds > a.trials:
        print("graph_launch_scaling: --lengths must be positive integers, --trials and --rounds >= 1 with rounds "
              "<= trials", file=sys.stderr)
        return 2
    import cugraphlab as cgl
    from cugraphlab.core.files import write_json

    try:
        dev = cgl.Device(a.device)
    except CugraphlabError as e:
        print(f"graph_launch_scaling: {str(e).splitlines()[0]}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    with dev:
        record = measure(dev, lengths, a.trials, a.rounds, progress=lambda m: print(m, file=sys.stderr, flush=True))
    record["elapsed_s"] = round(time.perf_counter() - t0, 2)
    write_json(a.out, record)
    print(render(record))
    print(f"wrote {a.out} ({record['elapsed_s']:.1f} s)")
    ok = all(ck["ok"] for ck in record["checks"]) and record["native"] == "built"
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
