"""The chain with its intermediates allocated inside the graph (graphs.memory): x, y and the output are preallocated;
t1, t2, t3 exist only while the graph runs.

    t1 = alloc;  add(t1, x, y)
    t2 = alloc;  mul(t2, t1, s);  free t1
    t3 = alloc;  sub(t3, t2, y);  free t2        # t1 is freed before t3 is allocated: t3 may take t1's address
                 relu(out, t3);   free t3

One straight line of ten nodes in that order, built explicitly (cuGraphAddMemAllocNode, cuGraphAddKernelNode,
cuGraphAddMemFreeNode) or captured on one stream (cuMemAllocAsync, cuLaunchKernel, cuMemFreeAsync between
cuStreamBeginCapture and cuStreamEndCapture): both give the same topology (graphs.inspect.same_topology) and the same
bits as NumPy. Each intermediate lives from its alloc node to the free node after the op that reads it, so at most
two are live at once; the driver may give t3 the virtual address of t1 (``address_reuse``), and two such graphs
launched on one stream may share their physical memory (``physical_reuse``, read with the footprint attributes).
``demonstrate_unfreed`` shows an allocation a graph does not free: live after the launch, refused at the next launch
without AUTO_FREE_ON_LAUNCH, freed by the next launch with it.

    with Device(0) as dev, MemChain(dev, n=1 << 20) as mc:
        print(mc.verify())     # fresh inputs, poisoned output, one launch, bit-exact against NumPy
        mc.run(5000)           # 5000 cuGraphLaunch calls of the 10-node graph
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core._calls import cu, driver_module
from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, check, positive_int
from ..core.launch import Launch, LaunchConfig, PackedArgs
from ..core.memory import POISON_BITS, validate_size
from ..graphs.build import add_kernel_node, add_memset_node
from ..graphs.capture import capture
from ..graphs.inspect import graph_view, render_text, same_topology
from ..graphs.memory import (
    GraphMemFootprint,
    MemoryGraph,
    SecondExecError,
    UnfreedAllocationError,
    alloc_async,
    free_async,
    graph_mem_footprint,
    require_graph_memory,
    reset_graph_mem_high,
    trim_graph_mem,
)
from .chain import BLOCK, chain_grid, chain_kernels
from .ops import DEFAULT_OPS, Verification, compare_bits, op_arguments, parse_ops, reference

__all__ = ["MemChain", "MEMCHAIN_BUILDS", "build_memchain_graph", "capture_memchain_graph", "AddressReuse",
           "PhysicalReuse", "physical_reuse", "UnfreedDemo", "demonstrate_unfreed", "topology_check"]

MEMCHAIN_BUILDS = ("explicit", "capture")


def _op_launch(kernels, name, dst, src, y, scalar, n, config, stream) -> Launch:
    kname, signature, args = op_arguments([name], src, y, [dst], scalar, n)[0]
    return Launch(kernels[kname], PackedArgs(signature, args), config, stream)


def build_memchain_graph(device, kernels, ops, x, y, out, scalar, n, config, stream) -> tuple[MemoryGraph, list]:
    """The chain of ``ops`` built node by node with its intermediates allocated in the graph.

    Returns (graph, launches); ``graph.allocations`` holds t1, t2, ... in order. Each op's kernel node comes after
    the alloc node of its output; the free node of its input comes after it. Driver calls: cuGraphCreate,
    cuGraphAddMemAllocNode, cuGraphAddKernelNode, cuGraphAddMemFreeNode.
    """
    ops = parse_ops(ops)
    nbytes = n * 4
    graph = MemoryGraph(device)
    try:
        prev, src, launches = [], x, []
        for i, name in enumerate(ops):
            if i < len(ops) - 1:
                a = graph.alloc(nbytes, prev)
                prev, dst = [a.node], a.dptr
            else:
                dst = out
            launch = _op_launch(kernels, name, dst, src, y, scalar, n, config, stream)
            launches.append(launch)
            prev = [add_kernel_node(graph, launch, prev)]
            if i >= 1:  # the op before wrote this op's input: it is read now, free it
                prev = [graph.free(graph.allocations[i - 1], prev)]
            src = dst
        return graph, launches
    except BaseException:
        graph.close()
        raise


def capture_memchain_graph(kernels, ops, x, y, out, scalar, n, config, stream) -> tuple[MemoryGraph, list]:
    """The same chain captured on ``stream``: cuMemAllocAsync before each op that writes an intermediate,
    cuLaunchKernel, cuMemFreeAsync of the op's input after it. Returns (graph, launches); the graph's allocations are
    read back from its alloc and free nodes."""
    ops = parse_ops(ops)
    nbytes = n * 4
    launches, addresses = [], []
    with capture(stream, graph_class=MemoryGraph) as cap:
        src = x
        for i, name in enumerate(ops):
            dst = out
            if i < len(ops) - 1:
                dst = alloc_async(stream, nbytes)  # an alloc node; its address is usable by what follows
                addresses.append(dst)
            launch = _op_launch(kernels, name, dst, src, y, scalar, n, config, stream)
            launches.append(launch)
            launch()
            if i >= 1:
                free_async(stream, addresses[i - 1])  # a free node
            src = dst
    return cap.graph, launches


@dataclass(frozen=True)
class AddressReuse:
    """The intermediates' virtual addresses in one graph and which of them share one.

    ``reused``: (later, earlier) index pairs with the same address; ``overlapping_distinct``: whether every two
    intermediates that are live at the same time (t_i and t_i+1) have different addresses (they must).
    """

    addresses: tuple[int, ...]
    reused: tuple[tuple[int, int], ...]
    overlapping_distinct: bool

    @classmethod
    def of(cls, addresses) -> "AddressReuse":
        addr = tuple(int(a) for a in addresses)
        reused = tuple((j, i) for j in range(len(addr)) for i in range(j) if addr[j] == addr[i])
        distinct = all(addr[i] != addr[i + 1] for i in range(len(addr) - 1))
        return cls(addr, reused, distinct)

    @property
    def ok(self) -> bool:
        """Every intermediate that could reuse a freed one's address (t_j after t_j-2 was freed) did, and none that
        overlaps another did."""
        want = {(j, j - 2) for j in range(2, len(self.addresses))}
        return self.overlapping_distinct and want <= set(self.reused)

    def __str__(self) -> str:
        names = ", ".join(f"t{i + 1} {a:#x}" for i, a in enumerate(self.addresses))
        same = "; ".join(f"t{j + 1} at t{i + 1}'s address" for j, i in self.reused) or "no address reused"
        return f"{names}: {same}"

    def to_dict(self) -> dict:
        return {"addresses": [hex(a) for a in self.addresses], "reused": [list(p) for p in self.reused],
                "overlapping_distinct": self.overlapping_distinct, "ok": self.ok, "text": str(self)}


class MemChain(Resource):
    """The chain over ``n`` float32 with its intermediates allocated inside one graph, on one device.

    Owns (unless given) the chain's kernel set and a stream; owns x, y and the output (cuMemAlloc), the
    MemoryGraph (``how``: "explicit" or "capture") and its executable (``instantiate=False`` leaves that to
    ``instantiate()``, to watch the footprint step by step). ``run(iters)`` enqueues ``iters`` launches;
    ``verify()`` runs once on fresh random inputs with the output poisoned and compares bit for bit with NumPy.
    """

    def __init__(self, device, n: int = 1 << 20, scalar: float = 2.0, *, ops=DEFAULT_OPS, how: str = "explicit",
                 kernels=None, stream=None, seed: int | None = None, instantiate: bool = True):
        self.ops = parse_ops(ops)
        if len(self.ops) < 2:
            raise InvalidArgumentError("a chain with graph-allocated intermediates needs at least two ops")
        if how not in MEMCHAIN_BUILDS:
            raise InvalidArgumentError(f"how must be one of {', '.join(MEMCHAIN_BUILDS)}, got {how!r}")
        self.n = validate_size(n)
        self.scalar = float(scalar)
        if not np.isfinite(np.float32(self.scalar)):
            raise InvalidArgumentError(f"scalar must be a finite float32, got {scalar!r}")
        self.device, self.how = device, how
        self.rng = np.random.default_rng(seed)
        require_graph_memory(device)
        self.exec = None
        try:
            if kernels is None:
                kernels = self.adopt(chain_kernels(device, self.ops))
            self.kernels = kernels
            if stream is None:
                stream = self.adopt(device.create_stream())
            self.stream = stream
            self.x = self.adopt(device.array(self.n))
            self.y = self.adopt(device.array(self.n))
            self.out = self.adopt(device.array(self.n))
            self.grid = chain_grid(self.n, device.sm_count)
            self.config = LaunchConfig(self.grid, BLOCK)
            args = (self.kernels, self.ops, self.x, self.y, self.out, self.scalar, self.n, self.config, stream)
            if how == "explicit":
                graph, self.launches = build_memchain_graph(device, *args)
            else:
                graph, self.launches = capture_memchain_graph(*args)
            self.graph = self.adopt(graph)
            self.randomize()
            if instantiate:
                self.instantiate()
        except BaseException:
            self.close()
            raise

    # --- the graph and its executable -------------------------------------------------------------------------
    @property
    def allocations(self):
        return self.graph.allocations

    @property
    def intermediate_addresses(self) -> tuple[int, ...]:
        return tuple(a.dptr for a in self.graph.allocations)

    def address_reuse(self) -> AddressReuse:
        """Which intermediates share a virtual address (t3 takes t1's: t1 is freed before t3 is allocated)."""
        return AddressReuse.of(self.intermediate_addresses)

    def instantiate(self):
        """The graph's executable, made now if there is none (cuGraphInstantiate); owned by this object."""
        if self.exec is None or self.exec.closed:
            self.require_open()
            self.exec = self.adopt(self.graph.instantiate())
        return self.exec

    def close_exec(self) -> None:
        """Destroy the executable (cuGraphExecDestroy); the graph stays, ``instantiate()`` makes a new one."""
        if self.exec is not None:
            self.exec.close()
            self.exec = None

    def view(self, title: str = "") -> str:
        """The text view of the graph: ten nodes in a line, alloc nodes with size and address."""
        return render_text(graph_view(self.graph), title)

    # --- inputs and checking -----------------------------------------------------------------------------------
    def randomize(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh standard-normal float32 inputs."""
        x = self.rng.standard_normal(self.n, dtype=np.float32)
        y = self.rng.standard_normal(self.n, dtype=np.float32)
        self.x.copy_from(x, self.stream)
        self.y.copy_from(y, self.stream)
        self.x_host, self.y_host, self._expected = x, y, None
        return x, y

    def poison(self) -> None:
        """Fill the output with a NaN pattern, so an element no kernel wrote cannot pass."""
        self.out.poison(self.stream)

    def prepare(self) -> None:
        """Fresh inputs and a poisoned output (before a checked run)."""
        self.randomize()
        self.poison()

    def expected(self) -> np.ndarray:
        if self._expected is None:
            self._expected = reference(self.ops, self.x_host, self.y_host, self.scalar)
        return self._expected

    def check_result(self, label: str = "") -> Verification:
        """Compare the output (waits for the stream) with NumPy on the current inputs."""
        got = self.out.to_numpy(stream=self.stream)
        return compare_bits(label or f"graph memory nodes ({self.how})", got, self.expected())

    def mismatches(self) -> int:
        return self.check_result().mismatches

    def verify(self) -> Verification:
        """Fresh random inputs, poisoned output, one launch, bit-exact comparison with NumPy."""
        self.prepare()
        self.run(1)
        return self.check_result()

    # --- running -----------------------------------------------------------------------------------------------
    def run(self, iters: int) -> None:
        """Enqueue ``iters`` cuGraphLaunch calls of the graph on the chain's stream (no wait); the loop is the
        same as the preallocated chain's graph mode (experiment.runners.Runner.graphs)."""
        positive_int("iterations", iters)
        exe = self.instantiate()
        fn, h, s = exe.fn, exe.handle, self.stream.handle
        for _ in range(iters):
            r = fn(h, s)
            if r[0]:
                check(r, "cuGraphLaunch")

    def describe(self) -> str:
        parts = [f"mul {self.scalar:g}" if op == "mul" else op for op in self.ops]
        return (" -> ".join(parts) + f" on {self.n:,} float32, {len(self.ops) - 1} intermediates allocated in "
                f"the graph ({self.how})")

    def __repr__(self) -> str:
        return f"<MemChain {self.describe()}>"


def topology_check(device, n: int = 1024, *, kernels=None, stream=None, seed=None) -> tuple[bool, str, str, str]:
    """Build the chain explicitly and by capture; returns (same, what differs, explicit view, captured view)."""
    with MemChain(device, n, kernels=kernels, stream=stream, seed=seed, instantiate=False) as a, \
            MemChain(device, n, how="capture", kernels=a.kernels, stream=a.stream, seed=seed,
                     instantiate=False) as b:
        same, diff = same_topology(a.graph, b.graph)
        return same, diff, a.view("explicit"), b.view("captured")


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
                "mismatches": self.mismatches, "reserved_one": self.reserved_one, "reserved_one_stream": self.reserved_one_stream,
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
    footprint_after: GraphMemFootprint | None = None
    footprint_before: GraphMemFootprint | None = None

    def add(self, text: str, ok: bool) -> None:
        self.steps.append({"text": text, "ok": bool(ok)})

    @property
    def ok(self) -> bool:
        return bool(self.steps) and all(s["ok"] for s in self.steps)

    def to_dict(self) -> dict:
        return {"steps": self.steps, "relaunch_error": self.relaunch_error,
                "second_exec_error": self.second_exec_error, "ok": self.ok,
                "footprint_before": self.footprint_before.to_dict() if self.footprint_before else None,
                "footprint_after": self.footprint_after.to_dict() if self.footprint_after else None}


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
    6. closing the execs frees what they left (cuMemFree): the used footprint is back where it started.
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
    demo.footprint_after = graph_mem_footprint(device)
    demo.add(f"execs closed (they cuMemFree what their launches left): used graph memory "
             f"{demo.footprint_after.used_current:,} bytes, {demo.footprint_before.used_current:,} before",
             demo.footprint_after.used_current <= demo.footprint_before.used_current)
    return demo
