"""Paired measurement of launch cost: ways that share a context, interleaved, as ratios to the bare binding.

Why: on the H200 the host cost of one ``cuLaunchKernel`` moves between about 3.5 and 5.6 µs from one process, or
one fresh context, to the next (bimodal, in C too) and stays within a few percent inside one. Two ways measured in two
processes therefore differ by up to 40% for no reason of their own. Measured in the same context and stream,
interleaved, their RATIO repeats. So, for each of ``contexts`` fresh contexts (the primary context released and
retained again, or ``cuCtxCreate``d with scheduling flags):

    build the ways on one Rig (same cubin, function, buffers, stream); check each bit-exact once; warm each up
    round r = 0, 1, ...: the ways in rotated order (A B C, B C A, ...), and for each way:
        cuStreamSynchronize                     # drained: nothing of the previous way is left on the GPU
        perf_counter_ns; way.run(K); perf_counter_ns   -> µs per launch (the C loop times itself in C)
        clockprobe kernel                       # the SM clock beside the sample (bench.probes.sm_clock)
        spin kernel holds the stream; perf_counter_ns around H launches; release; drain
                                                # the held-device figure: the call, not the GPU pushing back
    after ``rounds`` rounds, stop when every way's noise in this context is within ``target`` ("spread"),
    else at ``max_rounds`` ("max_samples") or ``time_cap_s`` ("time_cap"), saying the noise left

then per way: µs per launch, the ratio to the reference in the same round, the held figure and its ratio, and the
difference to the C loop in the same round ("Python adds X µs"), each a median with a 95% interval from a
hierarchical bootstrap over contexts and rounds (``bench.stats.paired_stats``), seeded.

``run_paired`` is the harness over any rig and ways (tests drive it with fakes); ``measure_paired`` builds the real
ones. The record (``PairedResult``, kind ``cugraphlab.paired``) keeps every sample with its context, round, position
and SM clock, and the raw µs per way (``keep_samples``) for ``cugraphlab diff``.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, ClassVar, Iterable

from ...core.errors import CugraphlabError, InvalidArgumentError, positive_int
from ...core.renamed import renamed_kwargs
from ..probes.sm_clock import LOW_CLOCK_FRACTION, clock_low
from ..records.record import Record, clocks
from ..stats.paired_stats import Interval, hierarchical_bootstrap, paired, relative_noise, round_order, stop_reason

__all__ = ["PairedResult", "PairedRow", "Sample", "PairedRun", "run_paired", "sample_way", "summarize_run",
           "result_from_run", "measure_paired",
           "CONTEXT_KINDS", "C_WAY", "C_CLOCK"]

C_WAY = "c"
C_CLOCK = "clock_gettime(CLOCK_MONOTONIC) inside the C loop around K calls, divided by K (host)"
#: How fresh contexts are made: the primary context released and retained again, or cuCtxCreate with these flags.
CONTEXT_KINDS = ("primary", "created", "spin", "yield", "blocking_sync")


@dataclass
class Sample:
    """One timed block of one way: context, round, position in the round, µs per launch (long loop), µs per launch
    held (None when not measured or the hold timed out), SM MHz beside it and whether that was low."""

    context: int
    round: int
    slot: int
    way: str
    us: float
    held_us: float | None = None
    sm_mhz: float | None = None
    clock_low: bool = False

    def to_dict(self) -> dict:
        return {"context": self.context, "round": self.round, "slot": self.slot, "way": self.way, "us": self.us,
                "held_us": self.held_us, "sm_mhz": self.sm_mhz, "clock_low": self.clock_low}


@dataclass
class PairedRun:
    """What ``run_paired`` collected: samples, the ways seen (name -> (what, own, clock)), the ways skipped, the
    contexts (index, kind, fresh, rounds, stop, seconds) and per way per context the stop reason and noise left."""

    samples: list[Sample] = field(default_factory=list)
    ways: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    contexts: list[dict] = field(default_factory=list)
    stops: dict = field(default_factory=dict)  # way -> list of (reason, noise) per context
    rated_mhz: float | None = None
    held_timeouts: int = 0


def _noise_in_context(samples: list[Sample], way: str, reference: str, seed: int) -> float:
    """The noise left of one way in one context: of its per-round ratio to the reference (of its µs for the
    reference itself)."""
    mine = {s.round: s.us for s in samples if s.way == way}
    if way == reference:
        return relative_noise(list(mine.values()), seed=seed)
    ref = {s.round: s.us for s in samples if s.way == reference}
    return relative_noise(paired(mine, ref), seed=seed)


def run_paired(open_rig: Callable[[int], object], ways_for: Callable[[object], tuple[list, dict]], *,
               contexts: int = 3, rounds: int = 5, max_rounds: int | None = None, launches: int = 2000,
               held_launches: int = 512, warmup: int = 200, target: float = 0.01, time_cap_s: float = 30.0,
               reference: str = "bindings", seed: int = 0, progress: Callable[[str], None] | None = None,
               clock: Callable[[], int] = time.perf_counter_ns) -> PairedRun:
    """The paired harness (module docstring) over any rigs and ways.

    ``open_rig(c)`` makes context ``c``'s rig: ``drain()``, ``sm_clock_mhz()``, ``held()`` (a context manager
    yielding a dict that holds a ``report`` with ``released`` on exit), ``close()``, and attributes ``kind``,
    ``fresh``, ``rated_mhz``. ``ways_for(rig)`` returns (list of PairedWay, skipped name -> why); the reference must
    be among the ways. ``held_launches`` 0 skips the held figure. ``clock`` returns ns (tests pass a fake).
    """
    contexts = positive_int("contexts", contexts)
    rounds = positive_int("rounds", rounds)
    max_rounds = rounds * 4 if max_rounds is None else positive_int("max rounds", max_rounds)
    if max_rounds < rounds:
        raise InvalidArgumentError(f"max rounds ({max_rounds}) must be >= rounds ({rounds})")
    launches = positive_int("launches", launches)
    if isinstance(held_launches, bool) or not isinstance(held_launches, int) or not 0 <= held_launches <= 900:
        raise InvalidArgumentError(f"held launches must be 0..900 (below the driver's queue depth), got "
                                   f"{held_launches!r}")
    if not (isinstance(target, (int, float)) and 0 < target < 1):
        raise InvalidArgumentError(f"the noise target must be a fraction in (0, 1), e.g. 0.01, got {target!r}")
    if not (isinstance(time_cap_s, (int, float)) and time_cap_s > 0):
        raise InvalidArgumentError(f"the time cap must be a positive number of seconds, got {time_cap_s!r}")
    say = progress or (lambda _line: None)
    out = PairedRun()
    for c in range(contexts):
        rig = open_rig(c)
        try:
            t_open = clock()
            ways, skipped = ways_for(rig)
            for name, why in skipped.items():
                out.skipped.setdefault(name, why)
            names = [w.name for w in ways]
            if reference not in names:
                raise CugraphlabError(f"the reference way {reference!r} is not among the ways measured "
                                      f"({', '.join(names) or 'none'})")
            for w in ways:
                out.ways.setdefault(w.name, {"what": w.what, "own": w.own, "clock": w.clock})
            out.rated_mhz = out.rated_mhz or getattr(rig, "rated_mhz", None)
            for w in ways:  # warm up: first calls pay for lazy loading and caches
                if warmup:
                    w.run(warmup)
                rig.drain()
            mine: list[Sample] = []
            t_start = clock()
            r = 0
            while True:
                for slot, w in enumerate(round_order(ways, r)):
                    mine.append(sample_way(rig, w, c, r, slot, launches, held_launches, out, clock))
                r += 1
                noises = {w.name: _noise_in_context(mine, w.name, reference, seed) for w in ways}
                why = stop_reason(noises, target, r, rounds, max_rounds, (clock() - t_start) / 1e9, time_cap_s)
                if why is not None:
                    break
            for w in ways:
                n = noises[w.name]
                out.stops.setdefault(w.name, []).append(("spread" if n <= target else why, n))
            out.samples.extend(mine)
            out.contexts.append({"index": c, "kind": getattr(rig, "kind", "?"), "fresh": getattr(rig, "fresh", None),
                                 "rounds": r, "stop": why, "seconds": round((clock() - t_open) / 1e9, 3),
                                 "ways": names})
            say(f"context {c + 1}/{contexts}: {r} rounds, stop {why}, " + ", ".join(
                f"{w.name} {_median([s.us for s in mine if s.way == w.name]):.3f}" for w in ways) + " us/launch")
        finally:
            rig.close()
    return out


def _median(v: list[float]) -> float:
    v = sorted(x for x in v if x is not None)
    if not v:
        return math.nan
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def _timed(run, n: int, clock) -> float:
    """ns of ``run(n)``: its own figure when it measures itself (the C loop), else the clock around it."""
    t0 = clock()
    ns = run(n)
    t1 = clock()
    return float(ns if ns is not None else t1 - t0)


def sample_way(rig, way, c: int, r: int, slot: int, launches: int, held_launches: int,
               out: PairedRun | None = None, clock: Callable[[], int] = time.perf_counter_ns) -> Sample:
    """One timed block of ``way`` on ``rig`` (drained first): µs per launch over ``launches``, the SM clock beside
    it, and, with ``held_launches``, µs per launch of that many launches queued while the spin kernel holds the
    stream (None if the hold ended by its timeout; counted in ``out.held_timeouts``)."""
    rig.drain()
    us = _timed(way.run, launches, clock) / 1e3 / launches
    mhz = rig.sm_clock_mhz()
    held_us = None
    if held_launches:
        with rig.held() as hold:
            ns = _timed(way.run, held_launches, clock)
        if hold["report"].released:
            held_us = ns / 1e3 / held_launches
        elif out is not None:
            out.held_timeouts += 1
    return Sample(c, r, slot, way.name, us, held_us, mhz, clock_low(mhz, getattr(rig, "rated_mhz", None)))


# --- the summary --------------------------------------------------------------------------------------------------
@dataclass
class PairedRow:
    """One way's figures: µs per launch, ratio to the reference, held µs and its ratio, difference to the C loop
    (long loop and held), each an Interval (None where not measured), how it stopped and what was flagged."""

    name: str
    what: str
    own: bool
    clock: str
    us: Interval | None
    ratio: Interval | None
    held_us: Interval | None = None
    held_ratio: Interval | None = None
    vs_c_us: Interval | None = None
    held_vs_c_us: Interval | None = None
    stop: str = "fixed"
    noise: float = math.inf
    clock_low: int = 0
    samples: int = 0
    per_context_us: list = field(default_factory=list)

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("name", "what", "own", "clock", "stop", "clock_low", "samples")}
        d["noise"] = self.noise if math.isfinite(self.noise) else None
        for k in ("us", "ratio", "held_us", "held_ratio", "vs_c_us", "held_vs_c_us"):
            v = getattr(self, k)
            d[k] = v.to_dict() if v is not None else None
        d["per_context_us"] = list(self.per_context_us)
        return d


def _by_context(samples: Iterable[Sample], way: str, key: str) -> dict[int, dict[int, float]]:
    out: dict[int, dict[int, float]] = {}
    for s in samples:
        if s.way == way:
            v = getattr(s, key)
            if v is not None:
                out.setdefault(s.context, {})[s.round] = v
    return out


def _pair_groups(a: dict, b: dict, op: str) -> list[list[float]]:
    return [paired(a[c], b.get(c, {}), op) for c in sorted(a)]


def summarize_run(run: PairedRun, reference: str = "bindings", seed: int = 0, target: float = 0.01
                  ) -> list[PairedRow]:
    """One PairedRow per way measured, the reference first."""
    rows = []
    names = [reference] + [n for n in run.ways if n != reference]
    for i, name in enumerate(n for n in names if n in run.ways):
        meta = run.ways[name]
        s = seed + 1000 * i
        us, ref = _by_context(run.samples, name, "us"), _by_context(run.samples, reference, "us")
        held, ref_held = _by_context(run.samples, name, "held_us"), _by_context(run.samples, reference, "held_us")
        c_us, c_held = _by_context(run.samples, C_WAY, "us"), _by_context(run.samples, C_WAY, "held_us")
        boot = lambda groups, k: hierarchical_bootstrap(groups, seed=s + k)  # noqa: E731
        has_c = C_WAY in run.ways
        stops = run.stops.get(name, [])
        reasons = [r for r, _ in stops]
        stop = "spread" if reasons and all(r == "spread" for r in reasons) else next(
            (r for r in reasons if r != "spread"), "fixed")
        mine = [x for x in run.samples if x.way == name]
        rows.append(PairedRow(
            name=name, what=meta["what"], own=meta["own"], clock=meta["clock"],
            us=boot([list(v.values()) for _, v in sorted(us.items())], 1),
            ratio=boot(_pair_groups(us, ref, "ratio"), 2),
            held_us=boot([list(v.values()) for _, v in sorted(held.items())], 3),
            held_ratio=boot(_pair_groups(held, ref_held, "ratio"), 4),
            vs_c_us=boot(_pair_groups(us, c_us, "difference"), 5) if has_c and name != C_WAY else None,
            held_vs_c_us=boot(_pair_groups(held, c_held, "difference"), 6) if has_c and name != C_WAY else None,
            stop=stop, noise=max((n for _, n in stops), default=math.inf),
            clock_low=sum(1 for x in mine if x.clock_low), samples=len(mine),
            per_context_us=[_median(list(v.values())) for _, v in sorted(us.items())]))
    return rows


@dataclass(kw_only=True)
class PairedResult(Record):
    """The record of a paired measurement (``cugraphlab.paired``): per way its PairedRow, the ways skipped and why,
    the contexts, every sample (``rows``) and the raw µs per way in ``samples``."""

    KIND: ClassVar[str] = "cugraphlab.paired"
    SCHEMA: ClassVar[int] = 1

    reference: str = "bindings"
    ways: list[PairedRow] = field(default_factory=list)
    skipped: dict = field(default_factory=dict)
    contexts: list[dict] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    rated_clock_mhz: float | None = None
    held_timeouts: int = 0

    def way(self, name: str) -> PairedRow:
        for w in self.ways:
            if w.name == name:
                return w
        raise KeyError(f"no way {name!r} in this record; measured: {', '.join(w.name for w in self.ways)}")

    @property
    def names(self) -> list[str]:
        return [w.name for w in self.ways]

    def _extra_dict(self) -> dict:
        c = next((w for w in self.ways if w.name == C_WAY), None)
        ref = next((w for w in self.ways if w.name == self.reference), None)
        adds = ref.vs_c_us.to_dict() if ref is not None and ref.vs_c_us is not None else None
        return {"c_floor_us": c.us.to_dict() if c is not None and c.us is not None else None,
                "python_adds_us": adds}


def result_from_run(run: PairedRun, config: dict, env: dict, reference: str = "bindings", seed: int = 0,
                    target: float = 0.01) -> PairedResult:
    """The PairedResult of a PairedRun: rows summarised, samples kept (per way its µs and held µs)."""
    rows = summarize_run(run, reference, seed, target)
    names = {"host_call", "sm_clock", "globaltimer"}
    rec = PairedResult(config=config, env=env, clocks={**clocks(*sorted(names)), "c_monotonic": C_CLOCK},
                       reference=reference, ways=rows, skipped=dict(run.skipped), contexts=list(run.contexts),
                       rows=[s.to_dict() for s in run.samples], rated_clock_mhz=run.rated_mhz,
                       held_timeouts=run.held_timeouts)
    for row in rows:
        mine = [s for s in run.samples if s.way == row.name]
        clock = "c_monotonic" if row.clock == "c_monotonic" else "host_call"
        rec.keep_samples(f"{row.name} us/launch", [s.us for s in mine], "us", clock)
        held = [s.held_us for s in mine if s.held_us is not None]
        if held:
            rec.keep_samples(f"{row.name} held us/launch", held, "us", clock)
    return rec


# --- the real thing -----------------------------------------------------------------------------------------------
def _context_opener(device_index: int, kind: str, *, size: int, seed: int, release: str, mode: str,
                    graph_kernels: int):
    from ...core.context import CreatedContext, primary_context_active
    from ...core.device import Device
    from .ways import Rig

    def open_rig(c: int):
        if kind == "primary":
            fresh = not primary_context_active(device_index)  # someone else (CuPy's runtime) may keep it alive
            device = Device(device_index)
        else:
            fresh = True
            device = CreatedContext(device_index, "auto" if kind == "created" else kind)
        try:
            return Rig(device, size=size, seed=seed, release=release, mode=mode, graph_kernels=graph_kernels,
                       kind=kind, fresh=fresh, index=c)
        except BaseException:
            device.close()
            raise

    return open_rig


@renamed_kwargs(device_index="device")
def measure_paired(device: int = 0, size: int = 1024, contexts: int = 3, rounds: int = 5,
                   launches: int = 2000, ways=None, progress: Callable[[str], None] | None = None, *,
                   context_kind: str = "primary", max_rounds: int | None = None, held_launches: int = 512,
                   warmup: int = 200, target: float = 0.01, time_cap_s: float = 30.0, release: str = "mapped",
                   mode: str = "launch", graph_kernels: int = 4, seed: int = 0) -> PairedResult:
    """Measure launch ways paired (module docstring): in one context and stream, interleaved, as ratios to the
    bare binding, over fresh contexts, each figure a median with a 95% hierarchical bootstrap interval.

    Parameters
    ----------
    device : int
        The device ordinal (``device_index=`` before; still accepted, with a DeprecationWarning).
    size : int
        Floats of ``add`` (out = x + y) per launch.
    contexts : int
        Fresh contexts, one after another.
    rounds : int
        Interleaved rounds per context at least.
    launches : int
        Launches per timed block.
    ways : sequence of str or None
        Names from ``bench.paired.ways.WAYS`` (``GRAPH_WAYS`` in graph mode); None: all; the reference always.
    progress : callable or None
        ``progress(line)``, called with one line as the measurement goes.
    context_kind : str
        "primary" (cuDevicePrimaryCtxRelease/Retain), "created" (cuCtxCreate with SCHED_AUTO), or "spin",
        "yield", "blocking_sync" (cuCtxCreate with that CU_CTX_SCHED_* flag).
    max_rounds : int or None
        Rounds per context at most (default 4 x ``rounds``).
    held_launches : int
        Launches per held block (0: none; at most 900, below the driver's queue).
    warmup : int
        Untimed launches of each way first.
    target : float
        The noise at which a context stops (0.01: ±1%).
    time_cap_s : float
        Seconds per context at most.
    release : str
        How the spin kernel is released: "mapped" or "memset" (``bench.probes.hold``).
    mode : str
        "launch" (a launch per call) or "graph" (cuGraphLaunch of ``graph_kernels`` captured launches).
    graph_kernels : int
        Launches captured per graph in the graph mode.
    seed : int
        Seed of the inputs and the bootstrap.

    Returns
    -------
    PairedResult
        Per way its row (µs per launch, ratio to the reference, held figure, Python over C), the ways skipped and
        why, the contexts, every sample and the raw µs per way.

    Raises
    ------
    InvalidArgumentError
        Before touching the GPU: an unknown context kind, mode, release or way, a device that is not an ordinal,
        a bad size or count, or ``device_index=`` and ``device=`` together.
    CudaError
        A failing call of this project's own ways.
    """
    from .ways import REFERENCE, build_ways

    names, size, graph_kernels = _checked(device, size, ways, context_kind, mode, release, graph_kernels)
    env_box: dict = {}
    opener = _context_opener(device, context_kind, size=size, seed=seed, release=release, mode=mode,
                             graph_kernels=graph_kernels)
    run = run_paired(_noting_env(opener, env_box), lambda rig: build_ways(rig, names), contexts=contexts,
                     rounds=rounds, max_rounds=max_rounds, launches=launches, held_launches=held_launches,
                     warmup=warmup, target=target, time_cap_s=time_cap_s, reference=REFERENCE, seed=seed,
                     progress=progress)
    config = {"device": device, "size": size, "kernel": "add", "mode": mode, "contexts": contexts,
              "context_kind": context_kind, "rounds": rounds, "max_rounds": max_rounds or rounds * 4,
              "launches": launches, "held_launches": held_launches, "warmup": warmup, "target": target,
              "time_cap_s": time_cap_s, "release": release, "seed": seed, "ways": names,
              "graph_kernels": graph_kernels if mode == "graph" else None,
              "low_clock_fraction": LOW_CLOCK_FRACTION,
              "order": "round-robin, rotated by one each round", "interval": "95% hierarchical bootstrap "
              "(contexts, then rounds within each), 2000 resamples, seeded",
              "l2": "warm (the same 3 x size floats every launch)"}
    return result_from_run(run, config, env_box, REFERENCE, seed, target)


def _checked(device, size, ways, context_kind: str, mode: str, release: str,
             graph_kernels) -> tuple[list[str], int, int]:
    """``measure_paired``'s checks before touching the GPU: (the ways' names, the size, the graph kernels)."""
    from ...core.memory import validate_size
    from ..probes.hold import RELEASES
    from .ways import MODES, validate_ways

    if context_kind not in CONTEXT_KINDS:
        raise InvalidArgumentError(f"context kind must be one of {', '.join(CONTEXT_KINDS)}, got {context_kind!r}")
    if mode not in MODES:
        raise InvalidArgumentError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if release not in RELEASES:
        raise InvalidArgumentError(f"release must be one of {', '.join(RELEASES)}, got {release!r}")
    if isinstance(device, bool) or not isinstance(device, int) or device < 0:
        raise InvalidArgumentError(f"device must be an integer >= 0 (an ordinal), got {device!r}")
    size = validate_size(size)
    names = validate_ways(ways, mode)
    return names, size, positive_int("graph kernels", graph_kernels)


def _noting_env(opener, env_box: dict):
    """``opener`` that also notes the environment of the first rig it opens in ``env_box``."""
    from ..records.environment import collect

    def open_rig(c: int):
        rig = opener(c)
        if not env_box:
            try:
                env_box.update(collect(rig.device))
            except BaseException:
                rig.close()
                raise
        return rig

    return open_rig
