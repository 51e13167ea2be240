"""Graph memory nodes measured: the chain with its intermediates allocated in the graph (experiment.memchain) against
the same chain on preallocated buffers (experiment.chain.Chain, graph mode), at each size.

* first launch of a fresh executable, where the driver maps the graph's physical memory: host µs of the
  cuGraphLaunch call (perf_counter_ns around it) and µs until the work is complete (to cuStreamSynchronize's
  return); cold (cuDeviceGraphMemTrim before each, so memory is reserved again) and with the pool warm, beside the
  first launch of a fresh preallocated chain graph;
* repeat launches: device µs per iteration (CUDA events around ``iters`` launches) and wall µs, both chains
  interleaved over ``repeats`` loops, each loop on fresh random inputs with the output poisoned and checked after.
  The issue's goal: the memory-node graph within 2% of the preallocated chain in steady state (device clock);
* the footprint attributes (cuDeviceGetGraphMemAttribute) before and after each step: trim, build, instantiate,
  first launch, repeats, trim with the exec alive, a launch after that trim, exec destroyed, trim again;
* the lessons' checks: explicit and captured graphs of the same topology and bit-exact, virtual-address reuse inside
  a graph, physical memory shared by two graphs on one stream, the unfreed-allocation relaunch error and
  AUTO_FREE_ON_LAUNCH (experiment.memchain.demonstrate_unfreed).

Every output is compared bit for bit with NumPy float32; raw samples are kept per row (``Record.samples``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, ClassVar

from ..core.device import Device
from ..core.errors import check, positive_int
from ..core.memory import validate_size
from ..experiment.chain import Chain, chain_kernels
from ..experiment.memchain import MemChain, demonstrate_unfreed, physical_reuse, topology_check
from ..graphs.memory import graph_mem_footprint, require_graph_memory, reset_graph_mem_high, trim_graph_mem
from .records import Record, _plain, clocks
from .stats import Summary, summarize
from .timing import Variant, interleave

__all__ = ["MemnodesResult", "SizeResult", "FootprintStep", "measure_memnodes", "GOAL_PCT", "DEFAULT_SIZES",
           "MEM_ROW", "PRE_ROW", "FIRST_ROWS"]

GOAL_PCT = 2.0  # steady-state launch of the memory-node graph within this much of the preallocated chain
DEFAULT_SIZES = (1 << 20, 1024)
MEM_ROW = "graph memory nodes"
PRE_ROW = "preallocated chain (graph)"
FIRST_ROWS = ("memory nodes, cold (trim first)", "memory nodes, pool warm", "preallocated chain graph")


@dataclass
class FootprintStep:
    """The footprint attributes (bytes) right after one step."""

    step: str
    used_current: int
    used_high: int
    reserved_current: int
    reserved_high: int


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
    address_reuse: dict  # experiment.memchain.AddressReuse.to_dict of the explicit graph
    address_reuse_captured: dict
    topology_same: bool
    topology_diff: str
    captured_mismatches: int
    physical: dict  # experiment.memchain.PhysicalReuse.to_dict
    view: str  # the explicit graph's text view
    graph_bytes: int

    def steady_row(self, name: str) -> Steady:
        for s in self.steady:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def overhead_pct(self) -> float:
        """Memory-node graph vs preallocated chain, median device µs per iteration, in percent (+: slower)."""
        return (self.steady_row(MEM_ROW).device_us_per_iter.median
                / self.steady_row(PRE_ROW).device_us_per_iter.median - 1.0) * 100.0

    @property
    def wall_overhead_pct(self) -> float:
        return (self.steady_row(MEM_ROW).wall_us_per_iter.median
                / self.steady_row(PRE_ROW).wall_us_per_iter.median - 1.0) * 100.0

    @property
    def goal_met(self) -> bool:
        return self.overhead_pct <= GOAL_PCT

    @property
    def mismatches(self) -> int:
        return (sum(f.mismatches for f in self.first) + sum(s.mismatches for s in self.steady)
                + self.captured_mismatches + int(self.physical.get("mismatches", 0)))

    def to_dict(self) -> dict:
        d = {k: _plain(v) for k, v in self.__dict__.items()}
        d.update(overhead_pct=self.overhead_pct, wall_overhead_pct=self.wall_overhead_pct, goal_met=self.goal_met,
                 mismatches=self.mismatches)
        return d


@dataclass(kw_only=True)
class MemnodesResult(Record):
    """The record of ``cugraphlab memnodes``: one SizeResult per size and the unfreed-allocation lesson."""

    KIND: ClassVar[str] = "cugraphlab.memnodes"
    SCHEMA: ClassVar[int] = 1

    sizes: list[SizeResult] = field(default_factory=list)
    unfreed: dict = field(default_factory=dict)  # experiment.memchain.UnfreedDemo.to_dict
    goal_pct: float = GOAL_PCT

    @property
    def verified(self) -> bool:
        """Every output bit-exact, explicit and captured graphs of one topology, the unfreed lesson as documented."""
        return (all(s.mismatches == 0 and s.topology_same for s in self.sizes) and bool(self.unfreed.get("ok"))
                and bool(self.sizes))

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
    out.append(FootprintStep(step, fp.used_current, fp.used_high, fp.reserved_current, fp.reserved_high))


def _walk_footprint(device, size, kernels, stream, iters, seed) -> tuple[list[FootprintStep], int]:
    """The footprint after each step of one memory-node graph's life; returns (steps, output mismatches)."""
    steps: list[FootprintStep] = []
    device.synchronize()
    trim_graph_mem(device)
    reset_graph_mem_high(device)
    _footprint_step(device, "start (trimmed, high marks reset)", steps)
    bad = 0
    with MemChain(device, size, kernels=kernels, stream=stream, seed=seed, instantiate=False) as mc:
        _footprint_step(device, "graph built (10 nodes)", steps)
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
        _footprint_step(device, "exec destroyed (cuGraphExecDestroy)", steps)
    _footprint_step(device, "graph destroyed", steps)
    trim_graph_mem(device)
    _footprint_step(device, "cuDeviceGraphMemTrim, no exec", steps)
    return steps, bad


