"""Graph memory nodes measured: the chain with its intermediates allocated in the graph (experiment.memchain) against
the same chain on preallocated buffers (experiment.chain.Chain, graph mode), at each size.

* first launch of a fresh executable, where the driver maps the graph's physical memory: host µs of the
  cuGraphLaunch call (perf_counter_ns around it) and µs until the work is complete (to cuStreamSynchronize's
  return); cold (cuDeviceGraphMemTrim before each, so memory is reserved again) and with the pool warm, beside the
  first launch of a fresh preallocated chain graph;
* repeat launches: device µs per iteration (CUDA events around ``iters`` launches) and wall µs of the memory-node
  chain in each of its shapes (experiment.memchain.MEMCHAIN_SHAPES: the line of ten nodes, allocs as parallel
  roots with frees as leaves, the same with all frees at the end, one block alloc + one free; the module
  docstring there predicts what each costs) and of the preallocated chain, all interleaved over ``repeats`` loops
  on one stream, each loop on fresh random inputs with the output poisoned and checked after. The record keeps
  every shape's overhead against the preallocated chain (device clock) and names the best shape; a target for
  that overhead is the benchmark's (benchmarks/memnodes.py), not the record's;
* the footprint attributes (cuDeviceGetGraphMemAttribute) and cuMemGetInfo's free memory before and after each
  step: trim, build, instantiate, first launch, repeats, trim with the exec alive, a launch after that trim, exec
  destroyed (the pool keeps the memory: still used and reserved), graph destroyed, trim again (back to the start:
  ``footprint_check``);
* the lessons' checks: explicit and captured graphs of the same topology and bit-exact, virtual-address reuse inside
  a graph, physical memory shared by two graphs on one stream, the unfreed-allocation relaunch error and
  AUTO_FREE_ON_LAUNCH (experiment.graph_pool_lessons.demonstrate_unfreed).

Every output is compared bit for bit with NumPy float32; raw samples are kept per row (``Record.samples``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, ClassVar

from ...core.device import opened
from ...core.errors import InvalidArgumentError, check, positive_int
from ...core.memory import validate_size
from ...experiment.chain import Chain, chain_kernels
from ...experiment.graph_pool_lessons import demonstrate_unfreed, physical_reuse
from ...experiment.memchain import MEMCHAIN_SHAPES, SHAPE_TEXT, MemChain, topology_check
from ...graphs.memory import graph_mem_footprint, require_graph_memory, reset_graph_mem_high, trim_graph_mem
from ..records.record import Record, _plain, clocks
from ..stats.summary import Summary, summarize
from ..timing import CHUNKS, Variant, interleave

__all__ = ["MemnodesResult", "SizeResult", "FootprintStep", "measure_memnodes", "DEFAULT_SIZES",
           "MEM_ROW", "MEM_ROWS", "PRE_ROW", "FIRST_ROWS", "FREE_SLACK"]

DEFAULT_SIZES = (1 << 20, 1024)
#: The steady-state row of each shape of the memory-node chain.
MEM_ROWS = {shape: f"memory nodes, {shape} ({SHAPE_TEXT[shape]})" for shape in MEMCHAIN_SHAPES}
MEM_ROW = MEM_ROWS["line"]
PRE_ROW = "preallocated chain (graph)"
#: Iterations per graph of the amortized pair of rows: the memory nodes cost about the same per graph launch in
#: every shape (it is per launch, not per node), so a graph of AMORTIZE iterations shares it AMORTIZE ways.
AMORTIZE = 10
MEM_AMORTIZED_ROW = f"memory nodes, block, {AMORTIZE} iterations per graph"
PRE_AMORTIZED_ROW = f"preallocated chain, {AMORTIZE} iterations per graph"
FREE_SLACK = 2 << 20  # cuMemGetInfo's free memory back to its start within this (the driver's 2 MiB granularity)
FIRST_ROWS = ("memory nodes, cold (trim first)", "memory nodes, pool warm", "preallocated chain graph")


@dataclass
class FootprintStep:
    """The footprint attributes (bytes) right after one step."""

    step: str
    used_current: int
    used_high: int
    reserved_current: int
    reserved_high: int
    free_bytes: int = 0  # cuMemGetInfo's free device memory


@dataclass
class FirstLaunch:
    """First launches of fresh executables: host µs of cuGraphLaunch and µs until complete, and their check."""

    name: str
    host_api_us: Summary
    complete_us: Summary
    mismatches: int


@dataclass
class Steady:
    """Repeat launches: µs per iteration on the device and wall clocks, and the outputs' check."""

    name: str
    device_us_per_iter: Summary
    wall_us_per_iter: Summary
    mismatches: int


