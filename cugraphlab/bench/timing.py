"""The one timer: a loop of iterations timed on the host wall clock and on the device clock at once, and the
interleaved-repeats harness every comparison in this package goes through.

``timed_loop``: the stream is drained first (outside the timed region); ``perf_counter_ns`` is read before the first
launch and after ``cuEventSynchronize`` on the end event returns (host wall clock, so it includes the host's launch
cost and waits for the GPU); CUDA events recorded on the stream just before and after the loop give the device time
(``cuEventElapsedTime``). Both are returned per iteration, in µs.

``timed_chunks``: the same loop cut into consecutive chunks (``chunk_sizes``), with one more CUDA event recorded and
``perf_counter_ns`` read at every boundary. The loop's totals are the ones ``timed_loop`` gives (the chunks' host
times add up to the loop's exactly, the first starting at the loop's start and the last ending when the end event's
sync returns); each chunk is also one sample of µs per iteration on both clocks, so one timed loop of 5,000
iterations gives 10 samples instead of 1 (what ``cugraphlab diff`` needs: 6 per side at least). A chunk's device
sample is exact (events on the stream). Its host time, from one boundary to the next, is the chunk's own cost only
where the host sets the pace: in a device-bound loop the host runs ahead while the driver's queue takes its launches
(a whole fused loop of 100 graph launches fits in it), so those chunks read as fast as the host enqueues and the
last one, which waits for the queue to drain, reads long. So the wall sample of a chunk (``paced``) is the longer
of its host time and its device time: the pace of the slower side, which is the host's in a host-bound loop (the
GPU waits for it) and the GPU's in a device-bound one; the median of a loop's chunks is then the loop's own figure
either way (the drained last chunk is one high sample). The boundaries add one cuEventRecord (about 2 µs of host
time, nothing measurable on the GPU) per chunk to the loop.

``interleave``: each repeat runs every variant in turn (so drift hits all alike), each on fresh random inputs with
poisoned outputs, after an optional untimed lead-in of the same variant (the GPU's clocks settle at that load), and
checks each variant's output after its timed loop. With ``chunks`` > 1 each timed loop is a ``timed_chunks`` loop
(where the variant's ``grain`` allows it); ``Timings.keep`` then keeps the chunk samples.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .records.record import CLOCKS
from .stats.summary import Summary, summarize

__all__ = ["WALL_CLOCK", "DEVICE_CLOCK", "CHUNKS", "timed_loop", "time_mode", "timed_chunks", "chunk_sizes", "paced", "Variant",
           "Timings", "interleave"]

WALL_CLOCK = CLOCKS["wall"]
DEVICE_CLOCK = CLOCKS["device"]

#: Chunks per timed loop where a command asks for chunk samples (run, memnodes, pdl): 10 samples per loop.
CHUNKS = 10


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


def time_mode(chain, mode: str, iters: int, start, end, unroll: int = 1) -> tuple[float, float]:
    """(wall µs, device µs) per iteration of one ``timed_loop`` of ``iters`` iterations of an
    ``experiment.Chain``'s ``mode`` (``unroll`` iterations per graph launch)."""
    return timed_loop(chain.stream, lambda k: chain.run(mode, k, unroll), iters, start, end)