def _first_launch(stream, make: Callable, prepare: Callable, check: Callable, finish: Callable, samples: int):
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
        bad += check()
        finish(exe)
    return host, complete, bad


def _measure_size(device, size, kernels, stream, start, end, iters, repeats, first_samples, seed, record,
                  progress) -> SizeResult:
    say = progress or (lambda _m: None)
    footprint, walk_bad = _walk_footprint(device, size, kernels, stream, iters, seed)
    say(f"{size:,} floats: footprint walk done")
    first: list[FirstLaunch] = []
    steady: list[Steady] = []
    with MemChain(device, size, kernels=kernels, stream=stream, seed=seed) as mem, \
            Chain(device, n=size, kernels=kernels, stream=stream, seed=seed) as pre:
        view, graph_bytes = mem.view(f"the chain with graph-allocated intermediates, {size:,} floats"), \
            mem.graph.allocated_bytes
        reuse = mem.address_reuse().to_dict()

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

        def pre_prepare():
            pre.randomize()
            pre.poison()

        plan = [
            (FIRST_ROWS[0], mem_make(True), mem.prepare, mem.mismatches, lambda exe: None),
            (FIRST_ROWS[1], mem_make(False), mem.prepare, mem.mismatches, lambda exe: None),
            (FIRST_ROWS[2], pre_make, pre_prepare, lambda: pre.check_result("graph").mismatches,
             lambda exe: exe.close()),
        ]
        for name, make, prep, check, finish in plan:
            host, complete, bad = _first_launch(stream, make, prep, check, finish, first_samples)
            first.append(FirstLaunch(name, summarize(host, unit="us", clock="host_api"),
                                     summarize(complete, unit="us", clock="wall"), bad))
            record.keep_samples(f"{size}/first/{name}/host_api", host, "us", "host_api")
            record.keep_samples(f"{size}/first/{name}/complete", complete, "us", "wall")
        say(f"{size:,} floats: first launches done")

        mem.instantiate()
        warm = min(iters, 200)
        mem.run(warm)
        pre.run("graph", warm)
        stream.synchronize()
        variants = [
            Variant(MEM_ROW, stream, mem.run, mem.prepare, mem.mismatches),
            Variant(PRE_ROW, stream, lambda k: pre.run("graph", k), pre_prepare,
                    lambda: pre.check_result("graph").mismatches),
        ]
        timings = interleave(variants, iters, repeats, start, end, progress=progress)
        for name in (MEM_ROW, PRE_ROW):
            t = timings[name]
            steady.append(Steady(name, t.device("device"), t.wall("wall"), t.mismatches))
            record.keep_samples(f"{size}/steady/{name}/device", t.device_us, "us", "device")
            record.keep_samples(f"{size}/steady/{name}/wall", t.wall_us, "us", "wall")
        say(f"{size:,} floats: repeats done")
    same, diff, _explicit_view, _captured_view = topology_check(device, size, kernels=kernels, stream=stream,
                                                                seed=seed)
    with MemChain(device, size, how="capture", kernels=kernels, stream=stream, seed=seed) as cap:
        captured_bad = cap.verify().mismatches
        reuse_captured = cap.address_reuse().to_dict()
    physical = physical_reuse(device, size, kernels=kernels, seed=seed).to_dict()
    say(f"{size:,} floats: checks done")
    return SizeResult(size, first, steady, footprint, reuse, reuse_captured, same, diff, captured_bad + walk_bad,
                      physical, view, graph_bytes)


