"""The device timeline: when each kernel really ran, read from the GPU's own clock, without a profiler.

The chain's kernels are compiled with ``-DCGL_STAMP`` (kernels/elementwise.cuh): each launch gets a pointer to its own
pair of u64 slots and records the earliest block start and the latest block end from ``%globaltimer`` (ns). Three
ways of issuing the same N iterations are recorded:

* ``eager``: one cuLaunchKernel per kernel from Python;
* ``graph``: one captured graph per iteration, launched one after another from Python;
* ``graph (all)``: all N iterations captured into one graph, one cuGraphLaunch.

The gap between two kernels is the next one's start minus this one's end: what launching costs on the device.
With ``probe=True`` the same is done with the empty kernel (one block of 32 threads, four launches per iteration):
the pure cost of going from one kernel to the next, with no memory traffic to drain.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...core.device import opened
from ...core.errors import InvalidArgumentError, positive_int
from ...core.launch import Launch, LaunchConfig, PackedArgs
from ...core.memory import validate_size
from ...core.renamed import renamed_function, renamed_kwargs
from ...experiment.chain import Chain
from ...experiment.ops import DEFAULT_OPS, parse_ops
from ...graphs.capture import capture_launches
from ..records.environment import collect
from ..records.record import CLOCKS, Record, clocks
from ..stats.summary import Summary, summarize

__all__ = ["TimelineResult", "ModeTimeline", "measure_timeline", "record_timeline", "TIMELINE_MODES", "CLOCK"]

TIMELINE_MODES = ("eager", "graph", "graph (all)")
CLOCK = CLOCKS["globaltimer"]
_EMPTY_START = np.iinfo(np.uint64).max
LEAD_IN_ITERATIONS = 2000


@dataclass
class ModeTimeline:
    mode: str
    events: list[dict]  # {"kernel", "start_ns", "end_ns"} in launch order
    gap_us: Summary
    kernel_us: Summary
    span_us: float  # first start to last end
    verified: bool


@dataclass(kw_only=True)
class TimelineResult(Record):
    KIND: ClassVar[str] = "cugraphlab.timeline"

    modes: list[ModeTimeline]

    @property
    def clock(self) -> str:
        return self.clocks.get("globaltimer", CLOCK)

    def mode(self, name: str) -> ModeTimeline:
        return next(m for m in self.modes if m.mode == name)

    def plot_record(self) -> dict:
        """The shape cugraphlab.plot.plot_timeline and plot_gap_histogram read."""
        c = self.config
        return {"title": f"{c['chain']}: {c['iters']} iterations, device timeline (%globaltimer)",
                "modes": {m.mode: m.events for m in self.modes}}


def _summaries(events: list[dict]) -> tuple[Summary, Summary, float]:
    starts = np.array([e["start_ns"] for e in events], dtype=np.int64)
    ends = np.array([e["end_ns"] for e in events], dtype=np.int64)
    gaps = (starts[1:] - ends[:-1]) / 1e3
    if gaps.size == 0:
        gaps = np.array([0.0])
    return (summarize(gaps.tolist(), unit="us", clock=CLOCK),
            summarize(((ends - starts) / 1e3).tolist(), unit="us", clock=CLOCK),
            float(ends.max() - starts.min()) / 1e3)


def _stamps_complete(events: list[dict]) -> bool:
    ends = [e["end_ns"] for e in events]
    starts = [e["start_ns"] for e in events]
    return all(0 < s <= e < 2**63 for s, e in zip(starts, ends)) and all(
        b >= a for a, b in zip(ends, starts[1:]))


def _stamped_launches(chain, stamped, stamps, iters: int, shape: LaunchConfig, probe: bool) -> tuple[list, list]:
    """(launches, kernel names): ``iters`` iterations of the chain's kernels built with -DCGL_STAMP (or, with
    ``probe``, as many empty kernels), each writing its start and end into its own 16-byte slot of ``stamps``."""
    per_iter = chain.op_args()
    launches: list[Launch] = []
    for i in range(iters):
        for j, (name, sig, args) in enumerate(per_iter):
            slot = stamps.ptr + 16 * (i * len(per_iter) + j)
            if probe:
                launches.append(Launch(stamped["empty"], PackedArgs(("ptr",), (slot,)), shape, chain.stream))
            else:
                launches.append(Launch(stamped[name], PackedArgs(sig + ("ptr",), args + (slot,)), shape,
                                       chain.stream))
    names = [("empty" if probe else name) for _ in range(iters) for name, _, _ in per_iter]
    return launches, names


@renamed_kwargs(n="size")
def measure_timeline(device, *, ops=DEFAULT_OPS, size: int = 1 << 20, iters: int = 25, scalar: float = 2.0,
                    modes=TIMELINE_MODES, probe: bool = False,
                    launch_config: LaunchConfig | None = None) -> TimelineResult:
    """When each kernel really ran, each way in ``modes``, read from the GPU's ``%globaltimer`` (no profiler).

    ``iters`` iterations of the chain (or, with ``probe``, as many empty kernels) are launched by stamping kernels
    (``-DCGL_STAMP``) that write their earliest block start and latest block end. Each mode is warmed up and given a
    lead-in of real work, then recorded once on fresh inputs with poisoned outputs and cleared stamps; the chain's
    output is checked against NumPy (the probe's check: every stamp written, in order).

    Parameters
    ----------
    device : Device or int
        A Device (borrowed) or an ordinal (opened and closed here).
    ops : sequence of str or str
        The chain's ops (``experiment.ops.parse_ops``).
    size : int
        Floats per buffer (``n=`` before; still accepted, with a DeprecationWarning).
    iters : int
        Chain iterations recorded (at most 10,000).
    scalar : float
        The factor of ``mul``.
    modes : sequence of str
        Ways from ``TIMELINE_MODES``: "eager" (a cuLaunchKernel per kernel), "graph" (a graph per iteration),
        "graph (all)" (every iteration in one graph).
    probe : bool
        Launch the empty kernel instead (as many per iteration as the chain has ops): the pure kernel-to-kernel gap.
    launch_config : LaunchConfig or None
        The stamped kernels' shape (default: the chain's, or one block of 32 threads for the probe), e.g.
        ``LaunchConfig(132, 256)`` to read the gaps at another grid.

    Returns
    -------
    TimelineResult
        One ModeTimeline per mode: every kernel's start and end (ns), the gaps and kernel times (µs, summarized,
        globaltimer clock), the span, verified; the samples kept and the environment.

    Raises
    ------
    InvalidArgumentError
        An unknown op or mode, a size that is not a positive integer, ``iters`` outside 1..10,000, or ``n=`` and
        ``size=`` together: before any GPU work.
    CompileError
        A stamping kernel did not compile (NVRTC).
    CudaError
        A driver call failed.
    """
    ops = parse_ops(ops)
    n = validate_size(size)
    positive_int("timeline iterations", iters, maximum=10_000)
    unknown = [m for m in modes if m not in TIMELINE_MODES]
    if unknown:
        raise InvalidArgumentError(f"unknown timeline mode {unknown[0]!r}; modes: {', '.join(TIMELINE_MODES)}",
                                   params=("modes",))
    to_load = ["empty"] if probe else sorted(set(ops))
    with opened(device) as device, Chain(device, ops, n, scalar) as chain, \
            device.load_kernels(names=to_load, options=("-DCGL_STAMP",)) as stamped, \
            device.array(2 * iters * len(ops), "uint64") as stamps:
        per_iter = chain.op_args()
        shape = launch_config or (LaunchConfig(1, 32) if probe else chain.config)
        count = iters * len(per_iter)
        launches, names = _stamped_launches(chain, stamped, stamps, iters, shape, probe)
        made: list = []  # every exec instantiated, closed below
        try:
            runners = _runners(chain, launches, len(per_iter), iters, modes, made)
            results = [_record_mode(chain, stamps, runners[mode], mode, names, probe) for mode in modes]
        finally:
            for g in made:
                g.close()
        what = f"empty kernel x {len(ops)} per iteration (probe)" if probe else chain.describe()
        config = {"size": n, "iters": iters, "ops": list(ops), "chain": what, "probe": probe,
                  "grid": shape.grid[0], "block": shape.block[0], "kernels": count}
        result = TimelineResult(config=config, modes=results, env=collect(device), clocks=clocks("globaltimer"))
        for m in results:
            result.keep_samples(f"{m.mode}: gap", m.gap_us.samples, clock="globaltimer")
            result.keep_samples(f"{m.mode}: kernel", m.kernel_us.samples, clock="globaltimer")
        return result


def _runners(chain, launches: list, per_iter: int, iters: int, modes, made: list) -> dict:
    """How each mode issues the stamped launches: "eager" calls them, "graph" launches one graph per iteration,
    "graph (all)" one graph of them all. Every exec instantiated is appended to ``made`` (the caller closes them)."""
    def fire_eager():
        for launch in launches:
            launch()

    runners = {"eager": fire_eager}
    if "graph" in modes:
        per_iteration: list = []
        for i in range(iters):
            graph = capture_launches(chain.stream, launches[i * per_iter:(i + 1) * per_iter])
            with graph:
                per_iteration.append(graph.instantiate())
            made.append(per_iteration[-1])
            per_iteration[-1].upload(chain.stream)
        runners["graph"] = lambda: [g.launch(chain.stream) for g in per_iteration]
    if "graph (all)" in modes:
        with capture_launches(chain.stream, launches) as graph:
            whole = graph.instantiate()
        made.append(whole)
        whole.upload(chain.stream)
        runners["graph (all)"] = lambda: whole.launch(chain.stream)
    return runners


def _record_mode(chain, stamps, run, mode: str, names: list[str], probe: bool) -> ModeTimeline:
    """One mode recorded: a warm-up run, a lead-in of real work, fresh inputs, poisoned outputs and cleared stamps,
    then the stamped run, its spans read back and the result checked."""
    count = len(names)
    fresh = np.zeros(2 * count, dtype=np.uint64)
    fresh[0::2] = _EMPTY_START
    run()  # warm-up run: first-launch costs stay out of the record
    # and a spell of real work (10-20 ms of chain graphs) so an idle GPU's clocks are up before the record
    chain.run("graph", LEAD_IN_ITERATIONS)
    chain.stream.synchronize()
    chain.randomize()
    chain.poison()
    stamps.copy_from(fresh)
    run()
    chain.stream.synchronize()
    raw = stamps.to_numpy()
    events = [{"kernel": names[k], "start_ns": int(raw[2 * k]), "end_ns": int(raw[2 * k + 1])} for k in range(count)]
    gap, kern, span = _summaries(events)
    # the probe computes nothing: its check is that every stamp was written (ordered, non-empty spans)
    ok = _stamps_complete(events) if probe else chain.check_result("eager").ok
    return ModeTimeline(mode, events, gap, kern, span, ok)


#: the old name of measure_timeline (warns, then calls it): core.renamed.renamed_function
record_timeline = renamed_function("record_timeline", measure_timeline)
