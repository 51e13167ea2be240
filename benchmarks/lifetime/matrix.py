"""The lifetime matrix: every kind of object cugraphlab makes, left in every state a script can leave it in, each
cell in its own process. A cell is clean when its process exits 0 within the time allowed, prints nothing on stderr
that names a driver error, an ignored exception or a traceback, and (except where it leaves with ``os._exit``) can
still open a new Device afterwards and compute a bit-exact saxpy.

    python benchmarks/lifetime/matrix.py                       every cell, 8 at a time; a table; exit 1 if any failed
    python benchmarks/lifetime/matrix.py --objects graph,exec --ends ends,raises
    python benchmarks/lifetime/matrix.py --sanitize 6          also 6 cells under compute-sanitizer (memcheck)
    python benchmarks/lifetime/matrix.py --cell graph ends     one cell, in this process (what each subprocess runs)
    python benchmarks/lifetime/matrix.py --json out.json

Objects (issue 30): module, stream, event, array, foreign (a CuPy array and stream wrapped), launch, unbound (a
launch made without a stream, bound later), native (a launch fired from C), graph, exec, updated (an exec after
cuGraphExecUpdate), runner, chain, memchain, conditional, devloop (device graph launch), measure (a cgl.measure
result), doctor (a capture the doctor explained). Ends: ends (the ``with Device`` block ends, nothing closed),
raises (it raises), order / reverse (closed in creation order / in reverse, inside the block), collected (dropped
and garbage-collected inside the block), exit (no ``with``: the interpreter exits with everything open, the
Device too), thread (closed from another thread), os_exit (``os._exit(0)`` inside the block).
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import gc
import json
import os
import re
import subprocess
import sys
import threading
import time

N = 1 << 16
SAXPY = r'''extern "C" __global__ void saxpy(float* y, const float* x, float a, unsigned long long n)
{ unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }'''
OBJECTS = ("module", "stream", "event", "array", "foreign", "launch", "unbound", "native", "graph", "exec",
           "updated", "runner", "chain", "memchain", "conditional", "devloop", "measure", "doctor")
ENDS = ("ends", "raises", "order", "reverse", "collected", "exit", "thread", "os_exit")
BAD = re.compile(r"CUDA_ERROR|Exception ignored|Traceback|Segmentation|Fatal Python|Aborted|core dumped")


class Skip(Exception):
    """The cell cannot run here (a library or a feature is missing): reported as skipped with the reason."""


# --- building each object (inside an open Device); returns the resources in creation order -------------------
def _saxpy(cgl, dev, np, stream=None, bound=True):
    module = dev.load_module(cgl.compile_source(SAXPY, "saxpy"))
    stream = stream or dev.create_stream()
    rng = np.random.default_rng()
    x, y = (dev.to_device(rng.standard_normal(N).astype(np.float32)) for _ in range(2))
    args = (("ptr", "ptr", "f32", "u64"), (y, x, 2.0, N), ((N + 255) // 256, 256))
    launch = module.kernel("saxpy").prepare(*args, stream if bound else None)
    return module, stream, x, y, launch


def build(obj: str, cgl, dev, np) -> list:
    if obj == "module":
        return [dev.load_module(cgl.compile_source(SAXPY, "saxpy"))]
    if obj == "stream":
        return [dev.create_stream()]
    if obj == "event":
        s, e0, e1 = dev.create_stream(), dev.create_event(), dev.create_event()
        e0.record(s)
        e1.record(s)
        e1.synchronize()
        e0.elapsed_us(e1)
        return [s, e0, e1]
    if obj == "array":
        return [dev.to_device(np.random.default_rng().standard_normal(N).astype(np.float32))]
    if obj == "foreign":
        try:
            import cupy
        except ImportError as e:
            raise Skip(f"CuPy is not installed ({e})")
        cs = cupy.cuda.Stream(non_blocking=True)
        a = cupy.random.random(N, dtype=cupy.float32)
        return [cgl.DeviceArray.wrap(a), cgl.Stream.wrap(cs)]
    module, stream, x, y, launch = _saxpy(cgl, dev, np, bound=obj != "unbound")
    base = [module, stream, x, y]
    if obj in ("launch", "unbound"):
        (launch if obj == "launch" else launch.on(stream))()
        stream.synchronize()
        return base
    if obj == "native":
        from cugraphlab.core import NativeLaunch

        try:
            native = NativeLaunch(launch)
        except cgl.UnsupportedError as e:
            raise Skip(str(e))
        native.fire()
        stream.synchronize()
        return base + [native]
    if obj in ("graph", "exec", "updated"):
        with cgl.capture(stream) as cap:
            launch()
        graph = cap.graph
        if obj == "graph":
            return base + [graph]
        exe = graph.instantiate()
        exe.launch(stream)
        stream.synchronize()
        if obj == "exec":
            return base + [graph, exe]
        from cugraphlab.graphs import try_exec_update

        z = dev.to_device(np.random.default_rng().standard_normal(N).astype(np.float32))
        launch.args.set(1, z)  # the next capture reads z
        with cgl.capture(stream) as cap2:
            launch()
        report = try_exec_update(exe, cap2.graph)
        if not report.updated:
            raise RuntimeError(f"exec update refused: {report}")
        exe.launch(stream)
        stream.synchronize()
        return base + [graph, exe, z, cap2.graph]
    if obj == "runner":
        from cugraphlab.experiment import Runner

        runner = Runner([launch], stream)
        runner.run("graph", 10)
        runner.run("eager", 10)
        stream.synchronize()
        return base + [runner]
    if obj == "measure":
        result = cgl.measure(launch, ways=("eager", "graph"), min_samples=3, max_samples=5, time_budget_s=0.5,
                             sm_clock=False)
        if not result:
            raise RuntimeError("measure returned nothing")
        return base + [result]
    if obj == "doctor":
        bad = cgl.capture(stream, explain=True)
        try:
            with bad:
                launch()
                stream.synchronize()  # the mistake the doctor names
        except cgl.CaptureError:
            pass
        if bad.diagnosis is None or bad.diagnosis.first is None:
            raise RuntimeError("the doctor named nothing")
        return base + [bad]
    if obj in ("chain", "memchain", "conditional", "devloop"):
        for r in base:
            r.close()
        chain = cgl.Chain(dev, n=N)
        if obj == "chain":
            chain.run("graph", 10)
            if not chain.verify("graph").ok:
                raise RuntimeError("chain not bit-exact")
            return [chain]
        if obj == "memchain":
            from cugraphlab.experiment import MemChain

            try:
                mc = MemChain(dev, n=N, kernels=chain.kernels)
            except cgl.UnsupportedError as e:
                raise Skip(str(e))
            mc.run(3)
            mc.stream.synchronize()
            return [chain, mc]
        if obj == "conditional":
            from cugraphlab.experiment import conditional_graphs

            try:
                loops = conditional_graphs(chain)
            except cgl.UnsupportedError as e:
                raise Skip(str(e))
            if not loops.run_while(20).ok:
                raise RuntimeError("WHILE loop wrong")
            return [chain, loops]
        from cugraphlab.experiment import device_loop

        try:
            loop = device_loop(chain)
        except cgl.UnsupportedError as e:
            raise Skip(str(e))
        if not loop.run_loop("self", 30).ok:
            raise RuntimeError("device loop wrong")
        return [chain, loop]
    raise ValueError(f"unknown object {obj!r}")


def _close_all(objs, order) -> None:
    for o in (objs if order == "order" else list(reversed(objs))):
        close = getattr(o, "close", None)
        if close is not None:
            close()


def still_usable(cgl, np) -> None:
    """A new Device computes a bit-exact saxpy: the process and the driver are fine after the cell."""
    with cgl.Device(0) as dev:
        module, stream, x, y, launch = _saxpy(cgl, dev, np)
        xs, ys = x.to_numpy(), y.to_numpy()
        launch()
        stream.synchronize()
        want = np.float32(2.0) * xs + ys
        if not np.array_equal(y.to_numpy(), want):
            raise RuntimeError("saxpy after the cell is not bit-exact")
        for r in (launch, y, x, stream, module):
            getattr(r, "close", lambda: None)()


def run_cell(obj: str, end: str) -> int:
    import numpy as np

    import cugraphlab as cgl

    if end == "exit":  # no with: everything, the Device too, is left to interpreter exit
        dev = cgl.Device(0)
        keep = build(obj, cgl, dev, np)
        print(f"CELL BUILT {len(keep)}", flush=True)
        globals()["_kept"] = (dev, keep)
        print("CELL OK", flush=True)
        return 0
    try:
        with cgl.Device(0) as dev:
            objs = build(obj, cgl, dev, np)
            print(f"CELL BUILT {len(objs)}", flush=True)
            if end == "raises":
                raise KeyError("raised inside the block")
            if end in ("order", "reverse"):
                _close_all(objs, end)
            elif end == "collected":
                objs.clear()
                gc.collect()
            elif end == "thread":
                failed = []

                def closer():
                    try:
                        _close_all(objs, "reverse")
                    except BaseException as e:  # reported below
                        failed.append(e)

                t = threading.Thread(target=closer)
                t.start()
                t.join()
                if failed:
                    raise failed[0]
            elif end == "os_exit":
                sys.stdout.flush()
                os._exit(0)
            globals()["_kept"] = objs  # "ends": the block ends with everything open, kept past it
    except KeyError:
        pass
    still_usable(cgl, np)
    print("CELL OK", flush=True)
    return 0


def _cell_command(obj: str, end: str, sanitize: bool) -> list[str]:
    cmd = [sys.executable, os.path.abspath(__file__), "--cell", obj, end]
    if sanitize:
        cmd = ["compute-sanitizer", "--tool", "memcheck", "--leak-check", "no", "--target-processes", "all"] + cmd
    return cmd


def judge(obj: str, end: str, timeout_s: float, sanitize: bool = False) -> dict:
    t0 = time.perf_counter()
    try:
        p = subprocess.run(_cell_command(obj, end, sanitize), capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return {"object": obj, "end": end, "verdict": "HANG", "rc": None, "s": round(time.perf_counter() - t0, 2),
                "detail": f"killed after {timeout_s:.0f} s; stdout: {out.strip()[-200:]}", "sanitizer": sanitize}
    s = round(time.perf_counter() - t0, 2)
    skipped = re.search(r"^CELL SKIP (.*)$", p.stdout, re.M)
    row = {"object": obj, "end": end, "rc": p.returncode, "s": s, "sanitizer": sanitize}
    bad = BAD.search(p.stderr)
    if skipped:
        row.update(verdict="skipped", detail=skipped.group(1))
    elif p.returncode < 0 or p.returncode >= 128:
        row.update(verdict="CRASH", detail=f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
    elif p.returncode != 0:
        row.update(verdict="FAILED", detail=f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
    elif bad:
        row.update(verdict="ERROR PRINTED", detail=p.stderr.strip()[-300:])
    elif end != "os_exit" and "CELL OK" not in p.stdout:
        row.update(verdict="FAILED", detail="no CELL OK line")
    elif sanitize and "ERROR SUMMARY: 0 errors" not in p.stdout + p.stderr:
        row.update(verdict="SANITIZER", detail=(p.stdout + p.stderr).strip()[-300:])
    else:
        row.update(verdict="clean", detail="")
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cell", nargs=2, metavar=("OBJECT", "END"))
    ap.add_argument("--objects", default=",".join(OBJECTS))
    ap.add_argument("--ends", default=",".join(ENDS))
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--timeout", type=float, default=40.0)
    ap.add_argument("--sanitize", type=int, default=0, help="also run this many cells under compute-sanitizer")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    if a.cell:
        try:
            return run_cell(*a.cell)
        except Skip as e:
            print(f"CELL SKIP {e}", flush=True)
            return 0
    objects, ends = a.objects.split(","), a.ends.split(",")
    unknown = sorted(set(objects) - set(OBJECTS)) + sorted(set(ends) - set(ENDS))
    if unknown:
        print(f"matrix: unknown object or end: {', '.join(unknown)}", file=sys.stderr)
        return 2
    cells = [(o, e) for o in objects for e in ends]
    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        rows = list(pool.map(lambda c: judge(*c, a.timeout), cells))
    # the sanitizer's sample: cells where a handle outlives its Device, and the orders that free them
    sample = [c for c in [("exec", "ends"), ("updated", "raises"), ("runner", "ends"), ("graph", "collected"),
                          ("chain", "reverse"), ("conditional", "thread"), ("memchain", "exit"),
                          ("native", "order")]][:a.sanitize]
    for c in sample:
        rows.append(judge(*c, a.timeout * 6, sanitize=True))
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    width = max(len(o) for o in objects)
    print(f"{'object':{width}s}  " + "  ".join(f"{e:>9s}" for e in ends))
    for o in objects:
        cells_o = {r["end"]: r["verdict"] for r in rows if r["object"] == o and not r["sanitizer"]}
        print(f"{o:{width}s}  " + "  ".join(f"{cells_o.get(e, '-'):>9s}" for e in ends))
    for r in rows:
        if r["verdict"] not in ("clean",):
            print(f"  {r['object']} x {r['end']}{' (sanitizer)' if r['sanitizer'] else ''}: {r['verdict']}: "
                  f"{r['detail']}")
    print(f"{len(rows)} cells in {time.perf_counter() - t0:.0f} s: " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if a.json:
        env = {}
        try:
            from cugraphlab.bench.records.environment import collect

            env = collect()
        except Exception as e:  # the matrix itself is the result; say why the environment is missing
            env = {"error": str(e)}
        with open(a.json, "w") as f:
            json.dump({"kind": "cugraphlab.study.lifetime_matrix", "env": env, "rows": rows, "counts": counts}, f,
                      indent=1)
    return 0 if set(counts) <= {"clean", "skipped"} else 1


if __name__ == "__main__":
    sys.exit(main())
