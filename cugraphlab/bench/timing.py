"""The one timer: a loop of iterations timed on the host wall clock and on the device clock at once, and the
interleaved-repeats harness every comparison in this package goes through.

``timed_loop``: the stream is drained first (outside the timed region); ``perf_counter_ns`` is read before the first
launch and after ``cuEventSynchronize`` on the end event returns (host wall clock, so it includes the host's launch
cost and waits for the GPU); CUDA events recorded on the stream just before and after the loop give the device time
(``cuEventElapsedTime``). Both are returned per iteration, in µs.

``interleave``: each repeat runs every variant in turn (so drift hits all alike), each on fresh random inputs with
poisoned outputs, after an optional untimed lead-in of the same variant (the GPU's clocks settle at that load), and
checks each variant's output after its timed loop.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from .records.record import CLOCKS
from .stats.summary import Summary, summarize

__all__ = ["WALL_CLOCK", "DEVICE_CLOCK", "timed_loop", "Variant", "Timings", "interleave"]

WALL_CLOCK = CLOCKS["wall"]
DEVICE_CLOCK = CLOCKS["device"]


def timed_loop(stream, run: Callable[[int], None], iters: int, start, end) -> tuple[float, float]:
    """(wall µs, device µs) per iteration of one loop ``run(iters)`` enqueued on ``stream``."""
    stream.synchronize()
    t0 = time.perf_counter_ns()
    start.record(stream)
    run(iters)
    end.record(stream)
    end.synchronize()
    t1 = time.perf_counter_ns()
    return (t1 - t0) / 1e3 / iters, start.elapsed_us(end) / iters


@dataclass
class Variant:
    """One way of running a workload inside ``interleave``.

    ``run(iters)`` enqueues ``iters`` iterations on ``stream``; ``prepare()`` gives fresh inputs and poisoned outputs;
    ``check()`` returns the number of output elements that differ from NumPy after the run (0: bit-exact).
    """

    name: str
    stream: object
    run: Callable[[int], None]
    prepare: Callable[[], None]
    check: Callable[[], int]


@dataclass
class Timings:
    """One variant's samples over the repeats, both clocks, and its mismatches summed over the repeats."""

    wall_us: list[float]
    device_us: list[float]
    mismatches: int = 0

    def wall(self, clock: str = WALL_CLOCK) -> Summary:
        return summarize(self.wall_us, unit="us", clock=clock)

    def device(self, clock: str = DEVICE_CLOCK) -> Summary:
        return summarize(self.device_us, unit="us", clock=clock)

    @property
    def verified(self) -> bool:
        return self.mismatches == 0

    def keep(self, record, name: str) -> None:
        """Keep both clocks' raw samples in ``record`` (a bench.records.Record) as rows "NAME: wall" and ": device"."""
        record.keep_samples(f"{name}: wall", self.wall_us, clock="wall")
        record.keep_samples(f"{name}: device", self.device_us, clock="device")


def interleave(variants: list[Variant], iters: int, repeats: int, start, end, *, lead_in: int = 0,
               progress: Callable[[str], None] | None = None) -> dict[str, Timings]:
    """Time every variant ``repeats`` times, interleaved; returns name -> Timings (µs per iteration).

    ``start`` and ``end`` are timing Events of the device the variants run on; ``lead_in`` untimed iterations of
    the same variant run right before each timed loop.
    """
    out = {v.name: Timings([], []) for v in variants}
    for r in range(repeats):
        for v in variants:
            v.prepare()
            if lead_in:
                v.run(lead_in)
            wall, dev = timed_loop(v.stream, v.run, iters, start, end)
            t = out[v.name]
            t.wall_us.append(wall)
            t.device_us.append(dev)
            t.mismatches += v.check()
            if progress:
                progress(f"repeat {r + 1}/{repeats} {v.name}: {wall:.2f} us/iter")
    return out