@dataclass
class SizeResult:
    """Everything measured at one size."""

    size: int
    first: list[FirstLaunch]
    steady: list[Steady]
    footprint: list[FootprintStep]
    address_reuse: dict  # experiment.memchain.AddressReuse.to_dict of the explicit line graph
    address_reuse_captured: dict
    topology_same: bool
    topology_diff: str
    captured_mismatches: int
    physical: dict  # experiment.graph_pool_lessons.PhysicalReuse.to_dict
    view: str  # the explicit line graph's text view
    graph_bytes: int
    shape_reuse: dict = field(default_factory=dict)  # shape -> AddressReuse.to_dict (explicit)
    shape_views: dict = field(default_factory=dict)  # shape -> text view
    footprint_check: dict = field(default_factory=dict)  # _footprint_check of the walk

    def steady_row(self, name: str) -> Steady:
        for s in self.steady:
            if s.name == name:
                return s
        raise KeyError(name)

    def shapes(self) -> list[str]:
        """The shapes measured here, in MEMCHAIN_SHAPES order."""
        names = {s.name for s in self.steady}
        return [sh for sh in MEMCHAIN_SHAPES if MEM_ROWS[sh] in names]

    def _pct(self, row: str, clock: str) -> float:
        a, b = self.steady_row(row), self.steady_row(PRE_ROW)
        a, b = (a.device_us_per_iter, b.device_us_per_iter) if clock == "device" else \
            (a.wall_us_per_iter, b.wall_us_per_iter)
        return (a.median / b.median - 1.0) * 100.0

    def shape_overhead_pct(self, shape: str, clock: str = "device") -> float:
        """Memory-node chain in ``shape`` vs the preallocated chain, medians of µs per iteration, in percent
        (+: slower); ``clock``: "device" (CUDA events) or "wall"."""
        return self._pct(MEM_ROWS[shape], clock)

    @property
    def overheads(self) -> dict[str, float]:
        """shape -> device-clock overhead in percent."""
        return {sh: self.shape_overhead_pct(sh) for sh in self.shapes()}

    @property
    def best_shape(self) -> str:
        """The shape with the lowest median device µs per iteration (ties: the earlier in MEMCHAIN_SHAPES)."""
        return min(self.shapes(), key=lambda sh: self.steady_row(MEM_ROWS[sh]).device_us_per_iter.median)

    @property
    def overhead_pct(self) -> float:
        """The best shape vs the preallocated chain, median device µs per iteration, in percent (+: slower)."""
        return self.shape_overhead_pct(self.best_shape)

    @property
    def wall_overhead_pct(self) -> float:
        return self.shape_overhead_pct(self.best_shape, "wall")

    @property
    def amortized_overhead_pct(self) -> float | None:
        """The block shape with AMORTIZE iterations per graph against the preallocated chain unrolled alike, median
        device µs per iteration, in percent; None where the pair was not measured."""
        names = {s.name for s in self.steady}
        if not {MEM_AMORTIZED_ROW, PRE_AMORTIZED_ROW} <= names:
            return None
        a, b = self.steady_row(MEM_AMORTIZED_ROW), self.steady_row(PRE_AMORTIZED_ROW)
        return (a.device_us_per_iter.median / b.device_us_per_iter.median - 1.0) * 100.0

    @property
    def per_launch_cost_us(self) -> dict[str, float]:
        """shape -> device µs per graph launch the memory nodes add (median against the preallocated chain)."""
        if PRE_ROW not in {s.name for s in self.steady}:
            return {}
        pre = self.steady_row(PRE_ROW).device_us_per_iter.median
        return {sh: self.steady_row(MEM_ROWS[sh]).device_us_per_iter.median - pre for sh in self.shapes()}

    @property
    def mismatches(self) -> int:
        return (sum(f.mismatches for f in self.first) + sum(s.mismatches for s in self.steady)
                + self.captured_mismatches + int(self.physical.get("mismatches", 0)))

    @property
    def reuse_ok(self) -> bool:
        """Address reuse as documented in every shape (line: t3 at t1's address; others: all distinct)."""
        return bool(self.address_reuse.get("ok")) and all(r.get("ok") for r in self.shape_reuse.values())

    def to_dict(self) -> dict:
        d = {k: _plain(v) for k, v in self.__dict__.items()}
        d.update(overhead_pct=self.overhead_pct, wall_overhead_pct=self.wall_overhead_pct,
                 best_shape=self.best_shape, overheads=self.overheads,
                 wall_overheads={sh: self.shape_overhead_pct(sh, "wall") for sh in self.shapes()},
                 mismatches=self.mismatches, reuse_ok=self.reuse_ok,
                 amortized_overhead_pct=self.amortized_overhead_pct, amortize=AMORTIZE,
                 per_launch_cost_us=self.per_launch_cost_us)
        return d


