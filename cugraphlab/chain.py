"""The experiment: a chain of elementwise ops over its own buffers, runnable eager, as a graph, or fused.

The classic chain is ``add -> mul by 2.0 -> sub -> relu`` on float32: with inputs x and y,

    t1 = x + y;  t2 = t1 * s;  t3 = t2 - y;  out = relu(t3)

Any sequence of the four ops works: the first op reads x, binary ops take y as their second operand, ``mul`` uses the
scalar s, and each op writes its own buffer. Every mode is checked bit for bit against the same chain in NumPy float32.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .calls import driver_fn
from .errors import InvalidArgumentError, check, positive_int
from .graph import GraphExec, capture, ready_exec
from .launch import Launch, PackedArgs, grid_for
from .memory import validate_size
from .resource import Resource
from .sources import read_source

__all__ = ["OPS", "DEFAULT_OPS", "MODES", "FUSED_PER_GRAPH", "parse_ops", "reference", "fused_source", "Chain",
           "Verification", "compare_bits"]


@dataclass(frozen=True)
class Op:
    name: str
    signature: tuple[str, ...]  # argument kinds, see launch.ARG_FORMATS
    reads_y: bool = False
    uses_scalar: bool = False


OPS = {
    "add": Op("add", ("ptr", "ptr", "ptr", "u64"), reads_y=True),
    "mul": Op("mul", ("ptr", "ptr", "f32", "u64"), uses_scalar=True),
    "sub": Op("sub", ("ptr", "ptr", "ptr", "u64"), reads_y=True),
    "relu": Op("relu", ("ptr", "ptr", "u64")),
}
DEFAULT_OPS = ("add", "mul", "sub", "relu")
MODES = ("eager", "graph", "fused")
# The fused kernel alone runs in about 2.6 us at 2^20 floats, faster than Python can call cuLaunchKernel (about
# 5.5 us): launched one by one it would measure the host. So fused mode replays a graph of this many fused launches,
# which keeps the GPU busy and measures the kernel: the floor the other modes are compared with.
FUSED_PER_GRAPH = 50
FUSED_SIGNATURE = ("ptr", "ptr", "ptr", "f32", "u64")


def parse_ops(ops) -> tuple[str, ...]:
    """A validated op tuple from ``"add,mul,sub,relu"`` or a sequence of names."""
    names = [s.strip() for s in ops.split(",")] if isinstance(ops, str) else [str(s).strip() for s in ops]
    names = [n for n in names if n]
    if not names:
        raise InvalidArgumentError("the chain needs at least one op (add, mul, sub, relu)")
    unknown = [n for n in names if n not in OPS]
    if unknown:
        raise InvalidArgumentError(f"unknown op {unknown[0]!r}; known ops: {', '.join(OPS)}")
    return tuple(names)


def reference(ops, x: np.ndarray, y: np.ndarray, scalar: float) -> np.ndarray:
    """The chain in NumPy float32, op by op, rounding as the kernels do."""
    s = np.float32(scalar)
    t = x.astype(np.float32, copy=True)
    for name in parse_ops(ops):
        if name == "add":
            t = np.add(t, y, dtype=np.float32)
        elif name == "mul":
            t = np.multiply(t, s, dtype=np.float32)
        elif name == "sub":
            t = np.subtract(t, y, dtype=np.float32)
        else:
            t = np.where(t > 0, t, np.float32(0)).astype(np.float32)
    return t


def fused_source(ops) -> str:
    """Source of a ``fused`` kernel computing ``ops`` in one pass (kernels/fused.cu with CGL_CHAIN defined)."""
    expr = "(v)"
    for name in parse_ops(ops):
        expr = {"add": f"op_add({expr}, (y))", "mul": f"op_mul({expr}, (s))", "sub": f"op_sub({expr}, (y))",
                "relu": f"op_relu({expr})"}[name]
    return f"#define CGL_CHAIN(v, y, s) {expr}\n" + read_source("fused")


@dataclass(frozen=True)
class Verification:
    """How one mode's output compared with NumPy: bit-exact or not, and where it first differed."""

    mode: str
    n: int
    mismatches: int
    first_bad: int | None = None
    got: float | None = None
    expected: float | None = None

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    def __str__(self) -> str:
        if self.ok:
            return f"{self.mode}: bit-exact ({self.n:,} elements)"
        return (f"{self.mode}: {self.mismatches:,} of {self.n:,} elements differ; first at {self.first_bad}: "
                f"got {self.got!r}, expected {self.expected!r}")


def compare_bits(mode: str, got: np.ndarray, expected: np.ndarray) -> Verification:
    """Bit-for-bit comparison of two float32 arrays (NaN payloads included)."""
    bad = np.flatnonzero(got.view(np.uint32) != expected.view(np.uint32))
    if bad.size == 0:
        return Verification(mode, got.size, 0)
    i = int(bad[0])
    return Verification(mode, got.size, int(bad.size), i, float(got[i]), float(expected[i]))


