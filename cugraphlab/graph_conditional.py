"""Conditional graph nodes: a loop (WHILE) and a branch (IF) decided on the GPU, with no trip back to Python.

A conditional node owns a body graph and a *handle*, a small integer condition that kernels set with the device
builtin ``cudaGraphSetConditional(handle, value)`` (kernels/conditional.cu). A WHILE node runs its body as long as
the condition is non-zero (checked when the node starts and after every body run); an IF node runs its body once
when it is non-zero. Built through the driver API, explicitly:

    parent graph:  MEMSET (zero the loop state) -> CONDITIONAL (WHILE, handle h, default value 1)
    body graph:    KERNEL add -> KERNEL mul -> KERNEL sub -> KERNEL relu -> KERNEL conditional(h, state, N)

The last body kernel counts the iteration in device memory and sets the condition to ``count < N``, so one
``cuGraphLaunch`` runs the chain N times. The threshold variant instead adds the sum of the first outputs to a
running total and stops once it reaches a threshold, a stopping point only the GPU's numbers decide; the host
predicts it with NumPy float32 and the tests compare. The IF graph runs the chain only when a device flag is set.

cuda-bindings 13 spellings: ``cuGraphConditionalHandleCreate(graph, ctx, defaultLaunchValue, flags)``;
``cuGraphAddNode(graph, dependencies, edgeData, count, CUgraphNodeParams)``, after which the body graph is
``params.conditional.phGraph_out[0]`` (owned by the node: never destroyed on its own).
"""
from __future__ import annotations

import ctypes
import os
import sys
import time
import weakref
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .bench.stats import Summary, summarize
from .calls import cu, driver_fn, driver_module
from .chain import DEFAULT_OPS, Chain, Verification, compare_bits, parse_ops
from .errors import InvalidArgumentError, UnsupportedError, check, positive_int
from .graph import Graph, GraphExec, capture, node_kind, ready_exec
from .launch import Launch, PackedArgs
from .memory import POISON_BITS, validate_size
from .resource import Resource

__all__ = [
    "HEADER",
    "cuda_include_dir",
    "conditional_options",
    "require_conditional",
    "load_conditional_kernels",
    "predict_until",
    "LoopState",
    "LoopCheck",
    "ConditionalGraphs",
    "conditional_graphs",
    "build_while_graph",
    "LoopVariant",
    "WhileResult",
    "measure_while",
    "WALL_CLOCK",
    "DEVICE_CLOCK",
]

HEADER = "cuda_device_runtime_api.h"
WALL_CLOCK = "perf_counter_ns (host wall clock, first launch to end-event sync)"
DEVICE_CLOCK = "cuEventElapsedTime (CUDA events on the chain's stream around the whole loop)"
# Grid of the one-thread decision kernels: one warp, only thread 0 works.
_DECIDE_GRID, _DECIDE_BLOCK = 1, 32
_NO_LIMIT = (1 << 63) - 1
_STATE_WORDS = 4  # struct CglLoopState: u64 count, f32 acc, u32 keep_going


# --- finding the toolkit header ----------------------------------------------------------------------------------
def _header_candidates() -> list[Path]:
    out: list[Path] = []
    try:  # cuda.pathfinder knows the pip wheels, conda and CUDA_HOME/CUDA_PATH (newer releases only)
        from cuda import pathfinder

        find = getattr(pathfinder, "find_nvidia_header_directory", None)
        if find is not None:
            found = find("cudart")
            if found:
                out.append(Path(found))
    except Exception:  # an old pathfinder, or one that refuses "cudart": fall through to the usual places
        pass
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        if os.environ.get(var):
            out.append(Path(os.environ[var]) / "include")
    out.append(Path("/usr/local/cuda/include"))
    for base in sys.path:  # pip wheels: nvidia/cu13/include (cuda-toolkit 13) or nvidia/cuda_runtime/include (12)
        if base and base.endswith("-packages"):
            out += [Path(base) / "nvidia" / "cu13" / "include", Path(base) / "nvidia" / "cuda_runtime" / "include"]
    return out


# The header and what it includes: some pip wheels (nvidia/cu13/include next to NVRTC) carry the header alone.
_NEEDED = (HEADER, "driver_types.h", "crt/host_defines.h")