@dataclass(kw_only=True)
class MemnodesResult(Record):
    """The record of ``cugraphlab memnodes``: one SizeResult per size and the unfreed-allocation lesson."""

    KIND: ClassVar[str] = "cugraphlab.memnodes"
    SCHEMA: ClassVar[int] = 2  # 2: a steady row per shape, the best named; free memory in the footprint

    sizes: list[SizeResult] = field(default_factory=list)
    unfreed: dict = field(default_factory=dict)  # experiment.graph_pool_lessons.UnfreedDemo.to_dict

    @property
    def verified(self) -> bool:
        """Every output bit-exact, explicit and captured graphs of one topology, the footprint and free memory back
        at their start after the exec is destroyed and the pool trimmed, the unfreed lesson as documented."""
        return (all(s.mismatches == 0 and s.topology_same and bool(s.footprint_check.get("ok")) for s in self.sizes)
                and bool(self.unfreed.get("ok")) and bool(self.sizes))

    def size(self, n: int) -> SizeResult:
        for s in self.sizes:
            if s.size == n:
                return s
        raise KeyError(n)

    def _extra_dict(self) -> dict:
        return {"verified": self.verified}


def _footprint_step(device, step: str, out: list) -> None:
    device.synchronize()
    fp = graph_mem_footprint(device)
    out.append(FootprintStep(step, fp.used_current, fp.used_high, fp.reserved_current, fp.reserved_high,
                             int(device.memory_info()[0])))


DESTROYED_STEP = "exec destroyed (cuGraphExecDestroy)"
TRIMMED_STEP = "cuDeviceGraphMemTrim, no exec"


def _footprint_check(steps: list[FootprintStep]) -> dict:
    """After the exec and graph are destroyed and the pool trimmed: used and reserved graph memory back at the
    start, and cuMemGetInfo's free memory within FREE_SLACK of it. Also what the pool still held before the trim."""
    by = {s.step: s for s in steps}
    start, end, destroyed = steps[0], by.get(TRIMMED_STEP, steps[-1]), by.get(DESTROYED_STEP)
    free_delta = start.free_bytes - end.free_bytes  # +: less free than at the start
    ok = (end.used_current == start.used_current and end.reserved_current <= start.reserved_current
          and abs(free_delta) <= FREE_SLACK)
    return {"used_before_trim": destroyed.used_current - start.used_current if destroyed else None,
            "reserved_before_trim": destroyed.reserved_current - start.reserved_current if destroyed else None,
            "free_missing_before_trim": start.free_bytes - destroyed.free_bytes if destroyed else None,
            "used_after_trim": end.used_current - start.used_current,
            "reserved_after_trim": end.reserved_current - start.reserved_current,
            "free_missing_after_trim": free_delta, "free_slack": FREE_SLACK, "ok": ok}


