"""Where the time of a launch goes: host cost per API call, split into Python, binding and driver, next to what the
device sees (gaps between kernels) and what a whole iteration costs.

Host figures: ``perf_counter_ns`` around a loop of K calls, divided by K, one sample per loop; samples repeat until the
median's ~95% confidence interval is within 1% or the time cap is hit (each row says which); the stream is
synchronized between samples, outside the timed region. Device gaps come from the stamped timeline (%globaltimer).

The native rows (``bench.measure.latency_native``): the same empty-kernel launch and the same chain graph called from a C
loop (``bench.native``, timed in C), and per launch path the paired difference "Python adds Y µs" (Python's block
and C's block back to back in one sample); and the same launch as ``Launch.native().fire()`` (``core.native_launch``),
alone and paired with the C loop. Without a C compiler these rows carry the reason instead of a figure.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from ...core._calls import cu, driver_fn
from ...core.errors import check
from ...core.launch import LaunchConfig
from ...core.memory import validate_size
from ...core.renamed import renamed_kwargs
from ...experiment.chain import Chain
from ...experiment.ops import DEFAULT_OPS, parse_ops
from ..records.environment import collect
from ..records.record import CLOCKS, Record, clocks
from ..stats.summary import Summary, sample_adaptively, summarize
from ..timing import DEVICE_CLOCK, time_mode
from .latency_native import (
    C_ROWS,
    NATIVE_ROWS,
    PAIRED_ROWS,
    c_per_call,
    native_summary,
    open_native_floor,
    open_native_launch,
    paired_excess,
)
from .timeline import measure_timeline

_CLOCK_KEYS = {v: k for k, v in CLOCKS.items()}

__all__ = ["LatencyRow", "LatencyResult", "measure_latency", "HOST_CLOCK"]

HOST_CLOCK = CLOCKS["host_call"]


@dataclass
class LatencyRow:
    """One row: ``us`` the summary (None when the row could not be measured: ``note`` says why)."""

    key: str
    what: str
    us: Summary | None
    note: str = ""


@dataclass(kw_only=True)
class LatencyResult(Record):
    KIND: ClassVar[str] = "cugraphlab.latency"

    rows: list[LatencyRow]
    decomposition: dict  # launch host cost split: python, binding, driver (µs)

    def row(self, key: str) -> LatencyRow:
        return next(r for r in self.rows if r.key == key)


def _per_call(fn, k: int, after=None):
    """A sample function: µs per call of ``fn`` over a loop of ``k`` calls; ``after`` runs untimed afterwards."""
    perf = time.perf_counter_ns

    def sample() -> float:
        t0 = perf()
        for _ in range(k):
            fn()
        t = (perf() - t0) / 1e3 / k
        if after is not None:
            after()
        return t

    return sample


def _native_rows(add, rows: list, native_factory, empty, exe, stream, k: int, sync) -> None:
    """The native floor: the same launch and graph from C, same context, function and stream, and what Python adds
    (paired); each row is left with its note where the C loops or the native launch cannot be built."""
    floor, why = open_native_floor(native_factory)
    if floor is None:
        for key, what in {**C_ROWS, **NATIVE_ROWS}.items():
            rows.append(LatencyRow(key, what, None, note=why))
        return
    c_empty = floor.launch_loop(empty)
    add("c_launch_empty", C_ROWS["c_launch_empty"], c_per_call(c_empty, k, sync))
    add("py_adds_launch", PAIRED_ROWS["py_adds_launch"], paired_excess(empty, c_empty, k, sync))
    native, native_why = open_native_launch(empty, floor)  # same entry point as the C loop
    if native is None:
        for key, what in NATIVE_ROWS.items():
            rows.append(LatencyRow(key, what, None, note=native_why))
    else:
        with native:
            add("native_launch_empty", NATIVE_ROWS["native_launch_empty"], _per_call(native.fire, k, sync))
            add("native_adds_launch", NATIVE_ROWS["native_adds_launch"],
                paired_excess(native.fire, c_empty, k, sync))
    c_graph = floor.graph_loop(exe, stream)
    add("c_graph_launch", C_ROWS["c_graph_launch"], c_per_call(c_graph, 50, stream.synchronize))
    add("py_adds_graph", PAIRED_ROWS["py_adds_graph"],
        paired_excess(lambda: exe.launch(stream), c_graph, 50, stream.synchronize))


def _lifecycle_rows(add, small, exe, nodes: int) -> None:
    """Graph lifecycle: cuGraphInstantiate of the small chain's graph, and cuGraphExecUpdate of ``exe`` from it."""
    graph = small.capture()
    try:
        def instantiate_once() -> float:
            t0 = time.perf_counter_ns()
            h = cu("cuGraphInstantiate", graph.handle, 0)
            t = (time.perf_counter_ns() - t0) / 1e3
            cu("cuGraphExecDestroy", h)
            return t

        add("instantiate", f"cuGraphInstantiate, {nodes}-node chain graph", instantiate_once,
            max_samples=200)
        update = driver_fn("cuGraphExecUpdate")

        def update_once():
            r = update(exe.handle, graph.handle)
            if r[0]:
                check(r, "cuGraphExecUpdate")

        add("exec_update", "cuGraphExecUpdate, same topology", _per_call(update_once, 50))
    finally:
        graph.close()