class Chain(Resource):
    """A chain of ops over ``n`` float32 elements on one device, with its own buffers, stream and launches.

    ``run(mode, iters)`` enqueues ``iters`` iterations of the chain (it does not wait); ``verify(mode)`` runs one
    iteration on fresh random inputs with poisoned outputs and compares with NumPy.
    """

    def __init__(self, device, ops=DEFAULT_OPS, n: int = 1 << 20, scalar: float = 2.0, *, kernels=None,
                 stream=None, block: int = 256, blocks_per_sm: int = 8, seed: int | None = None,
                 inputs: tuple[np.ndarray, np.ndarray] | None = None, pingpong: bool = False):
        self.ops = parse_ops(ops)
        self.n = validate_size(n)
        self.scalar = float(scalar)
        if not np.isfinite(np.float32(self.scalar)):
            raise InvalidArgumentError(f"scalar must be a finite float32, got {scalar!r}")
        self.device = device
        self.rng = np.random.default_rng(seed)
        self._owned: list[Resource] = []
        self._own(self._release)
        try:
            if kernels is None:
                extra = {} if self.ops == DEFAULT_OPS else {"fused": fused_source(self.ops)}
                kernels = device.load_kernels(names=sorted({*self.ops, "fused"}), extra_sources=extra)
                self._owned.append(kernels)
            self.kernels = kernels
            if stream is None:
                stream = device.create_stream()
                self._owned.append(stream)
            self.stream = stream
            self.x = self._buffer()
            self.y = self._buffer()
            # Each op writes its own buffer; with pingpong, ops alternate between two (long chains at large sizes).
            if pingpong and len(self.ops) > 2:
                pair = [self._buffer(), self._buffer()]
                self.outs = [pair[i % 2] for i in range(len(self.ops))]
            else:
                self.outs = [self._buffer() for _ in self.ops]
            self.out_fused = self._buffer()
            # One float4 per thread, at most 8 blocks of 256 per SM with the rest done by the grid-stride loop: the
            # fastest shape on the H200 (benchmarks/tune_launch_config.py and its results).
            self.grid = grid_for(-(-self.n // 4), block, device.sm_count, blocks_per_sm)
            self.block = block
            self.launches = self._make_launches()
            self.fused = self._prepare("fused", FUSED_SIGNATURE,
                                       (self.out_fused, self.x, self.y, self.scalar, self.n))
            self._graphs: dict = {}  # unroll count, or "fused" -> GraphExec
            if inputs is None:
                self.randomize()
            else:
                self.set_inputs(*inputs)
        except BaseException:
            self.close()
            raise

    # --- construction ----------------------------------------------------------------------------------------
    def _buffer(self):
        a = self.device.array(self.n)
        self._owned.append(a)
        return a

    @property
    def out(self):
        """The buffer holding the chain's result."""
        return self.outs[-1]

    def _prepare(self, kernel_name: str, signature, args) -> Launch:
        return Launch(self.kernels[kernel_name], PackedArgs(signature, args), self.grid, self.block, self.stream)

    def op_args(self) -> list[tuple[str, tuple[str, ...], tuple]]:
        """(kernel name, argument kinds, argument values) of each op in order: what every launch mode packs."""
        out, src = [], self.x
        for name, dst in zip(self.ops, self.outs):
            op = OPS[name]
            if op.reads_y:
                args = (dst, src, self.y, self.n)
            elif op.uses_scalar:
                args = (dst, src, self.scalar, self.n)
            else:
                args = (dst, src, self.n)
            out.append((name, op.signature, args))
            src = dst
        return out

    def _make_launches(self) -> list[Launch]:
        return [self._prepare(name, sig, args) for name, sig, args in self.op_args()]

    def _release(self) -> None:
        for exe in list(getattr(self, "_graphs", {}).values()):
            exe.close()
        for r in reversed(self._owned):
            r.close()

    # --- inputs and checking ---------------------------------------------------------------------------------
    def randomize(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh standard-normal float32 inputs (about half the chain's results are clipped by relu)."""
        x = self.rng.standard_normal(self.n, dtype=np.float32)
        y = self.rng.standard_normal(self.n, dtype=np.float32)
        self.set_inputs(x, y)
        return x, y

    def set_inputs(self, x: np.ndarray, y: np.ndarray) -> None:
        self.x.copy_from(np.ascontiguousarray(x, dtype=np.float32), self.stream)
        self.y.copy_from(np.ascontiguousarray(y, dtype=np.float32), self.stream)
        self.x_host, self.y_host = x, y
        self._expected = None

    def poison(self) -> None:
        """Fill every output buffer with a NaN pattern, so an element no kernel wrote cannot pass."""
        for a in {id(a): a for a in self.outs}.values():
            a.poison(self.stream)
        self.out_fused.poison(self.stream)

    def expected(self) -> np.ndarray:
        """The NumPy result for the current inputs (computed once per set of inputs)."""
        if self._expected is None:
            self._expected = reference(self.ops, self.x_host, self.y_host, self.scalar)
        return self._expected

    def result(self, mode: str) -> np.ndarray:
        """The output of ``mode``'s last run, copied to the host (waits for the stream)."""
        return (self.out_fused if mode == "fused" else self.out).to_numpy(stream=self.stream)

    def check_result(self, mode: str) -> Verification:
        """Compare what ``mode`` left in its output with NumPy on the current inputs."""
        return compare_bits(mode, self.result(mode), self.expected())

    def verify(self, mode: str, iters: int = 1) -> Verification:
        """Fresh random inputs, poisoned outputs, ``iters`` iterations of ``mode``, bit-exact comparison."""
        self.randomize()
        self.poison()
        self.run(mode, iters)
        return self.check_result(mode)

    # --- running ---------------------------------------------------------------------------------------------
    def graph_exec(self, unroll: int = 1) -> GraphExec:
        """The chain captured ``unroll`` times into one graph, instantiated and uploaded (made once, then kept)."""
        positive_int("unroll", unroll)
        exe = self._graphs.get(unroll)
        if exe is None:
            exe = self._graphs[unroll] = ready_exec(self.capture(unroll), self.stream)
        return exe

    def capture(self, unroll: int = 1):
        """Capture ``unroll`` iterations of the chain into a new Graph (owned by the caller)."""
        with capture(self.stream) as cap:
            for _ in range(unroll):
                for launch in self.launches:
                    launch()
        return cap.graph

    def run(self, mode: str, iters: int, unroll: int = 1) -> None:
        """Enqueue ``iters`` iterations of ``mode`` ("eager", "graph", "fused") on the chain's stream."""
        positive_int("iterations", iters)
        if mode == "eager":
            self.run_eager(iters)
        elif mode == "graph":
            if iters % unroll:
                raise InvalidArgumentError(f"iterations ({iters}) must be a multiple of unroll ({unroll})")
            self.run_graph(iters // unroll, unroll)
        elif mode == "fused":
            self.run_fused(iters)
        else:
            raise InvalidArgumentError(f"unknown mode {mode!r}; modes: {', '.join(MODES)}")

    # The three loops below are the timed paths: nothing in them but the binding call and a status test.
    def run_eager(self, iters: int) -> None:
        """One cuLaunchKernel per op per iteration."""
        fn = driver_fn("cuLaunchKernel")
        calls = tuple(launch.call_args for launch in self.launches)
        for _ in range(iters):
            for c in calls:
                r = fn(*c)
                if r[0]:
                    check(r, "cuLaunchKernel")

    def run_graph(self, launches: int, unroll: int = 1) -> None:
        """``launches`` cuGraphLaunch calls of the chain graph (``unroll`` iterations each)."""
        exe = self.graph_exec(unroll)
        fn = driver_fn("cuGraphLaunch")
        h, s = exe.handle, self.stream.handle
        for _ in range(launches):
            r = fn(h, s)
            if r[0]:
                check(r, "cuGraphLaunch")

    def fused_graph_exec(self) -> GraphExec:
        """A graph of FUSED_PER_GRAPH fused launches, instantiated and uploaded (made once)."""
        exe = self._graphs.get("fused")
        if exe is None:
            with capture(self.stream) as cap:
                for _ in range(FUSED_PER_GRAPH):
                    self.fused()
            exe = self._graphs["fused"] = ready_exec(cap.graph, self.stream)
        return exe

    def run_fused(self, iters: int) -> None:
        """One fused kernel per iteration: whole graphs of FUSED_PER_GRAPH launches, the rest launched directly."""
        full, rest = divmod(iters, FUSED_PER_GRAPH)
        if full:
            fn = driver_fn("cuGraphLaunch")
            h, s = self.fused_graph_exec().handle, self.stream.handle
            for _ in range(full):
                r = fn(h, s)
                if r[0]:
                    check(r, "cuGraphLaunch")
        fn = driver_fn("cuLaunchKernel")
        c = self.fused.call_args
        for _ in range(rest):
            r = fn(*c)
            if r[0]:
                check(r, "cuLaunchKernel")

    def describe(self) -> str:
        parts = [f"mul {self.scalar:g}" if op == "mul" else op for op in self.ops]
        return " -> ".join(parts) + f" on {self.n:,} float32"

    def __repr__(self) -> str:
        return f"<Chain {self.describe()}>"