def _walk_footprint(device, size, kernels, stream, iters, seed) -> tuple[list[FootprintStep], int]:
    """The footprint after each step of one memory-node graph's life; returns (steps, output mismatches)."""
    steps: list[FootprintStep] = []
    device.synchronize()
    trim_graph_mem(device)
    reset_graph_mem_high(device)
    _footprint_step(device, "start (trimmed, high marks reset)", steps)
    bad = 0
    with MemChain(device, size, kernels=kernels, stream=stream, seed=seed, instantiate=False) as mc:
        _footprint_step(device, "MemChain built (x, y, out by cuMemAlloc; the 10-node graph)", steps)
        mc.instantiate()
        _footprint_step(device, "instantiated", steps)
        mc.prepare()
        mc.run(1)
        _footprint_step(device, "first launch", steps)
        bad += mc.mismatches()
        mc.run(iters)
        _footprint_step(device, f"{iters:,} more launches", steps)
        bad += mc.mismatches()
        trim_graph_mem(device)
        _footprint_step(device, "cuDeviceGraphMemTrim, exec alive", steps)
        mc.prepare()
        mc.run(1)
        _footprint_step(device, "a launch after that trim", steps)
        bad += mc.mismatches()
        mc.close_exec()
        _footprint_step(device, DESTROYED_STEP, steps)
    _footprint_step(device, "graph and buffers destroyed", steps)
    trim_graph_mem(device)
    _footprint_step(device, TRIMMED_STEP, steps)
    return steps, bad


def _first_launch(stream, make: Callable, prepare: Callable, count_bad: Callable, finish: Callable, samples: int):
    """``samples`` first launches: each ``make()`` gives a fresh exec, timed from cuGraphLaunch to completion."""
    host, complete, bad = [], [], 0
    for _ in range(samples):
        exe = make()
        prepare()
        stream.synchronize()
        fn, h, s = exe.fn, exe.handle, stream.handle
        t0 = time.perf_counter_ns()
        r = fn(h, s)
        t1 = time.perf_counter_ns()
        stream.synchronize()
        t2 = time.perf_counter_ns()
        if r[0]:
            check(r, "cuGraphLaunch")
        host.append((t1 - t0) / 1e3)
        complete.append((t2 - t0) / 1e3)
        bad += count_bad()
        finish(exe)
    return host, complete, bad


def _pre_prepare(pre: Chain):
    """Fresh random inputs and poisoned outputs for the preallocated chain, before each of its runs."""
    def prepare():
        pre.randomize()
        pre.poison()
    return prepare


def _first_rows(device, size, mem, pre, stream, first_samples, record) -> list[FirstLaunch]:
    """The first launch after instantiation (host call and completion) of each FIRST_ROWS way, kept in ``record``."""
    def mem_make(trim: bool):
        def make():
            mem.close_exec()
            if trim:
                device.synchronize()
                trim_graph_mem(device)
            return mem.instantiate()
        return make

    def pre_make():
        g = pre.capture()
        try:
            return g.instantiate()
        finally:
            g.close()

    plan = [
        (FIRST_ROWS[0], mem_make(True), mem.prepare, mem.mismatches, lambda exe: None),
        (FIRST_ROWS[1], mem_make(False), mem.prepare, mem.mismatches, lambda exe: None),
        (FIRST_ROWS[2], pre_make, _pre_prepare(pre), lambda: pre.check_result("graph").mismatches,
         lambda exe: exe.close()),
    ]
    first = []
    for name, make, prep, mismatches, finish in plan:
        host, complete, bad = _first_launch(stream, make, prep, mismatches, finish, first_samples)
        first.append(FirstLaunch(name, summarize(host, unit="us", clock="host_api"),
                                 summarize(complete, unit="us", clock="wall"), bad))
        record.keep_samples(f"{size}/first/{name}/host_api", host, "us", "host_api")
        record.keep_samples(f"{size}/first/{name}/complete", complete, "us", "wall")
    return first