def cuda_include_dir() -> str | None:
    """A folder holding cuda_device_runtime_api.h and the headers it includes (a CUDA include folder), or None."""
    for d in _header_candidates():
        if all((d / f).is_file() for f in _NEEDED):
            return str(d)
    return None


def conditional_options() -> tuple[str, ...]:
    """NVRTC options for kernels/conditional.cu: the toolkit header when found (required then), else none.

    Without the header the source declares the two names itself, as the header does (same cubin, byte for byte).
    """
    inc = cuda_include_dir()
    return (f"-I{inc}", "-DCGL_REQUIRE_CUDART_HEADER") if inc else ()


def require_conditional(device=None) -> None:
    """UnsupportedError unless the bindings and the driver can build WHILE/IF conditional nodes (CUDA 12.3+)."""
    d = driver_module()
    missing = [n for n in ("cuGraphConditionalHandleCreate", "cuGraphAddNode") if not hasattr(d, n)]
    if missing or not hasattr(d, "CUgraphConditionalNodeType"):
        raise UnsupportedError(f"these cuda-bindings lack {', '.join(missing) or 'CUgraphConditionalNodeType'}: "
                               "conditional graph nodes need cuda-bindings 12.3 or newer")
    if device is not None:
        from .driver import driver_version

        if driver_version() < (12, 3):
            raise UnsupportedError("conditional graph nodes need a driver for CUDA 12.3 or newer; this one "
                                   "supports CUDA %d.%d" % driver_version())


def load_conditional_kernels(device, cache=None):
    """kernels/conditional.cu compiled for ``device`` and loaded; ``ks["cond_until"]`` etc. work as well."""
    from .module import KernelSet

    ks = KernelSet.load(device, names=["conditional"], options=conditional_options(), cache=cache)
    module = ks.modules["conditional"]
    for name in ("cond_until", "cond_if_flag"):
        ks.kernels[name] = module.kernel(name)
    return ks


def predict_until(out: np.ndarray, threshold: float, probe: int, limit: int) -> tuple[int, float]:
    """(iterations, total) the threshold loop stops at, computed on the host exactly as cond_until rounds.

    Each iteration adds s = out[0] + ... + out[probe-1] (summed in order in float32) to a float32 total; the loop
    goes on while total < threshold and fewer than ``limit`` iterations ran.
    """
    s = np.float32(0)
    for v in np.asarray(out[:probe], dtype=np.float32):
        s = np.float32(s + v)
    t = np.float32(threshold)
    acc, count = np.float32(0), 0
    while True:
        acc = np.float32(acc + s)
        count += 1
        if not (acc < t and count < limit):
            return count, float(acc)


# --- results of one loop ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LoopState:
    """What the decision kernels left in device memory after a loop."""

    count: int  # body iterations that ran
    acc: float  # running total of the threshold loop
    keep_going: int  # the last decision


@dataclass(frozen=True)
class LoopCheck:
    """A conditional graph's run checked: how often the body ran against the expectation, and the output's bits."""

    kind: str  # "WHILE", "WHILE threshold", "IF set", "IF clear"
    expected_iterations: int
    iterations: int
    output: Verification

    @property
    def ok(self) -> bool:
        return self.iterations == self.expected_iterations and self.output.ok

    def __str__(self) -> str:
        runs = f"body ran {self.iterations}x (expected {self.expected_iterations})"
        return f"{self.kind}: {runs}; {self.output}"


class _PinnedWords(Resource):
    """A few page-locked host words (cuMemAllocHost), so the loop driven from Python copies back at full speed."""

    def __init__(self, words: int):
        self.nbytes = 4 * words
        self.ptr = int(cu("cuMemAllocHost", self.nbytes))
        ptr = self.ptr
        self._own(lambda: cu("cuMemFreeHost", ptr))
        self.words = np.ctypeslib.as_array((ctypes.c_uint32 * words).from_address(ptr))
        self.count = (ctypes.c_uint64 * 1).from_address(ptr)


def _validate_count(name: str, v) -> int:
    return positive_int(name, v)


