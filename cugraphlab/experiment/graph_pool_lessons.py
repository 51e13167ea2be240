"""What the driver's graph-memory pool does with the memory a MemChain's graph allocates: the lessons
``cugraphlab memnodes`` prints after the chain's figures.

- ``physical_reuse``: the footprint (cuDeviceGetGraphMemAttribute, after a trim) of one MemChain graph launched alone,
  of two launched in turn on one stream (the pool may hand the second the first's physical memory), and of two on two
  streams (which may run at once, so may not share it); every output checked bit for bit after.
- ``demonstrate_unfreed``: an allocation no free node releases (alloc + memset, no free): it outlives the launch,
  a relaunch before it is freed and a second executable are refused, ``AUTO_FREE_ON_LAUNCH`` relaunches anyway, and
  a trim gives the pool's memory back.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core._calls import cu, driver_module
from ..core.memory import POISON_BITS, validate_size
from ..graphs.build import add_memset_node
from ..graphs.memory import (
    GraphMemFootprint,
    MemoryGraph,
    SecondExecError,
    UnfreedAllocationError,
    graph_mem_footprint,
    reset_graph_mem_high,
    trim_graph_mem,
)
from .memchain import MemChain

__all__ = ["PhysicalReuse", "physical_reuse", "UnfreedDemo", "demonstrate_unfreed"]


def _fmt_bytes(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if abs(n) >= 1 << 20 else f"{n / 2**10:.1f} KiB"


# --- physical memory shared by graphs on one stream -------------------------------------------------------------
@dataclass(frozen=True)
class PhysicalReuse:
    """The graph-memory footprint (bytes above the starting point, after a trim) of one MemChain graph launched
    alone, of two launched in turn on one stream, and of two on two streams (which may run at once)."""

    baseline: GraphMemFootprint
    one_graph: GraphMemFootprint
    two_graphs_one_stream: GraphMemFootprint
    two_graphs_two_streams: GraphMemFootprint
    graph_bytes: int  # what one graph allocates in all (its intermediates)
    mismatches: int = 0  # output elements of the three chains that differ from NumPy after the launches

    def _reserved(self, fp: GraphMemFootprint) -> int:
        return max(fp.reserved_high, fp.reserved_current) - self.baseline.reserved_current

    @property
    def reserved_one(self) -> int:
        return self._reserved(self.one_graph)

    @property
    def reserved_one_stream(self) -> int:
        return self._reserved(self.two_graphs_one_stream)

    @property
    def reserved_two_streams(self) -> int:
        return self._reserved(self.two_graphs_two_streams)

    @property
    def ok(self) -> bool:
        """Two graphs on one stream reserve no more than one graph does (and one graph reserves something), and
        every output was bit-exact."""
        return 0 < self.reserved_one and self.reserved_one_stream <= self.reserved_one and self.mismatches == 0

    def __str__(self) -> str:
        return (f"reserved above baseline: one graph {_fmt_bytes(self.reserved_one)}, two graphs on one stream "
                f"{_fmt_bytes(self.reserved_one_stream)}, two graphs on two streams "
                f"{_fmt_bytes(self.reserved_two_streams)} (each graph allocates {_fmt_bytes(self.graph_bytes)})")

    def to_dict(self) -> dict:
        return {"baseline": self.baseline.to_dict(), "one_graph": self.one_graph.to_dict(),
                "two_graphs_one_stream": self.two_graphs_one_stream.to_dict(),
                "two_graphs_two_streams": self.two_graphs_two_streams.to_dict(), "graph_bytes": self.graph_bytes,
                "mismatches": self.mismatches, "reserved_one": self.reserved_one,
                "reserved_one_stream": self.reserved_one_stream,
                "reserved_two_streams": self.reserved_two_streams, "ok": self.ok, "text": str(self)}


def physical_reuse(device, n: int = 1 << 20, *, kernels=None, seed=None, rounds: int = 3) -> PhysicalReuse:
    """Footprints of MemChain graphs A and B (a stream shared) and C (its own stream), all checked bit-exact.

    Steps: trim (cuDeviceGraphMemTrim), reset the high-water marks, read the baseline; launch A alone and read;
    launch A and B in turn ``rounds`` times on one stream and read; launch A and C on their two streams and read.
    Any execs with graph memory elsewhere in the process count in the figures too: run it with none alive.
    ``mismatches`` counts the output elements of A, B and C that differ from NumPy after the launches (0 for ``ok``).
    """
    def read():
        device.synchronize()
        return graph_mem_footprint(device)

    with MemChain(device, n, kernels=kernels, seed=seed) as a, \
            MemChain(device, n, kernels=a.kernels, stream=a.stream, seed=seed) as b, \
            MemChain(device, n, kernels=a.kernels, seed=seed) as c:
        for m in (a, b, c):
            m.prepare()
        device.synchronize()
        trim_graph_mem(device)
        reset_graph_mem_high(device)
        base = read()
        a.run(1)
        one = read()
        reset_graph_mem_high(device)
        for _ in range(rounds):
            a.run(1)
            b.run(1)
        same_stream = read()
        reset_graph_mem_high(device)
        for _ in range(rounds):
            a.run(1)
            c.run(1)
        two_streams = read()
        mismatches = sum(m.mismatches() for m in (a, b, c))
        return PhysicalReuse(base, one, same_stream, two_streams, a.graph.allocated_bytes, mismatches)


# --- an allocation the graph does not free ----------------------------------------------------------------------
@dataclass
class UnfreedDemo:
    """What a graph that leaves its allocation live does, step by step: each step's text and whether it held."""

    steps: list[dict] = field(default_factory=list)
    relaunch_error: str = ""  # the CUresult name the refused relaunch gave
    second_exec_error: str = ""  # the CUresult name the refused second instantiate gave
    footprint_after: GraphMemFootprint | None = None  # after the execs are closed and cuDeviceGraphMemTrim
    footprint_before: GraphMemFootprint | None = None
    footprint_closed: GraphMemFootprint | None = None  # after the execs are closed, before the trim

    def add(self, text: str, ok: bool) -> None:
        self.steps.append({"text": text, "ok": bool(ok)})

    @property
    def ok(self) -> bool:
        return bool(self.steps) and all(s["ok"] for s in self.steps)

    def to_dict(self) -> dict:
        return {"steps": self.steps, "relaunch_error": self.relaunch_error,
                "second_exec_error": self.second_exec_error, "ok": self.ok,
                "footprint_before": self.footprint_before.to_dict() if self.footprint_before else None,
                "footprint_after": self.footprint_after.to_dict() if self.footprint_after else None,
                "footprint_closed": self.footprint_closed.to_dict() if self.footprint_closed else None}


