"""The chain with its intermediates allocated inside the graph (graphs.memory): x, y and the output are preallocated;
t1, t2, t3 exist only while the graph runs. Four shapes of one chain (``MEMCHAIN_SHAPES``), all bit-exact:

``line`` (ten nodes, one after another; built explicitly or captured on one stream)::

    t1 = alloc;  add(t1, x, y)
    t2 = alloc;  mul(t2, t1, s);  free t1
    t3 = alloc;  sub(t3, t2, y);  free t2        # t1 is freed before t3 is allocated: t3 may take t1's address
                 relu(out, t3);   free t3

``parallel`` (explicit only): the three alloc nodes are roots, side by side; each kernel depends on the kernel
before it and on the alloc node of its output; each free node depends on the last reader of its allocation
(free t1 after mul, free t2 after sub, free t3 after relu), so no node depends on a free node (they are leaves).

``parallel_end`` (explicit only): allocs as in ``parallel``; the three free nodes all depend on relu, the last
kernel (leaves side by side at the end).

``block`` (explicit or captured): one alloc node of one block holding t1, t2, t3 (each at a 256-byte aligned
offset), the four kernels, one free node: a line of six.

What each should cost (device time per launch, beside the preallocated chain's 4-kernel graph). On the H200 a kernel
node on the graph's path costs about 0.5 µs (an empty kernel node; ANCHORS.md) to 1 µs; if a memory node on the path
cost that much, ``line``'s six would add 3-6 µs. Its first H200 run measured +0.87 µs at 2^20 floats (11.00 vs 10.13)
and +1.04 µs at 1,024 (6.02 vs 4.98): about 0.15-0.17 µs per memory node on the path. Counting memory nodes on the
longest path (alloc level, kernels, free level):

* ``line``: 6 memory nodes on the path -> +0.9-1.0 µs (measured: +8.6% at 2^20, +20.8% at 1,024);
* ``parallel``: 2 (one alloc level, free t3); frees t1 and t2 run beside sub and relu -> about +0.3 µs if the
  cost is per node on the path (+3% at 2^20, +6% at 1,024), more if the branches cost joins on the device;
* ``parallel_end``: 2 levels (allocs, the three frees side by side) -> about +0.3 µs, plus any join cost;
* ``block``: 2 memory nodes in a straight line, no branches -> about +0.3 µs; the likeliest best.
  If the cost is per launch of a graph with memory nodes (not per node), all four cost the same +0.9-1.0 µs.
Either way the 2% goal (0.2 µs at 2^20, 0.1 µs at 1,024) is out of reach unless a memory node on the path costs under
0.05-0.1 µs and one off it nothing; the benchmark (bench.graphs.memnodes) measures all four and says which way it went.
What the other shapes give up: in ``line`` t3 reuses t1's memory (8 MiB live at 2^20 floats); ``parallel``,
``parallel_end`` and ``block`` keep all three live (12 MiB), which the pool's 32 MiB steps hide at these sizes.

The line built explicitly (cuGraphAddMemAllocNode, cuGraphAddKernelNode, cuGraphAddMemFreeNode) or captured on one
stream (cuMemAllocAsync, cuLaunchKernel, cuMemFreeAsync between cuStreamBeginCapture and cuStreamEndCapture) gives
the same topology (graphs.inspect.same_topology) and the same bits as NumPy. In ``line`` at most two intermediates
are live at once; the driver may give t3 the virtual address of t1 (``address_reuse``), and two such graphs
launched on one stream may share their physical memory (``physical_reuse``, read with the footprint attributes).
``demonstrate_unfreed`` shows an allocation a graph does not free: live after the launch, refused at the next launch
without AUTO_FREE_ON_LAUNCH, freed by the next launch with it; and the pool keeping the memory after the execs are
destroyed, until cuDeviceGraphMemTrim.

    with Device(0) as dev, MemChain(dev, n=1 << 20, shape="block") as mc:
        print(mc.verify())     # fresh inputs, poisoned output, one launch, bit-exact against NumPy
        mc.run(5000)           # 5000 cuGraphLaunch calls of the 6-node graph
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, check, positive_int
from ..core.launch import Launch, LaunchConfig, PackedArgs
from ..core.memory import validate_size
from ..graphs.build import add_kernel_node
from ..graphs.capture import capture
from ..graphs.inspect import graph_view, render_text, same_topology
from ..graphs.memory import (
    MemoryGraph,
    alloc_async,
    free_async,
    require_graph_memory,
)
from .chain import BLOCK, chain_grid, chain_kernels
from .chain_buffers import ChainBuffers
from .ops import DEFAULT_OPS, Verification, op_arguments, parse_ops

__all__ = ["MemChain", "MEMCHAIN_BUILDS", "MEMCHAIN_SHAPES", "SHAPE_TEXT", "build_memchain_graph",
           "capture_memchain_graph", "AddressReuse", "topology_check", "BLOCK_ALIGN"]

MEMCHAIN_BUILDS = ("explicit", "capture")
MEMCHAIN_SHAPES = ("line", "parallel", "parallel_end", "block")
#: What each shape is, in a few words (the rows of the benchmark's table).
SHAPE_TEXT = {
    "line": "10 nodes in a line",
    "parallel": "allocs as roots, each free after its last reader",
    "parallel_end": "allocs as roots, all frees after the last kernel",
    "block": "one alloc of a 3-buffer block, one free at the end",
}
CAPTURED_SHAPES = ("line", "block")  # the others need forked streams to capture; they are built explicitly
BLOCK_ALIGN = 256  # each intermediate's offset inside the block (cuMemAlloc's alignment)


def _check_shape(shape: str, how: str = "explicit") -> str:
    if shape not in MEMCHAIN_SHAPES:
        raise InvalidArgumentError(f"shape must be one of {', '.join(MEMCHAIN_SHAPES)}, got {shape!r}")
    if how == "capture" and shape not in CAPTURED_SHAPES:
        raise InvalidArgumentError(f"the {shape} shape is built explicitly (how='explicit'); capture builds "
                                   f"{' and '.join(CAPTURED_SHAPES)}")
    return shape


def _check_unroll(unroll, shape: str) -> int:
    unroll = positive_int("unroll", unroll)
    if unroll > 1 and shape != "block":
        raise InvalidArgumentError(f"unroll > 1 needs the block shape (one alloc, one free), got shape {shape!r}")
    return unroll


def _block_stride(nbytes: int) -> int:
    return -(-nbytes // BLOCK_ALIGN) * BLOCK_ALIGN


def _op_launch(kernels, name, dst, src, y, scalar, n, config, stream) -> Launch:
    kname, signature, args = op_arguments([name], src, y, [dst], scalar, n)[0]
    return Launch(kernels[kname], PackedArgs(signature, args), config, stream)


def _chain_launches(kernels, ops, x, y, out, scalar, n, config, stream, intermediates) -> list:
    """One Launch per op: op i writes intermediates[i] (the last op writes ``out``) and reads what op i-1 wrote."""
    launches, src = [], x
    for i, name in enumerate(ops):
        dst = intermediates[i] if i < len(ops) - 1 else out
        launches.append(_op_launch(kernels, name, dst, src, y, scalar, n, config, stream))
        src = dst
    return launches


def build_memchain_graph(device, kernels, ops, x, y, out, scalar, n, config, stream,
                         shape: str = "line", unroll: int = 1) -> tuple[MemoryGraph, list, tuple]:
    """The chain of ``ops`` built node by node with its intermediates allocated in the graph, in ``shape``.

    Returns (graph, launches, intermediates): ``graph.allocations`` holds its alloc nodes in order (t1, t2, ... or
    the one block), ``intermediates`` the address each op but the last writes. In every shape each kernel node
    comes after the alloc node of the memory it touches and before its free node. ``unroll`` (``block`` only):
    that many chain iterations between the one alloc node and the one free node, so that the memory nodes' cost
    per graph launch is shared by ``unroll`` iterations. Driver calls: cuGraphCreate, cuGraphAddMemAllocNode,
    cuGraphAddKernelNode, cuGraphAddMemFreeNode.
    """
    ops = parse_ops(ops)
    _check_shape(shape)
    unroll = _check_unroll(unroll, shape)
    nbytes, k = n * 4, len(ops) - 1  # k intermediates
    graph = MemoryGraph(device)
    try:
        if shape == "block":
            stride = _block_stride(nbytes)
            blk = graph.alloc(stride * k)
            inter = tuple(blk.dptr + i * stride for i in range(k))
            launches = _chain_launches(kernels, ops, x, y, out, scalar, n, config, stream, inter)
            prev = [blk.node]
            for _ in range(unroll):
                for launch in launches:
                    prev = [add_kernel_node(graph, launch, prev)]
            graph.free(blk, prev)
            return graph, launches, inter
        if shape == "line":
            prev, inter, launches = [], [], []
            for i, name in enumerate(ops):
                if i < k:
                    a = graph.alloc(nbytes, prev)
                    prev = [a.node]
                    inter.append(a.dptr)
                dst = inter[i] if i < k else out
                src = x if i == 0 else inter[i - 1]
                launch = _op_launch(kernels, name, dst, src, y, scalar, n, config, stream)
                launches.append(launch)
                prev = [add_kernel_node(graph, launch, prev)]
                if i >= 1:  # the op before wrote this op's input: it is read now, free it
                    prev = [graph.free(graph.allocations[i - 1], prev)]
            return graph, launches, tuple(inter)
        # parallel, parallel_end: every alloc a root; kernel i after kernel i-1 and the alloc of its output
        allocs = [graph.alloc(nbytes) for _ in range(k)]
        inter = tuple(a.dptr for a in allocs)
        launches = _chain_launches(kernels, ops, x, y, out, scalar, n, config, stream, inter)
        nodes = []
        for i, launch in enumerate(launches):
            deps = ([nodes[-1]] if nodes else []) + ([allocs[i].node] if i < k else [])
            nodes.append(add_kernel_node(graph, launch, deps))
        for i, a in enumerate(allocs):  # t_i+1 is last read by kernel i+1
            graph.free(a, [nodes[-1] if shape == "parallel_end" else nodes[i + 1]])
        return graph, launches, inter
    except BaseException:
        graph.close()
        raise


def capture_memchain_graph(kernels, ops, x, y, out, scalar, n, config, stream,
                           shape: str = "line") -> tuple[MemoryGraph, list, tuple]:
    """The same chain captured on ``stream`` (``line`` or ``block``): cuMemAllocAsync before each op that writes an
    intermediate (``block``: one cuMemAllocAsync first), cuLaunchKernel, cuMemFreeAsync of the op's input after it
    (``block``: one at the end). Returns (graph, launches, intermediates); the graph's allocations are read back
    from its alloc and free nodes."""
    ops = parse_ops(ops)
    _check_shape(shape, "capture")
    nbytes, k = n * 4, len(ops) - 1
    launches, inter = [], []
    with capture(stream, graph_class=MemoryGraph) as cap:
        if shape == "block":
            stride = _block_stride(nbytes)
            base = alloc_async(stream, stride * k)  # one alloc node
            inter = [base + i * stride for i in range(k)]
            launches = _chain_launches(kernels, ops, x, y, out, scalar, n, config, stream, inter)
            for launch in launches:
                launch()
            free_async(stream, base)  # one free node
        else:
            for i, name in enumerate(ops):
                if i < k:
                    inter.append(alloc_async(stream, nbytes))  # an alloc node; its address is usable after it
                dst = inter[i] if i < k else out
                src = x if i == 0 else inter[i - 1]
                launch = _op_launch(kernels, name, dst, src, y, scalar, n, config, stream)
                launches.append(launch)
                launch()
                if i >= 1:
                    free_async(stream, inter[i - 1])  # a free node
    return cap.graph, launches, tuple(inter)


@dataclass(frozen=True)
class AddressReuse:
    """The intermediates' virtual addresses in one graph and which of them share one.

    ``reused``: (later, earlier) index pairs with the same address; ``overlapping_distinct``: whether every two
    intermediates that are live at the same time have different addresses (they must); ``expected``: the pairs
    that should share one (in ``line``, t_j takes t_j-2's address, freed before t_j is allocated; in the other
    shapes all intermediates are live together, so none).
    """

    addresses: tuple[int, ...]
    reused: tuple[tuple[int, int], ...]
    overlapping_distinct: bool
    expected: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, addresses, shape: str = "line") -> "AddressReuse":
        addr = tuple(int(a) for a in addresses)
        reused = tuple((j, i) for j in range(len(addr)) for i in range(j) if addr[j] == addr[i])
        if shape == "line":  # t_i and t_i+1 are live together; t_j is allocated after t_j-2 is freed
            distinct = all(addr[i] != addr[i + 1] for i in range(len(addr) - 1))
            expected = tuple((j, j - 2) for j in range(2, len(addr)))
        else:  # all live from the first kernel to their frees
            distinct, expected = len(set(addr)) == len(addr), ()
        return cls(addr, reused, distinct, expected)

    @property
    def ok(self) -> bool:
        """Every expected reuse happened, and no two intermediates that are live together share an address."""
        return self.overlapping_distinct and set(self.expected) <= set(self.reused)

    def __str__(self) -> str:
        names = ", ".join(f"t{i + 1} {a:#x}" for i, a in enumerate(self.addresses))
        same = "; ".join(f"t{j + 1} at t{i + 1}'s address" for j, i in self.reused) or "no address reused"
        return f"{names}: {same}"

    def to_dict(self) -> dict:
        return {"addresses": [hex(a) for a in self.addresses], "reused": [list(p) for p in self.reused],
                "expected": [list(p) for p in self.expected], "overlapping_distinct": self.overlapping_distinct,
                "ok": self.ok, "text": str(self)}


class MemChain(ChainBuffers, Resource):
    """The chain over ``n`` float32 with its intermediates allocated inside one graph, on one device.

    Owns (unless given) the chain's kernel set and a stream; owns x, y and the output (cuMemAlloc), the
    MemoryGraph (``shape``: one of MEMCHAIN_SHAPES; ``how``: "explicit" or "capture", the latter for "line" and
    "block") and its executable (``instantiate=False`` leaves that to ``instantiate()``, to watch the footprint
    step by step; ``unroll`` > 1, block shape only: that many chain iterations per graph between its one alloc and
    one free node). ``run(iters)`` enqueues ``iters`` launches (each ``unroll`` iterations);
    ``verify()`` runs once on fresh random inputs with the output poisoned and compares bit for bit with NumPy.
    """

    def __init__(self, device, n: int = 1 << 20, scalar: float = 2.0, *, ops=DEFAULT_OPS, how: str = "explicit",
                 shape: str = "line", kernels=None, stream=None, seed: int | None = None, instantiate: bool = True,
                 unroll: int = 1):
        self.ops = parse_ops(ops)
        if len(self.ops) < 2:
            raise InvalidArgumentError("a chain with graph-allocated intermediates needs at least two ops")
        if how not in MEMCHAIN_BUILDS:
            raise InvalidArgumentError(f"how must be one of {', '.join(MEMCHAIN_BUILDS)}, got {how!r}")
        self.shape = _check_shape(shape, how)
        self.unroll = _check_unroll(unroll, self.shape)
        if self.unroll > 1 and how != "explicit":
            raise InvalidArgumentError("unroll > 1 is built explicitly (how='explicit')")
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
                graph, self.launches, inter = build_memchain_graph(device, *args, shape=shape, unroll=self.unroll)
            else:
                graph, self.launches, inter = capture_memchain_graph(*args, shape=shape)
            self.graph = self.adopt(graph)
            self._intermediates = tuple(int(a) for a in inter)
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
        """The address each op but the last writes (t1, t2, ...; in ``block``, offsets into the one allocation)."""
        return self._intermediates

    def address_reuse(self) -> AddressReuse:
        """Which intermediates share a virtual address (in ``line`` t3 takes t1's: t1 is freed before t3 is
        allocated; in the other shapes all are live together and none may)."""
        return AddressReuse.of(self.intermediate_addresses, self.shape)

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
        """The text view of the graph (``line``: ten nodes in a line), alloc nodes with size and address."""
        return render_text(graph_view(self.graph), title)

    # --- inputs and checking (randomize, poison, prepare, expected: chain_buffers.ChainBuffers) ------------------
    def output_buffers(self):
        """The one output (the intermediates live in the graph's own allocations)."""
        return (self.out,)

    def check_result(self, label: str = "") -> Verification:
        """Compare the output (waits for the stream) with NumPy on the current inputs."""
        got = self.out.to_numpy(stream=self.stream)
        return self.compare(label or f"graph memory nodes ({self.shape}, {self.how})", got)

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
        per = f", {self.unroll} iterations per graph" if self.unroll > 1 else ""
        return (" -> ".join(parts) + f" on {self.n:,} float32, {len(self.ops) - 1} intermediates allocated in "
                f"the graph ({self.shape}: {SHAPE_TEXT[self.shape]}; {self.how}{per})")

    def __repr__(self) -> str:
        return f"<MemChain {self.describe()}>"


def topology_check(device, n: int = 1024, *, kernels=None, stream=None, seed=None) -> tuple[bool, str, str, str]:
    """Build the chain explicitly and by capture; returns (same, what differs, explicit view, captured view)."""
    with MemChain(device, n, kernels=kernels, stream=stream, seed=seed, instantiate=False) as a, \
            MemChain(device, n, how="capture", kernels=a.kernels, stream=a.stream, seed=seed,
                     instantiate=False) as b:
        same, diff = same_topology(a.graph, b.graph)
        return same, diff, a.view("explicit"), b.view("captured")

