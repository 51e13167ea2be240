"""Sizes x chain lengths x modes: where launch cost stops mattering, and how close each mode gets to the memory roof.

For each size and chain length (the four ops repeated), each mode runs a timed loop (device clock: CUDA events around
it; wall clock beside it) sized to take about ``target_ms``, a few repeats, median and p5/p95. Long chains at large
sizes reuse two buffers in turn (ping-pong) so memory stays bounded. Achieved bandwidth counts the bytes each kernel
must move (binary ops read two arrays and write one, unary ops read one and write one); the roof is a measured
device-to-device copy (bytes read + written).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...core.device import opened
from ...core.errors import InvalidArgumentError
from ...core.renamed import renamed_function
from ...experiment.chain import Chain
from ...experiment.ops import DEFAULT_OPS, FUSED_PER_GRAPH, OPS
from ..probes.copy_roof import copy_bandwidth
from ..records.environment import collect
from ..records.record import Record, clocks
from ..stats.summary import summarize
from ..timing import DEVICE_CLOCK, chunk_sizes, time_mode, timed_chunks

__all__ = ["SweepResult", "measure_sweep", "run_sweep", "chain_ops", "bytes_per_iteration", "copy_bandwidth_gbps",
           "DEFAULT_SIZES", "DEFAULT_LENGTHS", "SWEEP_MODES"]

DEFAULT_SIZES = tuple(2 ** e for e in range(10, 27, 2))  # 2^10 .. 2^26
DEFAULT_LENGTHS = (1, 4, 16, 64, 256)
SWEEP_MODES = ("eager", "graph", "graph x10", "fused")
VERIFY_LIMIT = 1 << 24  # elements x kernels checked against NumPy per point; beyond, the point says "not checked"
#: Each timed loop is also cut into this many chunks (``timing.timed_chunks``): the record keeps one device sample
#: per chunk, 12 per point at the default 3 repeats (``cugraphlab diff`` needs 6 a side); the figures are the loops'.
SWEEP_CHUNKS = 4


def chain_ops(length: int) -> tuple[str, ...]:
    """The classic four ops repeated to ``length`` kernels."""
    return tuple(DEFAULT_OPS[i % len(DEFAULT_OPS)] for i in range(length))


def bytes_per_iteration(ops, n: int, mode: str) -> int:
    """Bytes one iteration must move through memory: 12n for a binary op or the fused kernel, 8n for a unary op."""
    if mode == "fused":
        return 12 * n
    return sum((12 if OPS[o].reads_y else 8) * n for o in ops)


def copy_bandwidth_gbps(device) -> float:
    """Median device-to-device copy bandwidth, GB/s counting bytes read plus written (baselines.copy_bandwidth)."""
    return copy_bandwidth(device).gbps.median


@dataclass(kw_only=True)
class SweepResult(Record):
    KIND: ClassVar[str] = "cugraphlab.sweep"

    rows: list[dict]
    copy_gbps: float


def _iters_for(estimate_us: float, target_ms: float, unroll: int) -> int:
    it = max(unroll, int(target_ms * 1e3 / max(estimate_us, 0.5)))
    return max(unroll, it // unroll * unroll)


def measure_sweep(device, *, sizes=DEFAULT_SIZES, lengths=DEFAULT_LENGTHS, modes=SWEEP_MODES, repeats: int = 3,
                  target_ms: float = 10.0, progress=None) -> SweepResult:
    """Sizes x chain lengths x modes on ``device`` (what ``cugraphlab measure sweep`` does): where launch cost stops
    mattering, and how close each mode gets to the memory roof.

    Each point (size, chain length, mode) is warmed up, then timed ``repeats`` times by a loop sized to take about
    ``target_ms`` (device clock: CUDA events around it; the wall clock beside it), each loop cut into
    ``SWEEP_CHUNKS`` chunks whose samples the record keeps. A point of at most ``VERIFY_LIMIT`` elements x kernels
    is checked against NumPy after every repeat (poisoned outputs before it); a larger one says "not checked".

    Parameters
    ----------
    device : Device or int
        A Device (borrowed) or an ordinal (opened and closed here).
    sizes : iterable of int
        Floats per buffer (duplicates dropped, sorted).
    lengths : iterable of int
        Chain lengths, in kernels per iteration (the four classic ops repeated, ``chain_ops``).
    modes : iterable of str
        Modes from ``SWEEP_MODES`` ("eager", "graph", "graph x10", "fused").
    repeats : int
        Timed loops per point.
    target_ms : float
        About how long each timed loop takes (its iteration count is sized from a first timing).
    progress : callable or None
        ``progress(done, total, label)``, called after each point.

    Returns
    -------
    SweepResult
        One row per point (device µs per iteration with p5/p95, wall µs, µs per kernel, bytes moved and GB/s,
        verified), the copy roof in GB/s (``copy_gbps``), the kept samples and the environment.

    Raises
    ------
    InvalidArgumentError
        An unknown mode, or empty sizes or lengths, or one below 1: before any GPU work.
    CompileError
        A fused kernel for a chain length did not compile (NVRTC).
    CudaError
        A driver call failed.
    """
    sizes, lengths = _checked(modes, sizes, lengths)
    with opened(device) as device:
        copy_gbps = copy_bandwidth_gbps(device)
        rows: list[dict] = []
        total = len(sizes) * len(lengths) * len(modes)
        samples: dict[str, list[float]] = {}
        rng = np.random.default_rng()
        events = [device.create_event() for _ in range(SWEEP_CHUNKS + 1)]
        try:
            with device.load_kernels() as kernels:
                for n in sizes:
                    x = rng.standard_normal(n, dtype=np.float32)
                    y = rng.standard_normal(n, dtype=np.float32)
                    for length in lengths:
                        ops = chain_ops(length)
                        # a fused kernel for this op sequence is compiled once per length (cached on disk after)
                        with Chain(device, ops, n, kernels=kernels if ops == DEFAULT_OPS else None, inputs=(x, y),
                                   pingpong=length > 4) as chain:
                            for mode in modes:
                                row, chunked = _sweep_point(chain, mode, ops, n, events, repeats, target_ms)
                                rows.append(row)
                                samples[f"{mode} n={n} len={length}"] = chunked
                                if progress:
                                    progress(len(rows), total, f"{mode} n={n} len={length}: "
                                                               f"{row['us_per_iter']:.2f} us/iter")
        finally:
            for e in events:
                e.close()
        config = {"sizes": sizes, "lengths": lengths, "modes": list(modes), "repeats": repeats,
                  "target_ms": target_ms, "verify_limit": VERIFY_LIMIT,
                  "bytes_rule": "binary op 12n, unary op 8n, fused 12n bytes per iteration"}
        result = SweepResult(config=config, rows=rows, copy_gbps=copy_gbps, env=collect(device),
                             clocks=clocks("device", "copy"))
        for label, values in samples.items():
            result.keep_samples(label, values, clock="device")
        return result


def _checked(modes, sizes, lengths) -> tuple[list[int], list[int]]:
    """The sweep's sizes and lengths, sorted without duplicates, after checking them and the modes."""
    for m in modes:
        if m not in SWEEP_MODES:
            raise InvalidArgumentError(f"unknown sweep mode {m!r}; modes: {', '.join(SWEEP_MODES)}")
    sizes, lengths = sorted(set(sizes)), sorted(set(lengths))
    if not sizes or not lengths or min(sizes) < 1 or min(lengths) < 1:
        raise InvalidArgumentError("sizes and chain lengths must be non-empty and >= 1")
    return sizes, lengths


