"""The rounds of ``measure``: every way timed in turn by the one timer until the medians are known well enough.

    calls = calibrate(first way)     # calls per sample: about 1 ms of the first way (10..1,000)
    round r: for way in round_order(ways, r):         # rotated, so every way takes every position
        wall, device = timed_loop(stream, way, calls)  # bench.timing: the package's one timed loop
        host = perf_counter_ns around the calls alone   # read inside that loop: the enqueue, not the wait
        held = K calls queued behind the hold kernel, CUDA events around them, / K     (``held``)
        cold = one call after an L2 flush, queued behind the hold, events around it     (``held``)
    after each round, outside the timed loops: the SM clock probe (bench.probes.sm_clock)
    stop: after min_samples rounds, when every way's wall median is known within target_spread ("spread"), at
          max_samples rounds ("max_samples"), or once time_budget_s has passed ("time_cap")

Five clocks per round and way, each per call in µs: ``host`` (what the calls cost the launching thread: when the
GPU is slower than the host, a full launch queue makes the host wait inside a call, and host approaches wall),
``wall`` (from before the first call until the end event's synchronize returns), ``device`` (CUDA events on the
stream around the same calls: the host's pace when a call is shorter than the host needs to make it), ``held``
(the GPU's own time per call, no host gap) and ``cold`` (one call's GPU time with a cold L2). The two last are
``held.GpuClocks``'s; a way that cannot be held (the work synchronises) has no held or cold sample, and a note.
The references (``way.REFERENCES``) get the three first clocks only.

Why a flush and not the rotation of ``experiment.cold_l2``: that rotation needs to own the inputs (K copies of the
chain's buffers); a user's work brings its own buffers, so the L2 is flushed before the one cold call instead
(what nvbench's cold mode does).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

from ...core.errors import InvalidArgumentError, positive_int
from ..stats.paired_stats import round_order, stop_reason
from ..stats.summary import median_ci_halfwidth
from ..timing import timed_loop

__all__ = ["Samples", "sample_ways", "SAMPLE_TARGET_US", "MAX_CALLS", "MIN_CALLS", "CLOCK_NAMES", "GPU_CLOCKS"]

CLOCK_NAMES = ("host", "wall", "device", "held", "cold")
GPU_CLOCKS = ("held", "cold")
SAMPLE_TARGET_US = 1000.0
MIN_CALLS, MAX_CALLS = 10, 1000
PROBE_CYCLES = 200_000  # about 0.1 ms of SM cycles: %globaltimer's steps (up to 1 µs) stay a ~1% error


@dataclass
class Samples:
    """Raw samples per way and clock (µs per call), the SM clock per round (MHz, None where unread), why the
    rounds stopped, the calls per sample, the rounds made and the seconds they took."""

    values: dict = field(default_factory=dict)  # way -> {"host": [...], "wall": [...], "device": [...], ...}
    notes: dict = field(default_factory=dict)  # way -> why it has no held or cold figure
    held_calls: dict = field(default_factory=dict)  # way -> K, the calls of its last held sample
    mhz: list = field(default_factory=list)
    stop_reason: str = "fixed"
    calls: int = 0
    rounds: int = 0
    seconds: float = 0.0
    rated_mhz: float | None = None
    sm_note: str = ""


def _host_timed(run: Callable[[int], None], box: list) -> Callable[[int], None]:
    perf = time.perf_counter_ns

    def timed(n: int) -> None:
        t0 = perf()
        run(n)
        box[0] = perf() - t0

    return timed


def _probe(device, stream, samples: Samples):
    """The SM clock probe on ``stream`` (None, with the reason kept, where it cannot be loaded)."""
    from ..probes.sm_clock import SmClockProbe, rated_clock_mhz

    samples.rated_mhz = rated_clock_mhz(device)
    try:
        kernels = device.load_kernels(names=["clockprobe"])
    except Exception as e:
        samples.sm_note = f"not read: {type(e).__name__}: {e}"
        return None, None
    return SmClockProbe(device, kernels, stream, cycles=PROBE_CYCLES), kernels


def _calibrate(way, stream, start, end) -> int:
    way.run(MIN_CALLS)  # warm: the first calls pay for lazy set-up
    wall, _ = timed_loop(stream, way.run, MIN_CALLS, start, end)
    if not (wall > 0 and math.isfinite(wall)):
        return MAX_CALLS
    return int(min(MAX_CALLS, max(MIN_CALLS, math.ceil(SAMPLE_TARGET_US / wall))))


def _gpu_samples(gpu, way, v: dict, out: Samples) -> None:
    """One held and one cold sample of ``way`` (``held.GpuClocks``); a refused one is left out, and a way that
    cannot be held at all gets its note."""
    out.held_calls[way.name] = gpu.calls(way)
    for clock, take in (("held", gpu.held), ("cold", gpu.cold)):
        us = take(way)
        if us is not None and math.isfinite(us):
            v[clock].append(us)
    note = gpu.note(way.name)
    if note:
        out.notes[way.name] = note


def sample_ways(ways: list, device, stream, *, calls: int | None = None, min_samples: int = 10,
                max_samples: int = 200, target_spread: float = 0.01, time_budget_s: float = 5.0,
                sm_clock: bool = True, gpu_clocks: bool = True,
                progress: Callable[[str], None] | None = None) -> Samples:
    """Time ``ways`` (``work.Way`` objects with a ``run``) in rotated rounds on ``stream`` (see the module
    docstring). ``calls``: per sample (default: calibrated). ``gpu_clocks``: take the held and cold samples too.
    Returns Samples."""
    from .way import REFERENCES

    max_samples = positive_int("max_samples", max_samples)
    min_samples = min(positive_int("min_samples", min_samples), max_samples)
    if calls is not None:
        calls = positive_int("calls", calls)
    if isinstance(target_spread, bool) or not isinstance(target_spread, (int, float)) or not target_spread >= 0:
        raise InvalidArgumentError(f"target_spread must be a fraction >= 0, got {target_spread!r}")
    if isinstance(time_budget_s, bool) or not isinstance(time_budget_s, (int, float)) or not time_budget_s > 0:
        raise InvalidArgumentError(f"time_budget_s must be a number of seconds > 0, got {time_budget_s!r}")
    if not ways:
        raise InvalidArgumentError("nothing to time: no way of this work can be measured here")
    out = Samples(values={w.name: {c: [] for c in (CLOCK_NAMES if w.name not in REFERENCES else CLOCK_NAMES[:3])}
                          for w in ways})
    start, end = device.create_event(), device.create_event()
    gpu = None
    if gpu_clocks and any(w.name not in REFERENCES for w in ways):
        from .held import GpuClocks

        try:
            gpu = GpuClocks(device, stream)
        except Exception:
            end.close()
            start.close()
            raise
    probe, kernels = _probe(device, stream, out) if sm_clock else (None, None)
    if not sm_clock:
        out.sm_note = "not read (sm_clock=False)"
    try:
        for w in ways:  # warm every way (and let a failing one fail before anything is timed)
            w.run(2)
        stream.synchronize()
        out.calls = calls or _calibrate(ways[0], stream, start, end)
        names = [w.name for w in ways]
        by_name = {w.name: w for w in ways}
        box = [0]
        timed = {w.name: _host_timed(w.run, box) for w in ways}
        t0 = time.perf_counter()
        while True:
            for name in round_order(names, out.rounds):
                wall, dev = timed_loop(stream, timed[name], out.calls, start, end)
                v = out.values[name]
                v["host"].append(box[0] / 1e3 / out.calls)
                v["wall"].append(wall)
                v["device"].append(dev)
                if gpu is not None and "held" in v:
                    _gpu_samples(gpu, by_name[name], v, out)
            out.rounds += 1
            if probe is not None:
                try:
                    out.mhz.append(probe.read())
                except Exception as e:
                    out.sm_note = f"not read: {type(e).__name__}: {e}"
                    probe = None
            noises = {n: median_ci_halfwidth(out.values[n]["wall"]) for n in names}
            reason = stop_reason(noises, target_spread, out.rounds, min_samples, max_samples,
                                 time.perf_counter() - t0, time_budget_s)
            if progress is not None:
                progress(f"round {out.rounds}: " + ", ".join(
                    f"{n} {out.values[n]['wall'][-1]:.2f} us" for n in names))
            if reason is not None:
                out.stop_reason = reason
                break
        out.seconds = time.perf_counter() - t0
    finally:
        for thing in (probe, kernels, gpu, start, end):
            if thing is not None:
                try:
                    thing.close()
                except Exception:
                    pass
    return out
