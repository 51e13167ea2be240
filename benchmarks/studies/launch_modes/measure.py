"""The launch-cost modes study (issue 14 §1): where the 3.5-versus-5.5 µs host cost of one launch comes from.

One experiment is a *grid*: ``contexts`` fresh contexts (primary released and retained again, or ``cuCtxCreate``d
with a scheduling flag) x ``streams`` streams in each, and on every stream the same ``add`` (1,024 floats) launched
by the bare binding and by the C loop, interleaved (A B, B A, ...), ``repeats`` blocks of ``launches`` each, with the
SM clock and a held-device block beside every sample (``bench.paired.sample_way``). If the mode is per context, the
streams of one context agree and the contexts differ; if per stream, streams of one context differ too.

Settings read when a context is made (``CUDA_DEVICE_MAX_CONNECTIONS``) or for the whole process (the CPU core it is
pinned to) need processes of their own: ``run_child`` starts this module with the same interpreter,

    python -m studies.launch_modes.measure --out result.json [--pin CORE] [--kinds primary,spin] ...

with the environment asked for, and reads its JSON back. ``grid(...)`` is the experiment itself.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["grid", "run_child", "summarize_grid", "main"]

STUDY_WAYS = ("bindings", "c")


def _median(v):
    v = sorted(x for x in v if x is not None)
    if not v:
        return None
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def grid(device_index: int = 0, *, contexts: int = 6, streams: int = 4, launches: int = 5000, repeats: int = 9,
         held_launches: int = 512, kinds=("primary",), size: int = 1024, ways=STUDY_WAYS, release: str = "mapped",
         warmup: int = 200, progress=None) -> dict:
    """The grid experiment (module docstring). ``kinds``: context kinds taken in turn (context i is
    ``kinds[i % len(kinds)]``), so kinds are interleaved too. Returns plain data: per context its kind, fresh
    flag and per stream per way the µs per launch, held µs and SM MHz of every block."""
    from cugraphlab.bench.paired.harness import sample_way
    from cugraphlab.bench.paired.ways import Rig, build_ways
    from cugraphlab.bench.stats.paired_stats import round_order
    from cugraphlab.core.context import CreatedContext, primary_context_active
    from cugraphlab.core.device import Device

    say = progress or (lambda _line: None)
    out = {"contexts": [], "pid": os.getpid(), "affinity": sorted(os.sched_getaffinity(0)),
           "max_connections": os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS"), "launches": launches,
           "repeats": repeats, "held_launches": held_launches, "size": size, "ways": list(ways)}
    env_done = False
    total = contexts * len(kinds)
    for i in range(total):
        kind = kinds[i % len(kinds)]
        t0 = time.perf_counter()
        fresh = (not primary_context_active(device_index)) if kind == "primary" else True
        device = Device(device_index) if kind == "primary" else CreatedContext(
            device_index, "auto" if kind == "created" else kind)
        ctx = {"index": i, "kind": kind, "fresh": fresh, "streams": []}
        try:
            if not env_done:
                from cugraphlab.bench.records.environment import collect

                out["env"] = collect(device)
                from cugraphlab.bench.probes.sm_clock import rated_clock_mhz

                out["rated_mhz"] = rated_clock_mhz(device)
                env_done = True
            rigs = [Rig(device, size=size, seed=i, release=release, kind=kind, fresh=fresh, index=s,
                        own_device=False) for s in range(streams)]
            try:
                built = [build_ways(rig, list(ways))[0] for rig in rigs]
                for rig, ws in zip(rigs, built):
                    for w in ws:
                        w.run(warmup)
                    rig.drain()
                samples = {s: {w.name: [] for w in built[s]} for s in range(streams)}
                for r in range(repeats):
                    for s in round_order(list(range(streams)), r):  # streams interleaved too
                        for slot, w in enumerate(round_order(built[s], r)):
                            samples[s][w.name].append(sample_way(rigs[s], w, i, r, slot, launches, held_launches))
                for s in range(streams):
                    ctx["streams"].append({"index": s, "ways": {
                        name: {"us": [x.us for x in v], "held_us": [x.held_us for x in v],
                               "sm_mhz": [x.sm_mhz for x in v], "clock_low": sum(x.clock_low for x in v)}
                        for name, v in samples[s].items()}})
            finally:
                for rig in reversed(rigs):
                    rig.close()
        finally:
            device.close()
        ctx["seconds"] = round(time.perf_counter() - t0, 3)
        out["contexts"].append(ctx)
        say(f"context {i + 1}/{total} ({kind}): " + ", ".join(
            f"stream {st['index']} " + "/".join(f"{_median(v['us']):.2f}" for v in st["ways"].values())
            for st in ctx["streams"]) + " us")
    return out


def summarize_grid(data: dict) -> dict:
    """Medians per stream and per context for each way, and the spreads that tell a context mode from a stream
    mode: within a context (max/min over its streams' medians) and across contexts (max/min of context medians)."""
    ways = data.get("ways", list(STUDY_WAYS))
    per_ctx, spread_in, rows = {w: [] for w in ways}, {w: [] for w in ways}, []
    mhz, low = [], 0
    held = {w: [] for w in ways}
    long = {w: [] for w in ways}
    for ctx in data.get("contexts", []):
        meds = {w: [] for w in ways}
        for st in ctx["streams"]:
            row = {"context": ctx["index"], "kind": ctx["kind"], "stream": st["index"]}
            for w in ways:
                v = st["ways"].get(w)
                if not v:
                    continue
                m, h = _median(v["us"]), _median(v["held_us"])
                row[w], row[f"{w}_held"] = m, h
                meds[w].append(m)
                long[w].extend(v["us"])
                held[w].extend(x for x in v["held_us"] if x is not None)
                mhz.extend(x for x in v["sm_mhz"] if x)
                low += v["clock_low"]
            if "bindings" in row and "c" in row and row["c"]:
                row["ratio"] = row["bindings"] / row["c"]
            row["sm_mhz"] = _median([x for v in st["ways"].values() for x in v["sm_mhz"] if x])
            rows.append(row)
        for w in ways:
            if meds[w]:
                per_ctx[w].append(_median(meds[w]))
                spread_in[w].append(max(meds[w]) / min(meds[w]))
    out = {"rows": rows, "per_context": per_ctx,
           "within_context_spread": {w: _median(v) for w, v in spread_in.items()},
           "across_context_spread": {w: (max(v) / min(v) if v else None) for w, v in per_ctx.items()},
           "median": {w: _median(v) for w, v in long.items()}, "held_median": {w: _median(v) for w, v in held.items()},
           "sm_mhz": {"min": min(mhz) if mhz else None, "median": _median(mhz), "max": max(mhz) if mhz else None,
                      "low_samples": low, "rated": data.get("rated_mhz")}}
    return out


def run_child(out_path: str | os.PathLike, args: list[str], *, env: dict | None = None, timeout_s: float = 300.0
              ) -> dict:
    """Run ``python -m studies.launch_modes.measure --out OUT *args`` with this interpreter and ``env`` added to
    the environment; return its JSON (``{"error": ...}`` when it failed, with its stderr tail)."""
    package_root = str(Path(__file__).resolve().parents[2])
    child_env = dict(os.environ)
    child_env["PYTHONPATH"] = package_root + (os.pathsep + child_env["PYTHONPATH"]
                                              if child_env.get("PYTHONPATH") else "")
    child_env.update(env or {})
    cmd = [sys.executable, "-m", "studies.launch_modes.measure", "--out", str(out_path), *args]
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, env=child_env, capture_output=True, text=True, timeout=timeout_s,
                           cwd=package_root)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout_s:.0f} s", "args": args}
    seconds = time.perf_counter() - t0
    if r.returncode != 0:
        return {"error": f"exit {r.returncode}", "stderr": r.stderr[-3000:], "args": args, "seconds": seconds}
    data = json.loads(Path(out_path).read_text())
    data["seconds"] = round(seconds, 2)
    data["args"] = args
    data["child_env"] = env or {}
    return data