def measure_memnodes(device=0, sizes=DEFAULT_SIZES, iters: int = 5000, repeats: int = 5, *, first_samples: int = 10,
                     seed: int | None = None, progress: Callable[[str], None] | None = None) -> MemnodesResult:
    """Measure graph memory nodes at each size (see the module docstring); returns a MemnodesResult.

    ``device``: a Device or an index. ``iters``: launches per timed loop; ``repeats``: timed loops per way;
    ``first_samples``: fresh executables per first-launch row. Needs no other executables with graph memory alive
    in the process (the footprint figures would include theirs). Driver API: "Graph Management" (memory nodes,
    cuDeviceGetGraphMemAttribute, cuDeviceGraphMemTrim), "Event Management" (the device clock).
    """
    from .environment import collect

    sizes = [validate_size(s) for s in (sizes if isinstance(sizes, (list, tuple)) else [sizes])]
    for name, v in (("iterations", iters), ("repeats", repeats), ("first-launch samples", first_samples)):
        positive_int(name, v)
    own_device = not hasattr(device, "compute_capability")
    dev = Device(device) if own_device else device
    try:
        require_graph_memory(dev)
        result = MemnodesResult(clocks=clocks("wall", "device", "host_api"))
        result.env = collect(dev)
        result.config = {"sizes": sizes, "iters": iters, "repeats": repeats, "first_samples": first_samples,
                         "seed": seed, "device": getattr(dev, "ordinal", device), "goal_pct": GOAL_PCT,
                         "chain": "add -> mul 2 -> sub -> relu, t1..t3 allocated in the graph"}
        with chain_kernels(dev) as kernels, dev.create_stream() as stream, dev.create_event() as start, \
                dev.create_event() as end:
            for n in sizes:
                result.sizes.append(_measure_size(dev, n, kernels, stream, start, end, iters, repeats,
                                                  first_samples, seed, result, progress))
            result.unfreed = demonstrate_unfreed(dev, stream, min(sizes), seed).to_dict()
        return result
    finally:
        if own_device:
            dev.close()
