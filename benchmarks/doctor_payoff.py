"""Does my graph pay off? The replay watch's break-even against ``cugraphlab measure``'s, on the same callable.

The callable: ``work(stream)`` fires a chain of LAUNCHES prepared launches of one small kernel (``y = 2 * x``,
ping-pong between two buffers of N floats) on the stream it is given.

1. ``cgl.measure(work, ways=("eager", "graph"))``: its break-even (bench.measure.result: the graph's capture +
   instantiate + upload medians over (eager wall - graph wall) per call, wall clock: from before the first call
   until the GPU is done, per call).
2. The doctor, as a user's loop runs under ``cugraphlab doctor --replay``: the replay watch
   (graphs.doctor.launches) installed, the work captured once and instantiated, the executable launched REPLAYS
   times; the eager time the doctor is given is measured by this script the same way (REPLAYS eager calls,
   perf_counter_ns from the first until the stream is done, per call); graphs.doctor.sites gives the break-even
   and the verdict. The watch's costs are host clocks of the calls themselves (capture: its begin to its end;
   instantiate and each replay: the driver call), so where the GPU, not the host, sets the pace of a replay, its
   break-even comes out lower than measure's: the script prints both, their ratio, each side's set-up and saving,
   and the doctor's break-even with the replay's wall time (perf_counter_ns over the REPLAYS launches until done)
   put in place of its host time, which is the part of the difference the clocks explain.

Both results are checked bit for bit against NumPy float32 first (the graph's and the eager chain's output).
Prints one last line ``doctor_payoff: doctor N1 replays, measure N2 calls, ratio R (within 20%: yes|no; with the
replay's wall time: N3, ratio R3)``; exit 0 when both break-evens exist and the ratio, or the wall-time one, lies
within 20% of 1, else 1.

Usage: python benchmarks/doctor_payoff.py OUT_DIR [--launches 8] [--n 4096] [--replays 2000] [--device 0]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from cugraphlab.bench.scripts import require_gpu, run_main


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("--launches", type=int, default=8)
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--replays", type=int, default=2000)
    p.add_argument("--device", type=int, default=0)
    return p


def chain(dev, s, n: int, k: int):
    """K launches of ``twice`` on ``s``, a -> b -> a ...: the output (a or b) and the launches."""
    from cugraphlab.graphs.field_gallery._cgl import twice

    a, b = dev.array(n), dev.array(n)
    launches = [twice(dev, s, b, a, n) if i % 2 == 0 else twice(dev, s, a, b, n) for i in range(k)]
    return a, b, launches


def check(name: str, got: np.ndarray, x: np.ndarray, k: int) -> None:
    want = x.copy()
    for _ in range(k):
        want = want * np.float32(2)
    if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
        raise AssertionError(f"{name}: differs from NumPy float32 at {int(np.sum(got != want))} element(s)")
    print(f"{name}: matches NumPy float32 bit for bit ({got.size} floats)")


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.launches < 1 or args.n < 1 or args.replays < 10:
        print("doctor_payoff.py: --launches and --n must be >= 1, --replays >= 10", file=sys.stderr)
        return 2
    require_gpu(__file__, args.device)
    import cugraphlab as cgl
    from cugraphlab.graphs import capture
    from cugraphlab.graphs.doctor import explain_all
    from cugraphlab.graphs.doctor.launches import LaunchWatch
    from cugraphlab.graphs.doctor.sites import site_stats
    from cugraphlab.report.doctor import render_sites

    args.out.mkdir(parents=True, exist_ok=True)
    k, n, replays = args.launches, args.n, args.replays
    rng = np.random.default_rng()
    with cgl.Device(args.device) as dev, dev.create_stream() as s:
        a, b, launches = chain(dev, s, n, k)
        out = b if k % 2 else a

        def work(stream):
            for launch in launches:
                launch()

        def fresh() -> np.ndarray:
            """New random inputs in ``a``; the output poisoned where it is not the input itself (K odd: ``b``)."""
            x = rng.standard_normal(n).astype(np.float32)
            a.copy_from(x, stream=s)
            if out is b:
                b.poison(stream=s)
            return x

        # 1. measure (on fresh random inputs: never time on zeros)
        fresh()
        r = cgl.measure(work, stream=s, ways=("eager", "graph"), sm_clock=False, reference=False,
                        time_budget_s=20)

        # 2. the doctor: the replay watch on a user's loop; the eager time measured here the same way
        x = fresh()
        events: list = []
        with explain_all():
            watch = LaunchWatch(events.append).install()
            try:
                with capture(s) as cap:
                    work(s)
                with cap.graph as graph, graph.instantiate() as exe:
                    exe.launch(s)
                    check("graph (one replay)", out.to_numpy(stream=s), x, k)
                    s.synchronize()
                    t0 = time.perf_counter_ns()
                    for _ in range(replays):
                        exe.launch(s)
                    s.synchronize()
                    replay_wall = (time.perf_counter_ns() - t0) / replays / 1e3
            finally:
                watch.uninstall()
        x = fresh()
        work(s)
        check("eager (one call)", out.to_numpy(stream=s), x, k)
        s.synchronize()
        t0 = time.perf_counter_ns()
        for _ in range(replays):
            work(s)
        s.synchronize()
        eager_doctor = (time.perf_counter_ns() - t0) / replays / 1e3
        for arr in (a, b):
            arr.close()

    sites = [t for t in site_stats(events, eager_us=eager_doctor) if t["stack"] == "cugraphlab" and t["replays"]]
    if len(sites) != 1:
        print(f"doctor_payoff: expected one launched capture site, the watch saw {len(sites)}", file=sys.stderr)
        return 1
    print(render_sites(sites))
    record = compare(r.break_even, r["eager"].wall.median, r["graph"].wall.median, sites[0], eager_doctor,
                     replay_wall)
    record.update(launches=k, n=n, replays=replays)
    (args.out / "doctor_payoff.json").write_text(json.dumps(record, indent=1, default=str))
    print(f"\nwork: {k} launches of y = 2 * x on {n:,} floats, one stream")
    print("\n".join(record["lines"]))
    return 0 if record["ok"] else 1


def compare(m: dict, eager_wall: float, graph_wall: float, site: dict, eager_doctor: float,
            replay_wall: float) -> dict:
    """Both break-evens side by side: measure's (``m``, its ``break_even`` dict, with its eager and graph wall
    medians), the doctor's (``site``, graphs.doctor.sites' row, given ``eager_doctor``) and the doctor's with the
    replay's wall time in place of its host time; their ratios, whether one is within 20% (``ok``), and the lines
    to print, the last one the summary."""
    from cugraphlab.graphs.doctor.sites import verdict

    walled: dict = {}
    verdict(site["setup_us"], replay_wall, eager_doctor, site["replays"], site["captures"], walled)
    d_n, m_n, w_n = site["break_even"], m["calls"], walled.get("break_even")
    ratio = d_n / m_n if d_n and m_n else None
    wall_ratio = w_n / m_n if w_n and m_n else None

    def within(q):
        return q is not None and 0.8 <= q <= 1.2

    def fmt(q):
        return "n/a" if q is None else f"{q:.2f}"

    lines = [
        f"measure: set-up {m['setup_us'] or 0:.1f} us (capture + instantiate + upload medians), eager "
        f"{eager_wall:.2f} us, graph {graph_wall:.2f} us per call (wall): saved {m['saved_us'] or 0:.2f} us, "
        f"break-even {m_n} calls {m['reason']}".rstrip(),
        f"doctor: set-up {site['setup_us']:.1f} us (capture begin to end + cuGraphInstantiate, host), eager "
        f"{eager_doctor:.2f} us per call (wall, this script), replay {site['replay_us'] or 0:.2f} us (cuGraphLaunch, "
        f"host) and {replay_wall:.2f} us (wall): break-even {d_n} replays ({site['verdict']}); with the replay's "
        f"wall time: {w_n}",
        f"doctor_payoff: doctor {d_n} replays, measure {m_n} calls, ratio {fmt(ratio)} (within 20%: "
        f"{'yes' if within(ratio) else 'no'}; with the replay's wall time: {w_n}, ratio {fmt(wall_ratio)})",
    ]
    return {"kind": "cugraphlab.study.doctor_payoff",
            "measure": {"break_even": m, "eager_wall_us": eager_wall, "graph_wall_us": graph_wall},
            "doctor": {"site": site, "eager_us": eager_doctor, "replay_wall_us": replay_wall,
                       "break_even_with_replay_wall": w_n},
            "ratio": ratio, "ratio_with_replay_wall": wall_ratio, "ok": within(ratio) or within(wall_ratio),
            "lines": lines}


if __name__ == "__main__":
    run_main(main, __file__)