def _device_rows(rows: list, device, chain, ops, n: int, timeline_iters: int) -> None:
    """End to end per kernel (device clock, events) and the device gaps between kernels (globaltimer)."""
    with device.create_event() as e0, device.create_event() as e1:
        for mode in ("eager", "graph"):
            chain.run(mode, 200)
            samples = [time_mode(chain, mode, 1000, e0, e1)[1] / len(ops) for _ in range(5)]
            s = summarize(samples, unit="us", clock=DEVICE_CLOCK)
            rows.append(LatencyRow(f"e2e_{mode}", f"end to end per kernel, {mode} ({n:,} floats)", s))
    tl = measure_timeline(device, ops=ops, size=n, iters=timeline_iters)
    for m in tl.modes:
        rows.append(LatencyRow(f"gap_{m.mode}", f"device gap between chain kernels, {m.mode}", m.gap_us))
    tl = measure_timeline(device, ops=ops, size=n, iters=timeline_iters, probe=True)
    for m in tl.modes:
        rows.append(LatencyRow(f"probe_gap_{m.mode}", f"device gap between empty kernels, {m.mode}", m.gap_us))


def _decomposition(rows: list) -> dict:
    """One empty launch's host cost taken apart (Python, the binding, the driver), and the native floor's summary."""
    r = {row.key: row.us.median for row in rows if row.us is not None}
    return {
        "python_us": r["python_loop"],
        "binding_us": max(r["binding_call"] - r["python_loop"], 0.0),
        "driver_us": max(r["launch_empty"] - r["binding_call"], 0.0),
        "total_us": r["launch_empty"],
        "note": ("host cost of one empty-kernel cuLaunchKernel = Python loop + the binding's own overhead (a trivial "
                 "binding call minus the loop) + the driver (the launch minus a trivial binding call)"),
        **native_summary(r),
        "native_note": next((row.note for row in rows if row.key in C_ROWS and row.note), ""),
    }


@renamed_kwargs(n="size")
def measure_latency(device, *, size: int = 1 << 20, ops=DEFAULT_OPS, time_cap_s: float = 1.0,
                    timeline_iters: int = 50, progress=None, native_factory=None) -> LatencyResult:
    """Measure every row of ``cugraphlab latency`` on ``device``: host time per API call (launch, graph launch,
    instantiate, update), the Python / binding / driver split, end-to-end time per kernel, device gaps.

    Parameters
    ----------
    device : Device
        The device (its context current).
    size : int
        Floats per buffer of the chain (``n=`` before, still accepted with a warning).
    ops : sequence of str
        The chain's ops (default add, mul, sub, relu).
    time_cap_s : float
        The adaptive sampler's time cap per row.
    timeline_iters : int
        Iterations of the stamped timeline that gives the device gaps.
    progress : callable, optional
        Called with a line per row measured.
    native_factory : callable, optional
        Replaces the builder of the C loops (``bench.native.loops.native_floor``; a test passes one that raises
        UnsupportedError).

    Returns
    -------
    LatencyResult
        The rows (each a Summary with its clock) and the split.

    Raises
    ------
    InvalidArgumentError
        A bad size or op, before any GPU work.
    CudaError
        A driver call failed.
    """
    ops = parse_ops(ops)
    n = validate_size(size)
    rows: list[LatencyRow] = []

    def add(key: str, what: str, sample, clock: str = HOST_CLOCK, **kw) -> Summary:
        s = sample_adaptively(sample, clock=clock, time_cap_s=time_cap_s, max_samples=kw.pop("max_samples", 400), **kw)
        rows.append(LatencyRow(key, what, s))
        if progress:
            progress(f"{what}: {s.median:.3f} us")
        return s

    with Chain(device, ops, n) as chain, Chain(device, ops, 1024, kernels=chain.kernels) as small, \
            device.load_kernels(names=["empty"]) as probe:
        sync = chain.stream.synchronize
        k = 200
        # --- Python and the binding, no GPU work -----------------------------------------------------------------
        add("python_loop", "Python loop iteration (for _ in range: pass)", _per_call(lambda: None, 2000))
        ctx_get = driver_fn("cuCtxGetCurrent")
        add("binding_call", "trivial binding call (cuCtxGetCurrent)", _per_call(ctx_get, 2000))
        # --- launches --------------------------------------------------------------------------------------------
        empty = probe["empty"].prepare((), (), LaunchConfig(1, 32), chain.stream)
        add("launch_empty", "cuLaunchKernel, empty kernel", _per_call(empty, k, sync))
        for launch in chain.launches:
            add(f"launch_{launch.kernel.name}", f"cuLaunchKernel, {launch.kernel.name} ({n:,} floats)",
                _per_call(launch, k, sync))
        add("launch_fused", f"cuLaunchKernel, fused ({n:,} floats)", _per_call(chain.fused, k, sync))
        exe = small.graph_exec()
        add("graph_launch", f"cuGraphLaunch, {len(ops)}-kernel chain graph",
            _per_call(lambda: exe.launch(small.stream), 50, small.stream.synchronize))
        _native_rows(add, rows, native_factory, empty, exe, small.stream, k, sync)
        _lifecycle_rows(add, small, exe, len(ops))
        _device_rows(rows, device, chain, ops, n, timeline_iters)
    decomposition = _decomposition(rows)
    config = {"size": n, "ops": list(ops), "time_cap_s": time_cap_s, "timeline_iters": timeline_iters,
              "host_clock": "host_call", "device_clock": "device", "gap_clock": "globaltimer"}
    result = LatencyResult(config=config, rows=rows, decomposition=decomposition, env=collect(device),
                           clocks=clocks("host_call", "device", "globaltimer"))
    for row in rows:
        if row.us is not None:
            result.keep_samples(row.key, row.us.samples, clock=_CLOCK_KEYS.get(row.us.clock, row.us.clock))
    return result