class ConditionalGraphs(Resource):
    """Builds, runs and checks graphs with conditional nodes around one :class:`Chain` (same buffers, same kernels).

    Owns the conditional kernels, the 16-byte loop state, the IF flag and every executable graph it made.
    ``build_while(N)``, ``build_until(threshold)`` and ``build_if()`` return (Graph, info) for inspection;
    ``run_while``, ``run_until`` and ``run_if`` run on fresh random inputs with poisoned outputs and check.
    """

    def __init__(self, chain: Chain, *, kernels=None):
        self.chain = chain
        self.device = device = chain.device
        require_conditional(device)
        self._owned: list[Resource] = []
        self._execs: dict[tuple, GraphExec] = {}
        self._keep: list[PackedArgs] = []
        self._own(self._release)
        try:
            self.header_dir = cuda_include_dir()
            if kernels is None:
                kernels = load_conditional_kernels(device)
                self._owned.append(kernels)
            self.kernels = kernels
            self.state = device.array(_STATE_WORDS, "uint32")
            self._owned.append(self.state)
            self.flag = device.array(1, "uint32")
            self._owned.append(self.flag)
            self.state.fill_bits(0)
            self.flag.fill_bits(0)
            self._host = _PinnedWords(_STATE_WORDS)
            self._owned.append(self._host)
        except BaseException:
            self.close()
            raise

    def _release(self) -> None:
        for exe in list(self._execs.values()):
            exe.close()
        self._execs.clear()
        for r in reversed(self._owned):
            r.close()

    # --- state ---------------------------------------------------------------------------------------------------
    def read_state(self) -> LoopState:
        """The loop state in device memory (waits for the device)."""
        w = self.state.to_numpy()
        return LoopState(int(w[:2].view(np.uint64)[0]), float(w[2:3].view(np.float32)[0]), int(w[3]))

    def set_flag(self, value: bool) -> None:
        """Set the device flag the IF graph tests."""
        self.chain.stream.synchronize()
        self.flag.copy_from(np.array([1 if value else 0], dtype=np.uint32))

    # --- graph construction ----------------------------------------------------------------------------------
    def _kernel_node(self, graph, deps: list, kernel, args: PackedArgs, grid, block):
        from .launch import _dims

        d = driver_module()
        p = d.CUDA_KERNEL_NODE_PARAMS()
        p.func = kernel.handle
        p.gridDimX, p.gridDimY, p.gridDimZ = _dims(grid)
        p.blockDimX, p.blockDimY, p.blockDimZ = _dims(block)
        p.sharedMemBytes = 0
        p.kernelParams = args.address  # copied by the driver when the node is made; kept alive anyway
        p.ctx = self.device.context  # every node of a conditional body must run in the handle's context
        self._keep.append(args)
        return cu("cuGraphAddKernelNode", graph, deps or None, len(deps), p)

    def _chain_nodes(self, body) -> list:
        nodes, prev = [], []
        for launch in self.chain.launches:
            node = self._kernel_node(body, prev, launch.kernel, launch.args, launch.grid, launch.block)
            nodes.append(node)
            prev = [node]
        return nodes

    def _reset_node(self, graph):
        d = driver_module()
        m = d.CUDA_MEMSET_NODE_PARAMS()
        m.dst = self.state.handle
        m.elementSize = 4
        m.width = _STATE_WORDS
        m.height = 1
        m.pitch = 0
        m.value = 0
        return cu("cuGraphAddMemsetNode", graph, None, 0, m, self.device.context)

    def _handle(self, graph, default: int | None):
        """A conditional handle of ``graph``; with ``default`` it is set to that value at the start of each launch."""
        d = driver_module()
        flags = int(d.CU_GRAPH_COND_ASSIGN_DEFAULT) if default is not None else 0
        return cu("cuGraphConditionalHandleCreate", graph, self.device.context, default or 0, flags)

    def _conditional_node(self, graph, deps: list, kind: str, handle):
        """(node, body graph handle) of a new WHILE or IF node controlled by ``handle``."""
        d = driver_module()
        p = d.CUgraphNodeParams()
        p.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
        p.conditional.handle = handle
        p.conditional.type = getattr(d.CUgraphConditionalNodeType, f"CU_GRAPH_COND_TYPE_{kind}")
        p.conditional.size = 1
        p.conditional.ctx = self.device.context
        node = cu("cuGraphAddNode", graph, deps or None, None, len(deps), p)
        body = p.conditional.phGraph_out[0]  # written by the driver into our params; owned by the node
        if not int(body):
            raise UnsupportedError("the driver made a conditional node without a body graph")
        return node, body

    def _finish(self, graph: Graph, kind: str, body, extra: dict) -> tuple[Graph, dict]:
        info = {
            "kind": kind,
            "parent": graph.topology().describe(),
            "body": _describe_handle(body),
            "chain": self.chain.describe(),
            "header": self.header_dir or "none found: declarations built into kernels/conditional.cu",
        }
        info.update(extra)
        return graph, info

    def build_while(self, iterations: int) -> tuple[Graph, dict]:
        """A graph whose WHILE node runs the chain exactly ``iterations`` times per launch (counted on the GPU)."""
        n = _validate_count("iterations", iterations)
        graph = Graph(self.device)
        try:
            reset = self._reset_node(graph.handle)
            handle = self._handle(graph.handle, default=1)  # the body runs at least once per launch
            _node, body = self._conditional_node(graph.handle, [reset], "WHILE", handle)
            last = self._chain_nodes(body)[-1]
            args = PackedArgs(("u64", "ptr", "u64", "i32"), (int(handle), self.state, n, 1))
            self._kernel_node(body, [last], self.kernels["conditional"], args, _DECIDE_GRID, _DECIDE_BLOCK)
        except BaseException:
            graph.close()
            raise
        return self._finish(graph, "WHILE", body, {
            "iterations": n,
            "stop": f"decide kernel `conditional` counts iterations in device memory; stops at {n}",
        })

    def build_until(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> tuple[Graph, dict]:
        """A WHILE graph that stops once the running total of the first ``probe`` outputs reaches ``threshold``."""
        limit = _validate_count("max_iterations", max_iterations)
        probe = min(_validate_count("probe", probe), self.chain.n)
        thr = np.float32(threshold)
        if not np.isfinite(thr):
            raise InvalidArgumentError(f"threshold must be a finite float32, got {threshold!r}")
        graph = Graph(self.device)
        try:
            reset = self._reset_node(graph.handle)
            handle = self._handle(graph.handle, default=1)  # the body runs at least once per launch
            _node, body = self._conditional_node(graph.handle, [reset], "WHILE", handle)
            last = self._chain_nodes(body)[-1]
            args = PackedArgs(("u64", "ptr", "ptr", "u64", "f32", "u64", "i32"),
                              (int(handle), self.state, self.chain.out, probe, float(thr), limit, 1))
            self._kernel_node(body, [last], self.kernels["cond_until"], args, _DECIDE_GRID, _DECIDE_BLOCK)
        except BaseException:
            graph.close()
            raise
        return self._finish(graph, "WHILE threshold", body, {
            "threshold": float(thr), "probe": probe, "max_iterations": limit,
            "stop": f"decide kernel `cond_until` adds sum(out[:{probe}]) to a total; stops once it reaches "
                    f"{float(thr):g} (or after {limit} iterations)",
        })

    def build_if(self) -> tuple[Graph, dict]:
        """A graph whose IF node runs the chain once when the device flag (``set_flag``) is non-zero."""
        graph = Graph(self.device)
        try:
            # No default value: the setter kernel upstream of the IF node decides at every launch.
            handle = self._handle(graph.handle, default=None)
            args = PackedArgs(("u64", "ptr"), (int(handle), self.flag))
            setter = self._kernel_node(graph.handle, [], self.kernels["cond_if_flag"], args, _DECIDE_GRID,
                                       _DECIDE_BLOCK)
            _node, body = self._conditional_node(graph.handle, [setter], "IF", handle)
            self._chain_nodes(body)
        except BaseException:
            graph.close()
            raise
        return self._finish(graph, "IF", body, {"stop": "kernel `cond_if_flag` sets the condition from the flag"})

    def _exec(self, key: tuple, build) -> GraphExec:
        exe = self._execs.get(key)
        if exe is None:
            graph, _info = build()
            exe = self._execs[key] = ready_exec(graph, self.chain.stream)
        return exe

    def while_exec(self, iterations: int) -> GraphExec:
        return self._exec(("while", int(iterations)), lambda: self.build_while(iterations))

    def until_exec(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> GraphExec:
        key = ("until", float(np.float32(threshold)), int(max_iterations), int(probe))
        return self._exec(key, lambda: self.build_until(threshold, max_iterations, probe))

    def if_exec(self) -> GraphExec:
        return self._exec(("if",), self.build_if)

    def step_exec(self) -> GraphExec:
        """The chain plus the counting kernel (not setting any condition): one iteration of the Python-driven loop."""
        def build():
            step = Launch(self.kernels["conditional"],
                          PackedArgs(("u64", "ptr", "u64", "i32"), (0, self.state, _NO_LIMIT, 0)),
                          _DECIDE_GRID, _DECIDE_BLOCK, self.chain.stream)
            self._keep.append(step.args)
            with capture(self.chain.stream) as cap:
                for launch in self.chain.launches:
                    launch()
                step()
            return cap.graph, {}

        return self._exec(("step",), build)

    # --- running and checking ----------------------------------------------------------------------------------
    def _fresh(self) -> None:
        self.chain.randomize()
        self.chain.poison()
        self.state.poison()  # the graph's memset node must clear it: a stale count cannot pass

    def run_while(self, iterations: int) -> LoopCheck:
        """One launch of the WHILE graph on fresh inputs; the body must run ``iterations`` times, bit-exact output."""
        exe = self.while_exec(iterations)
        self._fresh()
        exe.launch(self.chain.stream)
        got = self.read_state().count
        return LoopCheck("WHILE", int(iterations), got, self.chain.check_result("graph"))

    def run_until(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> LoopCheck:
        """One launch of the threshold loop; it must stop where NumPy predicts, with a bit-exact output."""
        exe = self.until_exec(threshold, max_iterations, probe)
        self._fresh()
        exe.launch(self.chain.stream)
        got = self.read_state()
        want, want_acc = predict_until(self.chain.expected(), threshold, min(probe, self.chain.n), max_iterations)
        out = self.chain.check_result("graph")
        if out.ok and got.count == want and np.float32(got.acc).view(np.uint32) != np.float32(want_acc).view(
                np.uint32):
            out = Verification("WHILE threshold total", 1, 1, 0, got.acc, want_acc)
        return LoopCheck("WHILE threshold", want, got.count, out)

    def run_if(self, flag: bool) -> LoopCheck:
        """One launch of the IF graph with the flag set or clear: the chain runs once, or its output stays poisoned."""
        exe = self.if_exec()
        self.chain.randomize()
        self.chain.poison()
        self.set_flag(flag)
        exe.launch(self.chain.stream)
        got = self.chain.result("graph")
        if flag:
            out = compare_bits("IF set", got, self.chain.expected())
        else:
            poison = np.full(self.chain.n, POISON_BITS, dtype=np.uint32).view(np.float32)
            out = compare_bits("IF clear (output untouched)", got, poison)
        ran = 0 if (got.view(np.uint32) == POISON_BITS).all() else 1
        return LoopCheck("IF set" if flag else "IF clear", 1 if flag else 0, ran, out)

    def run_host_loop(self, iterations: int) -> int:
        """The same loop driven from Python: per iteration, launch the step graph, copy the state back to pinned
        host memory, wait, and decide on the host. Returns the iterations run (enqueues and waits)."""
        n = _validate_count("iterations", iterations)
        exe = self.step_exec()
        launch, copy, sync = driver_fn("cuGraphLaunch"), driver_fn("cuMemcpyDtoHAsync"), driver_fn(
            "cuStreamSynchronize")
        h, s = exe.handle, self.chain.stream.handle
        dst, src, nbytes, counter = self._host.ptr, self.state.handle, self._host.nbytes, self._host.count
        cu("cuMemsetD32Async", src, 0, _STATE_WORDS, s)
        count = 0
        while count < n:  # the host's decision, from the counter the GPU wrote
            r = launch(h, s)
            if r[0]:
                check(r, "cuGraphLaunch")
            r = copy(dst, src, nbytes, s)
            if r[0]:
                check(r, "cuMemcpyDtoHAsync")
            r = sync(s)
            if r[0]:
                check(r, "cuStreamSynchronize")
            count = counter[0]
        return count

    def __repr__(self) -> str:
        return f"<ConditionalGraphs over {self.chain.describe()}>"


def _describe_handle(graph_handle) -> str:
    """Nodes of a graph we do not own (a conditional body), in driver order, with their edges."""
    count = cu("cuGraphGetNodes", graph_handle, 0)[1]
    nodes = list(cu("cuGraphGetNodes", graph_handle, count)[0][:count]) if count else []
    from .graph import _kernel_name

    labels = []
    for n in nodes:
        kind = node_kind(n)
        labels.append(f"{kind}:{_kernel_name(n)}" if kind == "KERNEL" else kind)
    ecount = cu("cuGraphGetEdges", graph_handle, 0)[-1]
    edges = []
    if ecount:
        r = cu("cuGraphGetEdges", graph_handle, ecount)
        index = {int(n): i for i, n in enumerate(nodes)}
        edges = [(index[int(a)], index[int(b)]) for a, b in zip(r[0][:ecount], r[1][:ecount])]
    lines = [f"{len(nodes)} nodes, {len(edges)} edges"]
    for i, label in enumerate(labels):
        after = [str(a) for a, b in edges if b == i]
        lines.append(f"  [{i}] {label}" + (f"  <- {', '.join(after)}" if after else ""))
    return "\n".join(lines)


# One ConditionalGraphs per Chain, owned by the chain (closed with it, before its buffers), made on first use.
_BY_CHAIN: "weakref.WeakKeyDictionary[Chain, ConditionalGraphs]" = weakref.WeakKeyDictionary()


def conditional_graphs(chain: Chain) -> ConditionalGraphs:
    """The ConditionalGraphs of ``chain``, made on first use and closed when the chain is closed."""
    kit = _BY_CHAIN.get(chain)
    if kit is None or kit.closed:
        chain._require_open()
        kit = ConditionalGraphs(chain)
        # Executables made from these graphs use the conditional kernels and the loop state by address, and may
        # outlive the Graph objects: tie their lifetime to the chain, whose buffers they use as well.
        chain._owned.append(kit)
        _BY_CHAIN[chain] = kit
    return kit


def build_while_graph(chain: Chain | None = None, iterations: int = 1, *, device=None, ops=DEFAULT_OPS,
                      size: int = 1 << 20) -> tuple[Graph, dict]:
    """A new Graph (owned by the caller) whose WHILE node runs ``chain`` ``iterations`` times, and a description.

    The info dict (plain values) has "kind", "iterations", "parent" and "body" (node lists), "stop" and "header".
    After launching an instance, ``conditional_graphs(chain).read_state().count`` is the iterations that ran.
    Without a chain, pass ``device`` (and optionally ``ops``, ``size``): a Chain is made for the graph and closed
    with it.
    """
    if chain is not None:
        return conditional_graphs(chain).build_while(iterations)
    if device is None:
        raise InvalidArgumentError("build_while_graph needs a chain, or a device to make one on")
    chain = Chain(device, ops, size)
    try:
        graph, info = conditional_graphs(chain).build_while(iterations)
    except BaseException:
        chain.close()
        raise
    # The caller owns the graph only: let closing it close the chain made for it too.
    destroy = graph._release
    graph._finalizer.detach()

    def release() -> None:
        try:
            destroy()
        finally:
            chain.close()

    graph._own(release)
    return graph, info


# --- measurement --------------------------------------------------------------------------------------------------
@dataclass
class LoopVariant:
    name: str
    how: str  # the driver calls that drive it
    wall_us_per_iter: Summary
    device_us_per_iter: Summary
    iterations_ok: bool  # the body ran exactly the asked number of times in every repeat
    verified: bool  # output bit-exact in every repeat
    mismatches: int


@dataclass
class WhileResult:
    config: dict
    variants: list[LoopVariant]
    checks: list[dict]  # threshold loop and IF node, each {"kind", "expected_iterations", "iterations", "ok", ...}
    env: dict
    clocks: dict = field(default_factory=lambda: {"wall": WALL_CLOCK, "device": DEVICE_CLOCK})
    kind: str = "cugraphlab.conditional"

    def variant(self, name: str) -> LoopVariant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def verified(self) -> bool:
        return all(v.verified and v.iterations_ok for v in self.variants) and all(c["ok"] for c in self.checks)

    def to_dict(self) -> dict:
        return asdict(self)


def _check_dict(c: LoopCheck) -> dict:
    return {"kind": c.kind, "expected_iterations": c.expected_iterations, "iterations": c.iterations,
            "output_ok": c.output.ok, "mismatches": c.output.mismatches, "ok": c.ok, "text": str(c)}


def measure_while(device=0, size: int = 1 << 20, iterations: int = 1000, repeats: int = 5, *, ops=DEFAULT_OPS,
                  scalar: float = 2.0, threshold: float = 1000.0, seed: int | None = None,
                  progress=None) -> WhileResult:
    """µs per loop iteration: a WHILE node deciding on the GPU vs the same loop decided in Python each iteration.

    Variants, interleaved per repeat on fresh inputs with poisoned outputs and each checked (count and bits):
    "WHILE node" (one cuGraphLaunch for all iterations), "Python loop" (per iteration: cuGraphLaunch of chain +
    counting kernel, cuMemcpyDtoHAsync of the counter, cuStreamSynchronize, host decision) and, as the floor
    without any decision, "graphs, no decision" (the chain graph launched ``iterations`` times back to back).
    Then the threshold loop and the IF node are run once each and checked.
    """
    from .driver import Device
    from .environment import collect

    ops = parse_ops(ops)
    size = validate_size(size)
    n = _validate_count("iterations", iterations)
    _validate_count("repeats", repeats)
    own_device = not hasattr(device, "compute_capability")
    dev = Device(device) if own_device else device
    try:
        require_conditional(dev)
        with Chain(dev, ops, size, scalar, seed=seed) as chain, \
                dev.create_event() as start, dev.create_event() as end:
            kit = conditional_graphs(chain)
            env = collect(dev)
            stream = chain.stream
            exe = kit.while_exec(n)

            def while_node():
                exe.launch(stream)

            def host_loop():
                kit.run_host_loop(n)

            def no_decision():
                chain.run("graph", n)

            plan = [
                ("WHILE node", "1 cuGraphLaunch; the GPU decides after every iteration", while_node, True),
                ("Python loop", "per iteration: cuGraphLaunch + cuMemcpyDtoHAsync + cuStreamSynchronize", host_loop,
                 True),
                ("graphs, no decision", "per iteration: cuGraphLaunch, nothing read back (floor)", no_decision,
                 False),
            ]
            for _name, _how, run, _counted in plan:  # warm-up: instantiate, upload, first-launch work
                run()
            stream.synchronize()
            samples = {p[0]: ([], []) for p in plan}
            bad = {p[0]: 0 for p in plan}
            count_ok = {p[0]: True for p in plan}
            for r in range(repeats):
                for name, _how, run, counted in plan:
                    kit._fresh()
                    stream.synchronize()
                    t0 = time.perf_counter_ns()
                    start.record(stream)
                    run()
                    end.record(stream)
                    end.synchronize()
                    t1 = time.perf_counter_ns()
                    samples[name][0].append((t1 - t0) / 1e3 / n)
                    samples[name][1].append(start.elapsed_ms(end) * 1e3 / n)
                    if counted and kit.read_state().count != n:
                        count_ok[name] = False
                    bad[name] += chain.check_result("graph").mismatches
                    if progress:
                        progress(f"repeat {r + 1}/{repeats} {name}: {samples[name][0][-1]:.2f} us/iter")
            variants = [
                LoopVariant(name, how, summarize(samples[name][0], unit="us", clock=WALL_CLOCK),
                            summarize(samples[name][1], unit="us", clock=DEVICE_CLOCK), count_ok[name],
                            bad[name] == 0, bad[name])
                for name, how, _run, _counted in plan
            ]
            checks = [_check_dict(kit.run_until(threshold)), _check_dict(kit.run_if(True)),
                      _check_dict(kit.run_if(False))]
            _graph, info = kit.build_while(n)
            _graph.close()
            config = {"size": size, "iterations": n, "repeats": repeats, "ops": list(ops), "scalar": scalar,
                      "threshold": threshold, "chain": chain.describe(), "grid": chain.grid, "block": chain.block,
                      "device": getattr(dev, "ordinal", device), "header": info["header"],
                      "while_parent": info["parent"], "while_body": info["body"]}
            return WhileResult(config, variants, checks, env)
    finally:
        if own_device:
            dev.close()