@dataclass
class _AllocationView:
    """A graph allocation seen as a float32 array, enough for graphs.build.add_memset_node."""

    handle: object
    n: int
    device: object
    dtype: np.dtype = np.dtype(np.float32)

    @property
    def nbytes(self) -> int:
        return self.n * 4


def _read_bits(stream, dptr: int, n: int) -> np.ndarray:
    host = np.full(n, 0x5A5A5A5A, np.uint32)  # not the pattern: a copy that did not happen cannot pass
    cu("cuMemcpyDtoHAsync", host.ctypes.data, driver_module().CUdeviceptr(dptr), n * 4, stream.handle)
    cu("cuStreamSynchronize", stream.handle)
    return host


def _overwrite(stream, dptr: int, n: int, bits: int) -> None:
    cu("cuMemsetD32Async", driver_module().CUdeviceptr(dptr), bits & 0xFFFFFFFF, n, stream.handle)


def demonstrate_unfreed(device, stream, n: int = 1024, seed: int | None = None) -> UnfreedDemo:
    """A graph of an alloc node and a memset node writing a random 32-bit pattern into it, with no free node.

    1. launch: the allocation outlives it; a copy after the launch reads the pattern (then overwritten here);
    2. launch again: refused (CUDA_ERROR_INVALID_VALUE, raised as UnfreedAllocationError) and caught;
    3. free_outstanding (cuMemFreeAsync), launch again: the pattern is back (the relaunch wrote it);
    4. a second cuGraphInstantiate while that exec lives: refused (SecondExecError) and caught;
    5. an exec with AUTO_FREE_ON_LAUNCH launched twice without a free: both work, the second wrote the pattern;
    6. closing the execs frees what they left (cuMemFree) and destroys them (cuGraphExecDestroy); the memory goes
       back to the graph pool, which keeps it mapped (the H200's driver 580 still reports it under USED_MEM_CURRENT
       and RESERVED_MEM_CURRENT); cuDeviceGraphMemTrim gives it back to the OS: both attributes are then no higher
       than before step 1. The trim also unmaps what other idle graphs hold (their next launch maps it again).
    """
    d = driver_module()
    n = validate_size(n)
    rng = np.random.default_rng(seed)
    pattern = int(rng.integers(1, 1 << 31)) | 1  # never zero, never the poison
    if pattern == POISON_BITS:
        pattern ^= 2
    other = pattern ^ 0xFFFFFFFF
    demo = UnfreedDemo()
    stream.synchronize()
    demo.footprint_before = graph_mem_footprint(device)
    with MemoryGraph(device) as g:
        a = g.alloc(n * 4)
        add_memset_node(g, _AllocationView(d.CUdeviceptr(a.dptr), n, device), pattern, [a.node], device.context)
        exe = g.instantiate()
        try:
            exe.launch(stream)
            bits = _read_bits(stream, a.dptr, n)
            demo.add(f"launch 1: the allocation at {a.dptr:#x} outlives the graph; a copy after it reads the "
                     f"pattern {pattern:#010x} in all {n:,} elements", bool(np.all(bits == pattern)))
            _overwrite(stream, a.dptr, n, other)
            try:
                exe.launch(stream)
                demo.add("launch 2 without freeing: the driver should have refused it", False)
            except UnfreedAllocationError as e:
                demo.relaunch_error = e.name
                demo.add(f"launch 2 without freeing: refused with {e.name} (UnfreedAllocationError)",
                         e.name == "CUDA_ERROR_INVALID_VALUE")
            freed = exe.free_outstanding(stream)
            exe.launch(stream)
            bits = _read_bits(stream, a.dptr, n)
            demo.add(f"after free_outstanding (cuMemFreeAsync x{freed}), launch 3 works and wrote the pattern again",
                     freed == 1 and bool(np.all(bits == pattern)))
            try:
                g.instantiate().close()
                demo.add("a second instantiate while the first exec lives: the driver should have refused it",
                         False)
            except SecondExecError as e:
                demo.second_exec_error = e.name
                demo.add(f"a second instantiate while the first exec lives: refused with {e.name} "
                         "(SecondExecError)", True)
        finally:
            exe.close()  # frees what launch 3 left (cuCtxSynchronize, cuMemFree), then cuGraphExecDestroy
        with g.instantiate(auto_free=True) as auto:
            auto.launch(stream)
            _overwrite(stream, a.dptr, n, other)
            auto.launch(stream)  # frees launch 1's allocation, allocates again, writes the pattern
            bits = _read_bits(stream, a.dptr, n)
            demo.add("AUTO_FREE_ON_LAUNCH: two launches without a free both work; the second wrote the pattern",
                     bool(np.all(bits == pattern)))
    device.synchronize()
    demo.footprint_closed = graph_mem_footprint(device)
    trim_graph_mem(device)
    demo.footprint_after = graph_mem_footprint(device)
    demo.add(f"execs closed (they cuMemFree what their launches left): the pool still holds used "
             f"{demo.footprint_closed.used_current:,} bytes, reserved {demo.footprint_closed.reserved_current:,}; "
             f"after cuDeviceGraphMemTrim used {demo.footprint_after.used_current:,}, reserved "
             f"{demo.footprint_after.reserved_current:,} ({demo.footprint_before.used_current:,} and "
             f"{demo.footprint_before.reserved_current:,} before)",
             demo.footprint_after.used_current <= demo.footprint_before.used_current
             and demo.footprint_after.reserved_current <= demo.footprint_before.reserved_current)
    return demo