def chunk_sizes(iters: int, chunks: int, grain: int | None = 1) -> list[int]:
    """``iters`` cut into ``chunks`` consecutive chunks of about equal size whose boundaries fall on multiples of
    ``grain`` (the fewest iterations the work is made of: a graph's unroll, the fused kernel's launches per graph),
    so that the chunks enqueue exactly the launches the whole loop would; the last chunk also takes the loop's own
    remainder. Fewer chunks where ``iters`` holds fewer grains; ``grain`` None (one call runs the whole loop
    whatever it is given, e.g. a loop decided on the device): one chunk."""
    if grain is None or chunks <= 1:
        return [iters]
    grain = max(1, int(grain))
    whole = iters // grain  # whole grains in the loop
    c = min(chunks, whole)
    if c <= 1:
        return [iters]
    bounds = [i * whole // c * grain for i in range(c)] + [iters]
    return [b - a for a, b in zip(bounds, bounds[1:])]


def timed_chunks(stream, run: Callable[[int], None], sizes: Sequence[int], events: Sequence) -> tuple[
        float, float, list[float], list[float]]:
    """One timed loop of ``sum(sizes)`` iterations in chunks: (wall µs, device µs) per iteration of the whole loop,
    then per chunk the host's µs per iteration between its boundaries and its device µs per iteration (two lists;
    ``paced`` makes wall samples of them). ``events``: ``len(sizes) + 1`` timing Events (the first and last are the
    loop's)."""
    if len(events) != len(sizes) + 1:
        raise ValueError(f"{len(sizes)} chunks need {len(sizes) + 1} events, got {len(events)}")
    stream.synchronize()
    perf = time.perf_counter_ns
    marks = [perf()]
    events[0].record(stream)
    last = len(sizes) - 1
    for i, k in enumerate(sizes):
        run(k)
        events[i + 1].record(stream)
        if i < last:
            marks.append(perf())
    events[-1].synchronize()
    marks.append(perf())
    iters = sum(sizes)
    wall = [(marks[i + 1] - marks[i]) / 1e3 / k for i, k in enumerate(sizes)]
    dev = [events[i].elapsed_us(events[i + 1]) / k for i, k in enumerate(sizes)]
    return (marks[-1] - marks[0]) / 1e3 / iters, events[0].elapsed_us(events[-1]) / iters, wall, dev


def paced(host_chunks: Sequence[float], device_chunks: Sequence[float]) -> list[float]:
    """The wall sample of each chunk: the longer of its host time and its device time (module docstring)."""
    return [max(h, d) for h, d in zip(host_chunks, device_chunks)]


@dataclass
class Variant:
    """One way of running a workload inside ``interleave``.

    ``run(iters)`` enqueues ``iters`` iterations on ``stream``; ``prepare()`` gives fresh inputs and poisoned outputs;
    ``check()`` returns the number of output elements that differ from NumPy after the run (0: bit-exact).
    ``grain``: the fewest iterations ``run`` can be called with (chunks are multiples of it); None when one call
    runs the whole loop whatever it is given (a device-side loop): its timed loops are never cut into chunks.
    """

    name: str
    stream: object
    run: Callable[[int], None]
    prepare: Callable[[], None]
    check: Callable[[], int]
    grain: int | None = 1


@dataclass
class Timings:
    """One variant's samples over the repeats, both clocks, and its mismatches summed over the repeats.

    ``wall_us``/``device_us``: one value per timed loop (the figures printed); ``wall_chunks``/``device_chunks``:
    one value per chunk of every loop, where the loops were cut into chunks (else empty); a chunk's wall value is
    ``paced``: the longer of its host and device times.
    """

    wall_us: list[float]
    device_us: list[float]
    mismatches: int = 0
    wall_chunks: list[float] = field(default_factory=list)
    device_chunks: list[float] = field(default_factory=list)
    chunk_iters: int | None = None

    def wall(self, clock: str = WALL_CLOCK) -> Summary:
        return summarize(self.wall_us, unit="us", clock=clock)

    def device(self, clock: str = DEVICE_CLOCK) -> Summary:
        return summarize(self.device_us, unit="us", clock=clock)

    @property
    def verified(self) -> bool:
        return self.mismatches == 0

    def keep(self, record, name: str) -> None:
        """Keep both clocks' raw samples in ``record`` (a bench.records.record.Record) as rows "NAME: wall" and ": device":
        the chunk samples where the loops were cut into chunks, else one sample per timed loop."""
        chunked = bool(self.device_chunks)
        record.keep_samples(f"{name}: wall", self.wall_chunks if chunked else self.wall_us, clock="wall")
        record.keep_samples(f"{name}: device", self.device_chunks if chunked else self.device_us, clock="device")


def interleave(variants: list[Variant], iters: int, repeats: int, start, end, *, lead_in: int = 0,
               progress: Callable[[str], None] | None = None, chunks: int = 1) -> dict[str, Timings]:
    """Time every variant ``repeats`` times, interleaved; returns name -> Timings (µs per iteration).

    ``start`` and ``end`` are timing Events of the device the variants run on; ``lead_in`` untimed iterations of
    the same variant run right before each timed loop; ``chunks`` > 1: each timed loop is cut into that many chunks
    (``chunk_sizes`` with the variant's grain; ``timed_chunks``), each one more sample.
    """
    out = {v.name: Timings([], []) for v in variants}
    plans = {v.name: chunk_sizes(iters, chunks, v.grain) for v in variants}
    most = max(len(p) for p in plans.values())
    inner = [start.device.create_event() for _ in range(most - 1)]
    try:
        for r in range(repeats):
            for v in variants:
                v.prepare()
                if lead_in:
                    v.run(lead_in)
                sizes = plans[v.name]
                t = out[v.name]
                if len(sizes) > 1:
                    events = [start, *inner[:len(sizes) - 1], end]
                    wall, dev, walls, devs = timed_chunks(v.stream, v.run, sizes, events)
                    t.wall_chunks += paced(walls, devs)
                    t.device_chunks += devs
                    t.chunk_iters = sizes[0]
                else:
                    wall, dev = timed_loop(v.stream, v.run, iters, start, end)
                t.wall_us.append(wall)
                t.device_us.append(dev)
                t.mismatches += v.check()
                if progress:
                    progress(f"repeat {r + 1}/{repeats} {v.name}: {wall:.2f} us/iter")
    finally:
        for e in inner:
            e.close()
    return out
