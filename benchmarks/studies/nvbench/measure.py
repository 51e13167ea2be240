"""cugraphlab's side of the study: each workload's launch timed the ways nvbench does and the ways only cugraphlab does.

``cugraphlab.measure`` (issue 25 section 2) is not on main yet, so this times with the package's building blocks,
each on its own clock (``cugraphlab.bench.records.record.CLOCKS``):

* **cold, isolated** (nvbench's cold way, redone): the L2 flushed (``cuMemsetD32Async`` over a buffer of the L2's
  size, as nvbench's ``l2flush``), the stream drained, then held by cugraphlab's spinning kernel
  (``bench.probes.hold.DeviceHold``, as nvbench's blocking kernel), CUDA events recorded around the one launch, the
  hold released: device µs of one launch, no host launch cost inside. **warm, isolated**: the same without the flush.
* **eager loop**: ``bench.timing.timed_chunks`` over launches made one by one from Python (CUDA events around the
  loop; 10 chunks per loop): what nvbench's batch does from Python (events around back-to-back launches the host
  makes while the GPU runs), so both are paced by whichever is slower, host or kernel.
* **graph x50**: the same loop over cuGraphLaunch of a graph of 50 of the launch (``experiment.runners.Runner``):
  device µs per kernel when the GPU never waits for the host; nvbench's batch of the same graph is its twin.
* **held**: 512 launches queued behind the hold, events around them, then released: device µs per launch back to
  back (warm), and perf_counter_ns around the 512 calls: the host µs per launch of the Python call alone.
  **cold, rotating**: the same over input sets in rotation whose bytes exceed twice the L2 (``experiment.cold_l2``'s
  rule, ``sets_for``), so each launch reads from HBM but launches still overlap.
* **C loop**: the same 512 launches from ``bench.native.NativeFloor``'s C loop (CLOCK_MONOTONIC in C): the native
  floor of the host cost.

Every workload's output is checked bit for bit after its rows (``Workload.check``), the rotating sets too.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from cugraphlab import compare_bits, cu
from cugraphlab.bench.probes.hold import DeviceHold
from cugraphlab.bench.timing import chunk_sizes, paced, timed_chunks
from cugraphlab.experiment.cold_l2 import sets_for
from cugraphlab.experiment.runners import Runner

__all__ = ["Settings", "Rig", "ROWS", "measure_workload", "UNROLL"]

UNROLL = 50  # launches per graph in the "graph x50" rows (cugraphlab's and nvbench's)

#: row -> (clock key, what it is); a record's labels are "<workload>: <row>"
ROWS = {
    "cold isolated": ("device", "one launch after an L2 flush, held, CUDA events around it (nvbench's cold way)"),
    "warm isolated": ("device", "the same without the flush"),
    "eager loop": ("device", "launches one by one from Python, events around the loop (nvbench's batch way)"),
    "eager loop wall": ("wall", "the same loop's chunks on the host clock (the slower of host and device: "
                                "timing.paced)"),
    f"graph x{UNROLL}": ("device", f"cuGraphLaunch of a graph of {UNROLL} launches in a loop, per launch"),
    f"graph x{UNROLL} wall": ("wall", "the same loop on the host clock, per launch"),
    "held": ("device", "512 launches queued behind the hold, events around them, per launch (warm)"),
    "held host": ("host_call", "perf_counter_ns around the 512 Python calls while held, per launch"),
    "cold rotating": ("device", "held launches over rotating input sets (> 2 x L2), per launch"),
    "C loop host": ("host_call", "the 512 launches from a C loop while held (native floor), per launch"),
}


@dataclass
class Settings:
    """How much of each row: samples of the isolated rows, loops x launches (and chunks) of the loops, holds."""

    isolated: int = 200
    loop_launches: int = 2000
    repeats: int = 5
    chunks: int = 10
    held_launches: int = 512
    holds: int = 20

    @classmethod
    def quick(cls) -> "Settings":
        return cls(isolated=40, loop_launches=500, repeats=3, chunks=4, held_launches=128, holds=6)


@dataclass
class Rig:
    """What every row shares: the device, the stream, timing events, the hold, the L2 flush buffer, the C loops."""

    dev: object
    stream: object
    kernels: object
    settings: Settings
    native: object = None  # a bench.native.NativeFloor, or None with native_why
    native_why: str = ""
    events: list = field(default_factory=list)
    hold: object = None
    flush: object = None
    l2_bytes: int = 0

    def __enter__(self) -> "Rig":
        self.l2_bytes = int(self.dev.attribute("L2_CACHE_SIZE"))
        self.flush = self.dev.array(max(1, self.l2_bytes // 4), "uint32")
        self.events = [self.dev.create_event() for _ in range(self.settings.chunks + 1)]
        self.hold = DeviceHold(self.dev, self.kernels, self.stream, timeout_ms=2000)
        if self.native is None and not self.native_why:
            try:
                from cugraphlab.bench.native.loops import NativeFloor

                self.native = NativeFloor()
            except Exception as e:  # no C compiler, no libcuda entry points: the row says why
                self.native_why = f"{type(e).__name__}: {e}"
        return self

    def __exit__(self, *exc) -> None:
        for e in self.events:
            e.close()
        if self.hold is not None:
            self.hold.close()
        if self.flush is not None:
            self.flush.close()

    # --- the timers ---------------------------------------------------------------------------------------------
    def isolated(self, launch, flush: bool) -> list[float]:
        """Device µs of one launch at a time (module docstring), ``settings.isolated`` samples."""
        s, e0, e1 = self.stream, self.events[0], self.events[1]
        out = []
        for _ in range(self.settings.isolated):
            if flush:
                cu("cuMemsetD32Async", self.flush.handle, 0, self.flush.n, s.handle)
            s.synchronize()
            self.hold.engage()
            try:
                e0.record(s)
                launch()
                e1.record(s)
            finally:
                self.hold.release()
            out.append(e0.elapsed_us(e1))
        return out

    def loop(self, run, per_call: int, grain: int = 1) -> tuple[list[float], list[float]]:
        """(wall, device) µs per launch of ``run(k)`` loops (k calls of ``per_call`` launches), per chunk."""
        st = self.settings
        calls = max(1, st.loop_launches // per_call)
        sizes = chunk_sizes(calls, st.chunks, grain)
        events = [self.events[0], *self.events[1:len(sizes)], self.events[-1]]
        wall, dev = [], []
        run(min(calls, 50))  # warm-up: first launches, graph upload
        for _ in range(st.repeats):
            _w, _d, ws, ds = timed_chunks(self.stream, run, sizes, events)
            wall += [w / per_call for w in paced(ws, ds)]
            dev += [d / per_call for d in ds]
        return wall, dev

    def held(self, launches) -> tuple[list[float], list[float]]:
        """(host, device) µs per launch of ``settings.held_launches`` launches queued behind the hold, cycling
        through ``launches`` (one, or the rotating sets' launches), ``settings.holds`` times."""
        k, s, e0, e1 = self.settings.held_launches, self.stream, self.events[0], self.events[1]
        perf = time.perf_counter_ns
        host, dev, at = [], [], 0
        for _ in range(self.settings.holds):
            batch = [launches[(at + i) % len(launches)] for i in range(k)]
            at += k
            s.synchronize()
            self.hold.engage()
            try:
                e0.record(s)
                t0 = perf()
                for launch in batch:
                    launch()
                t1 = perf()
                e1.record(s)
            finally:
                self.hold.release()
            host.append((t1 - t0) / 1e3 / k)
            dev.append(e0.elapsed_us(e1) / k)
        return host, dev

    def c_loop(self, launch) -> list[float]:
        """Host µs per launch of the C loop behind the hold (the native floor); [] where it cannot be built."""
        if self.native is None:
            return []
        loop, k = self.native.launch_loop(launch), self.settings.held_launches
        out = []
        for _ in range(self.settings.holds):
            self.stream.synchronize()
            self.hold.engage()
            try:
                ns = loop(k)
            finally:
                self.hold.release()
            out.append(ns / 1e3 / k)
        return out


class Rotation:
    """Input sets in rotation for one workload: enough (x, y, out) slices of three pools that their bytes exceed
    twice the L2 (``sets_for``), one prepared launch per set, every set's output checkable."""

    def __init__(self, rig: Rig, w, seed: int = 5):
        self.w, self.n = w, w.n
        self.sets = sets_for(rig.l2_bytes, w.bytes)
        rng = np.random.default_rng(seed)
        self.hx = rng.standard_normal(self.sets * self.n, dtype=np.float32)
        self.hy = rng.standard_normal(self.sets * self.n, dtype=np.float32)
        self.pools = [rig.dev.array(self.sets * self.n) for _ in range(3)]
        self.pools[0].copy_from(self.hx, rig.stream)
        self.pools[1].copy_from(self.hy, rig.stream)
        self.pools[2].poison(rig.stream)
        step = 4 * self.n
        base = [int(p.ptr) for p in self.pools]
        self.launches = [w.launch_on(rig.stream, x=base[0] + i * step, y=base[1] + i * step, out=base[2] + i * step)
                         for i in range(self.sets)]

    def check(self, stream, launched: int):
        """The outputs of the sets launched so far (the first ``launched``, at most all) against NumPy."""
        k = min(self.sets, launched) * self.n
        got = self.pools[2].to_numpy(stream=stream)[:k]
        return compare_bits(f"{self.w.name}: cold rotating ({self.sets} sets)", got,
                            self.w.expected(self.hx[:k], self.hy[:k]))

    def close(self) -> None:
        self.launches.clear()
        for p in self.pools:
            p.close()


def measure_workload(rig: Rig, w) -> tuple[dict[str, list[float]], list, dict]:
    """Every row of ``ROWS`` for workload ``w``: {row: samples (µs)}, the checks (Verifications) and facts."""
    s = rig.stream
    launch = w.launch_on(s)
    rows: dict[str, list[float]] = {}
    checks = []
    w.poison(s)
    rows["cold isolated"] = rig.isolated(launch, flush=True)
    rows["warm isolated"] = rig.isolated(launch, flush=False)
    checks.append(w.check(s, "isolated launches"))
    w.poison(s)
    def eager(k: int) -> None:  # the loop a user writes
        for _ in range(k):
            launch()

    rows["eager loop wall"], rows["eager loop"] = rig.loop(eager, 1)
    checks.append(w.check(s, "eager loop"))
    w.poison(s)
    with Runner([launch], s) as runner:
        wall, dev = rig.loop(lambda k: runner.graphs(k, UNROLL), UNROLL)
    rows[f"graph x{UNROLL} wall"], rows[f"graph x{UNROLL}"] = wall, dev
    checks.append(w.check(s, f"graph x{UNROLL}"))
    w.poison(s)
    rows["held host"], rows["held"] = rig.held([launch])
    checks.append(w.check(s, "held launches"))
    rows["C loop host"] = rig.c_loop(launch)
    rot = Rotation(rig, w)
    try:
        _host, rows["cold rotating"] = rig.held(rot.launches)
        checks.append(rot.check(s, rig.settings.holds * rig.settings.held_launches))
        facts = {"rotating_sets": rot.sets, "bytes_per_launch": w.bytes}
    finally:
        rot.close()
    if not rows["C loop host"]:
        facts["C loop"] = f"not measured: {rig.native_why}"
    return rows, checks, facts
