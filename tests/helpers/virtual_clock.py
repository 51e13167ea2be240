"""A host clock for the fake driver that advances by what the work would cost, not by what this machine took:
``time.perf_counter_ns`` reads a virtual clock, each read costs 50 ns, and each launch-like driver call adds its
fixed cost (a launch 5 µs, a memset 5.2 µs, a graph launch 2.6 µs) with 0.5% seeded jitter. Two runs of the same
work then measure alike on a loaded two-core machine, and differ (their seeds do) as two real runs would."""
from __future__ import annotations

import random
import time

COSTS_NS = {"cuLaunchKernel": 5000, "cuMemsetD32Async": 5200, "cuGraphLaunch": 2600}
READ_NS = 50


class VirtualClock:
    def __init__(self, seed: int, jitter: float = 0.005):
        self.now = 1_000_000_000
        self.rng = random.Random(seed)
        self.jitter = jitter

    def __call__(self) -> int:
        self.now += READ_NS
        return self.now

    def charge(self, call: str) -> None:
        self.now += int(COSTS_NS[call] * (1 + self.jitter * self.rng.gauss(0.0, 1.0)))


def install_virtual_clock(monkeypatch, fake, seed: int) -> VirtualClock:
    """``time.perf_counter_ns`` -> a VirtualClock; the fake driver's launch-like calls charge it."""
    clock = VirtualClock(seed)
    monkeypatch.setattr(time, "perf_counter_ns", clock)
    for call in COSTS_NS:
        real = getattr(fake, call)

        def charged(*args, _real=real, _call=call):
            clock.charge(_call)
            return _real(*args)

        monkeypatch.setattr(fake, call, charged)
    return clock
