"""Fakes for the paired harness: a rig with a mode per context and ways of known cost, on a fake nanosecond clock."""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from cugraphlab.bench.paired.ways import PairedWay
from cugraphlab.bench.probes.hold import HoldReport


class FakeClock:
    """perf_counter_ns stand-in: advances ``step_ns`` on every read, plus what the fake ways spend."""

    def __init__(self, step_ns: int = 1000):
        self.now, self.step = 0, step_ns

    def __call__(self) -> int:
        self.now += self.step
        return self.now

    def spend(self, ns: float) -> None:
        self.now += int(ns)


class FakeRig:
    """A context whose launch cost is ``mode_us`` (one of the host's modes), with an SM clock per sample."""

    def __init__(self, index: int, mode_us: float, mhz=1980.0, rated_mhz: float = 1980.0, held_ok: bool = True):
        self.index, self.mode_us, self.kind, self.fresh = index, mode_us, "primary", True
        self.rated_mhz, self._mhz, self.held_ok = rated_mhz, mhz, held_ok
        self.closed = False
        self.drains = 0
        self.holding = False
        self.log = []

    def drain(self):
        self.drains += 1

    def sm_clock_mhz(self):
        return self._mhz() if callable(self._mhz) else self._mhz

    @contextmanager
    def held(self):
        self.holding = True
        result = {}
        try:
            yield result
        finally:
            self.holding = False
            result["report"] = HoldReport(released=self.held_ok, spun_ns=1000)

    def close(self):
        self.closed = True


def fake_ways(rig: FakeRig, costs: dict[str, float], clock: FakeClock, noise: float = 0.0, seed: int = 0,
              held_factor: float = 0.9, self_timed=("c",)):
    """Ways whose cost per launch is ``rig.mode_us * costs[name]`` (times 1 + noise * N(0, 1)); the ways named in
    ``self_timed`` return their ns like the C loop, the others spend it on the clock."""
    rng = np.random.default_rng([seed, rig.index])
    ways = []
    for name, factor in costs.items():
        def run(n, name=name, factor=factor):
            us = rig.mode_us * factor * (1 + noise * rng.standard_normal())
            if rig.holding:
                us *= held_factor
            rig.log.append(name if n > 1 else name + ":1")
            ns = us * 1e3 * n
            if name in self_timed:
                return ns
            clock.spend(ns)
            return None

        ways.append(PairedWay(name, run, f"fake {name}", own=name != "cupy_raw",
                              clock="c_monotonic" if name in self_timed else "host_call"))
    return ways, {}