def _steady_variants(chains: dict, pre, stream, shapes, iters: int, amortized: bool) -> list[Variant]:
    """The timed rows, warmed up: each shape's MemChain, the preallocated chain, and (``amortized``) the unrolled
    block graphs against the preallocated chain unrolled alike."""
    pre_prepare = _pre_prepare(pre)
    warm = min(iters, 200)
    for sh in shapes:
        chains[sh].run(warm)
    pre.run("graph", warm)
    stream.synchronize()
    variants = [Variant(MEM_ROWS[sh], stream, chains[sh].run, chains[sh].prepare, chains[sh].mismatches)
                for sh in shapes]
    variants.append(Variant(PRE_ROW, stream, lambda k: pre.run("graph", k), pre_prepare,
                            lambda: pre.check_result("graph").mismatches))
    if amortized:  # run(k) enqueues k iterations: k / AMORTIZE launches of the unrolled graphs
        mu = chains["block_unrolled"]
        mu.run(max(1, warm // AMORTIZE))
        pre.run("graph", AMORTIZE * max(1, warm // AMORTIZE), AMORTIZE)
        stream.synchronize()
        variants.append(Variant(MEM_AMORTIZED_ROW, stream, lambda k: mu.run(k // AMORTIZE), mu.prepare,
                                mu.mismatches, grain=AMORTIZE))
        variants.append(Variant(PRE_AMORTIZED_ROW, stream, lambda k: pre.run("graph", k, AMORTIZE),
                                pre_prepare, lambda: pre.check_result("graph").mismatches, grain=AMORTIZE))
    return variants


def _steady_rows(device, size, mem, pre, kernels, stream, start, end, iters, repeats, seed, record, progress,
                 shapes) -> tuple[list[Steady], dict, dict]:
    """(steady rows, address reuse per shape, view per shape): every shape timed interleaved with the
    preallocated chain, each loop also cut into CHUNKS chunks whose samples the record keeps (for diff)."""
    mem.instantiate()
    others = {sh: MemChain(device, size, shape=sh, kernels=kernels, stream=stream, seed=seed)
              for sh in shapes if sh != "line"}
    amortized = iters % AMORTIZE == 0 and "block" in shapes
    if amortized:
        others["block_unrolled"] = MemChain(device, size, shape="block", kernels=kernels, stream=stream,
                                            seed=seed, unroll=AMORTIZE)
    try:
        chains = {"line": mem, **others}
        variants = _steady_variants(chains, pre, stream, shapes, iters, amortized)
        timings = interleave(variants, iters, repeats, start, end, progress=progress, chunks=CHUNKS)
        steady = []
        for v in variants:
            t = timings[v.name]
            steady.append(Steady(v.name, t.device("device"), t.wall("wall"), t.mismatches))
            record.keep_samples(f"{size}/steady/{v.name}/device", t.device_chunks or t.device_us, "us", "device")
            record.keep_samples(f"{size}/steady/{v.name}/wall", t.wall_chunks or t.wall_us, "us", "wall")
        shape_reuse = {sh: chains[sh].address_reuse().to_dict() for sh in shapes}
        shape_views = {sh: chains[sh].view(f"{sh}: {SHAPE_TEXT[sh]}, {size:,} floats") for sh in shapes}
    finally:
        for m in others.values():
            m.close()
    return steady, shape_reuse, shape_views


def _measure_size(device, size, kernels, stream, start, end, iters, repeats, first_samples, seed, record,
                  progress, shapes=MEMCHAIN_SHAPES) -> SizeResult:
    say = progress or (lambda _m: None)
    footprint, walk_bad = _walk_footprint(device, size, kernels, stream, iters, seed)
    say(f"{size:,} floats: footprint walk done")
    with MemChain(device, size, kernels=kernels, stream=stream, seed=seed) as mem, \
            Chain(device, n=size, kernels=kernels, stream=stream, seed=seed) as pre:
        view, graph_bytes = mem.view(f"the chain with graph-allocated intermediates, {size:,} floats"), \
            mem.graph.allocated_bytes
        reuse = mem.address_reuse().to_dict()
        first = _first_rows(device, size, mem, pre, stream, first_samples, record)
        say(f"{size:,} floats: first launches done")
        steady, shape_reuse, shape_views = _steady_rows(device, size, mem, pre, kernels, stream, start, end, iters,
                                                        repeats, seed, record, progress, shapes)
        say(f"{size:,} floats: repeats done")
    same, diff, _explicit_view, _captured_view = topology_check(device, size, kernels=kernels, stream=stream,
                                                                seed=seed)
    captured_bad = 0
    with MemChain(device, size, how="capture", kernels=kernels, stream=stream, seed=seed) as cap:
        captured_bad += cap.verify().mismatches
        reuse_captured = cap.address_reuse().to_dict()
    with MemChain(device, size, how="capture", shape="block", kernels=kernels, stream=stream, seed=seed) as capb:
        captured_bad += capb.verify().mismatches
    physical = physical_reuse(device, size, kernels=kernels, seed=seed).to_dict()
    say(f"{size:,} floats: checks done")
    return SizeResult(size, first, steady, footprint, reuse, reuse_captured, same, diff, captured_bad + walk_bad,
                      physical, view, graph_bytes, shape_reuse, shape_views, _footprint_check(footprint))


def measure_memnodes(device=0, sizes=DEFAULT_SIZES, iters: int = 5000, repeats: int = 5, *, first_samples: int = 10,
                     seed: int | None = None, shapes=MEMCHAIN_SHAPES,
                     progress: Callable[[str], None] | None = None) -> MemnodesResult:
    """Measure graph memory nodes at each size (see the module docstring) and check each way's output.

    Needs no other executables with graph memory alive in the process (the footprint figures would include
    theirs). Driver API: "Graph Management" (memory nodes, cuDeviceGetGraphMemAttribute, cuDeviceGraphMemTrim),
    "Event Management" (the device clock).

    Parameters
    ----------
    device : Device or int
        A Device (borrowed) or an ordinal (opened and closed here).
    sizes : int or sequence of int
        Floats per buffer, one size or several.
    iters : int
        Launches per timed loop.
    repeats : int
        Timed loops per way.
    first_samples : int
        Fresh executables per first-launch row.
    seed : int or None
        Seed of the random inputs (drawn afresh when None).
    shapes : sequence of str
        The memory-node chain's shapes timed in steady state, among ``MEMCHAIN_SHAPES`` ("line" always added).
    progress : callable or None
        ``progress(line)``, called with one line after each timed loop.

    Returns
    -------
    MemnodesResult
        One SizeResult per size (each way's figures, first launches, the graph memory footprint, the checks) and
        the unfreed-allocation lesson; ``verified`` says whether every check held.

    Raises
    ------
    InvalidArgumentError
        A size, ``iters``, ``repeats`` or ``first_samples`` not a positive integer, or an unknown shape: before any
        GPU work.
    UnsupportedError
        A driver or device without graph memory nodes.
    NoDeviceError
        No driver or no device ``device``.
    CudaError
        A driver call failed.
    """
    from ..records.environment import collect

    sizes = [validate_size(s) for s in (sizes if isinstance(sizes, (list, tuple)) else [sizes])]
    unknown = set(shapes) - set(MEMCHAIN_SHAPES)
    if unknown:
        raise InvalidArgumentError(f"unknown shape(s) {', '.join(sorted(unknown))}; known: "
                                   f"{', '.join(MEMCHAIN_SHAPES)}")
    shapes = [sh for sh in MEMCHAIN_SHAPES if sh in set(shapes) | {"line"}]
    for name, v in (("iterations", iters), ("repeats", repeats), ("first-launch samples", first_samples)):
        positive_int(name, v)
    with opened(device) as dev:
        require_graph_memory(dev)
        result = MemnodesResult(clocks=clocks("wall", "device", "host_api"))
        result.env = collect(dev)
        result.config = {"sizes": sizes, "iters": iters, "repeats": repeats, "chunks": CHUNKS,
                         "first_samples": first_samples,
                         "seed": seed, "device": getattr(dev, "ordinal", device),
                         "chain": "add -> mul 2 -> sub -> relu, t1..t3 allocated in the graph",
                         "shapes": list(shapes)}
        with chain_kernels(dev) as kernels, dev.create_stream() as stream, dev.create_event() as start, \
                dev.create_event() as end:
            for n in sizes:
                result.sizes.append(_measure_size(dev, n, kernels, stream, start, end, iters, repeats,
                                                  first_samples, seed, result, progress, shapes))
            result.unfreed = demonstrate_unfreed(dev, stream, min(sizes), seed).to_dict()
        return result