def _sweep_point(chain: Chain, mode: str, ops, n: int, events, repeats: int,
                 target_ms: float) -> tuple[dict, list[float]]:
    """One point of the sweep: ``mode`` of ``chain`` warmed up, sized to ``target_ms``, timed ``repeats`` times
    (verified when small enough). Returns its row and its chunks' device samples."""
    e0, e1 = events[0], events[-1]
    length = len(ops)
    check = n * length <= VERIFY_LIMIT
    base, unroll = ("graph", 10) if mode == "graph x10" else (mode, 1)
    chain.run(base, unroll, unroll)  # warm-up: instantiate, upload, first launch
    w, d = time_mode(chain, base, unroll, e0, e1, unroll)
    iters = _iters_for(d, target_ms, unroll)
    walls, devs, ok = [], [], None
    chunked: list[float] = []
    parts = chunk_sizes(iters, SWEEP_CHUNKS, FUSED_PER_GRAPH if base == "fused" else unroll)
    loop_events = [e0, *events[1:len(parts)], e1]
    for _ in range(repeats):
        if check:
            chain.poison()
        w, d, _walls, chunk_devs = timed_chunks(
            chain.stream, lambda k, b=base, u=unroll: chain.run(b, k, u), parts, loop_events)
        walls.append(w)
        devs.append(d)
        chunked += chunk_devs
        if check:
            ok = (ok is not False) and chain.check_result(base).ok
    ds = summarize(devs, unit="us", clock=DEVICE_CLOCK)
    nbytes = bytes_per_iteration(ops, n, base)
    kernels_per_iter = 1 if base == "fused" else length
    row = {
        "mode": mode, "size": n, "chain_len": length, "iters": iters,
        "us_per_iter": ds.median, "p5": ds.p5, "p95": ds.p95,
        "wall_us_per_iter": float(np.median(walls)),
        "us_per_kernel": ds.median / kernels_per_iter,
        "bytes_per_iter": nbytes, "gbps": nbytes / (ds.median * 1e-6) / 1e9,
        "verified": ok, "clock": "device",
    }
    return row, chunked

#: the old name of measure_sweep (warns, then calls it): core.renamed.renamed_function
run_sweep = renamed_function("run_sweep", measure_sweep)