def main(argv=None) -> int:
    """The child process: pin (optionally), run one experiment, write its JSON."""
    p = argparse.ArgumentParser(prog="python -m studies.launch_modes.measure")
    p.add_argument("--out", required=True)
    p.add_argument("--experiment", choices=("grid", "paired"), default="grid")
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--pin", type=int, default=None, help="CPU core to pin this process to (before cuInit)")
    p.add_argument("--contexts", type=int, default=6)
    p.add_argument("--streams", type=int, default=4)
    p.add_argument("--launches", type=int, default=5000)
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--held", type=int, default=512)
    p.add_argument("--kinds", default="primary")
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    if a.pin is not None:
        os.sched_setaffinity(0, {a.pin})
    say = None if a.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    if a.experiment == "grid":
        data = grid(a.device, contexts=a.contexts, streams=a.streams, launches=a.launches, repeats=a.repeats,
                    held_launches=a.held, kinds=tuple(a.kinds.split(",")), size=a.size, progress=say)
    else:
        from cugraphlab.bench.paired.harness import measure_paired

        data = measure_paired(a.device, size=a.size, contexts=a.contexts, rounds=a.rounds, launches=a.launches,
                              held_launches=a.held, context_kind=a.kinds.split(",")[0], progress=say).to_dict()
        data["affinity"] = sorted(os.sched_getaffinity(0))
    Path(a.out).write_text(json.dumps(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
