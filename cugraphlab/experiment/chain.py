"""The experiment: a chain of elementwise ops over its own buffers, runnable eager, as a graph, or fused.

A Chain owns (unless given) its kernel set and stream, the inputs x and y, one output buffer per op (or two used in
turn), the fused kernel's output, and two runners (experiment.runners): one over the ops' launches, one over the
fused launch. ``run(mode, iters)`` enqueues; ``verify(mode)`` runs on fresh random inputs with poisoned outputs and
compares bit for bit with NumPy (experiment.ops.reference), through the checks every chain variant shares
(experiment.chain_buffers).
"""
from __future__ import annotations

import numpy as np

from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, positive_int
from ..core.launch import (
    BLOCKS_PER_SM,  # the one default shape: 8 blocks of 256 threads per SM
    Launch,
    LaunchConfig,
    PackedArgs,
    grid_for,
)
from ..core.memory import validate_size
from .chain_buffers import ChainBuffers
from .ops import (
    DEFAULT_OPS,
    FUSED_PER_GRAPH,
    FUSED_SIGNATURE,
    MODES,
    Verification,
    fused_source,
    op_arguments,
    parse_ops,
)
from .runners import Runner

__all__ = ["Chain", "chain_kernels", "chain_sources", "chain_grid", "BLOCK", "BLOCKS_PER_SM"]

# One float4 per thread, at most 8 blocks of 256 per SM with the rest done by the grid-stride loop: the fastest shape
# on the H200 (benchmarks/tune_launch_config.py and its results).
BLOCK = 256


def chain_grid(n: int, sm_count: int, block: int = BLOCK, blocks_per_sm: int = BLOCKS_PER_SM) -> int:
    """Blocks per launch of the chain's kernels over ``n`` floats (one float4 per thread, capped per SM)."""
    return grid_for(-(-n // 4), block, sm_count, blocks_per_sm)


def chain_sources(ops=DEFAULT_OPS) -> tuple[list[str], dict[str, str]]:
    """(kernel source names, sources given as text) of a chain of ``ops``: its ops from kernels/, and its fused
    kernel, generated when the ops are not the default chain."""
    ops = parse_ops(ops)
    return sorted({*ops, "fused"}), ({} if ops == DEFAULT_OPS else {"fused": fused_source(ops)})


def chain_kernels(device, ops=DEFAULT_OPS, options: tuple[str, ...] = (), cache=None):
    """The KernelSet a chain of ``ops`` needs (its ops and its fused kernel), compiled with ``options``."""
    names, extra = chain_sources(ops)
    return device.load_kernels(names=names, extra_sources=extra, options=options, cache=cache)


class Chain(ChainBuffers, Resource):
    """A chain of ops over ``n`` float32 elements on one device, with its own buffers, stream and launches.

    ``run(mode, iters)`` enqueues ``iters`` iterations of the chain (it does not wait); ``verify(mode)`` runs one
    iteration on fresh random inputs with poisoned outputs and compares with NumPy. ``config`` (a LaunchConfig)
    overrides the launch shape: ``LaunchConfig(grid, block, programmatic=True)`` with PDL kernels is the PDL chain.
    """

    def __init__(self, device, ops=DEFAULT_OPS, n: int = 1 << 20, scalar: float = 2.0, *, kernels=None,
                 stream=None, block: int = BLOCK, blocks_per_sm: int = BLOCKS_PER_SM, seed: int | None = None,
                 inputs: tuple[np.ndarray, np.ndarray] | None = None, pingpong: bool = False,
                 programmatic: bool = False):
        self.ops = parse_ops(ops)
        self.n = validate_size(n)
        self.scalar = float(scalar)
        if not np.isfinite(np.float32(self.scalar)):
            raise InvalidArgumentError(f"scalar must be a finite float32, got {scalar!r}")
        self.device = device
        self.rng = np.random.default_rng(seed)
        try:
            if kernels is None:
                kernels = self.adopt(chain_kernels(device, self.ops))
            self.kernels = kernels
            if stream is None:
                stream = self.adopt(device.create_stream())
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
            self.grid = chain_grid(self.n, device.sm_count, block, blocks_per_sm)
            self.block = block
            self.config = LaunchConfig(self.grid, block, programmatic=programmatic)
            self.launches = [self._prepare(name, sig, args) for name, sig, args in self.op_args()]
            self.fused = self._prepare("fused", FUSED_SIGNATURE, (self.out_fused, self.x, self.y, self.scalar,
                                                                  self.n))
            self.runner = self.adopt(Runner(self.launches, self.stream))
            self.fused_runner = self.adopt(Runner([self.fused], self.stream))
            if inputs is None:
                self.randomize()
            else:
                self.set_inputs(*inputs)
        except BaseException:
            self.close()
            raise

    # --- construction ----------------------------------------------------------------------------------------
    def _buffer(self):
        return self.adopt(self.device.array(self.n))

    @property
    def out(self):
        """The buffer holding the chain's result."""
        return self.outs[-1]

    def _prepare(self, kernel_name: str, signature, args) -> Launch:
        return Launch(self.kernels[kernel_name], PackedArgs(signature, args), self.config, self.stream)

    def op_args(self) -> list[tuple[str, tuple[str, ...], tuple]]:
        """(kernel name, argument kinds, argument values) of each op in order: what every launch mode packs."""
        return op_arguments(self.ops, self.x, self.y, self.outs, self.scalar, self.n)

    # --- inputs and checking (randomize, set_inputs, poison, expected: chain_buffers.ChainBuffers) ---------------
    def output_buffers(self):
        """Every op's output (a pingpong pair once) and the fused kernel's."""
        return [*self.outs, self.out_fused]

    def result(self, mode: str) -> np.ndarray:
        """The output of ``mode``'s last run, copied to the host (waits for the stream)."""
        return (self.out_fused if mode == "fused" else self.out).to_numpy(stream=self.stream)

    def check_result(self, mode: str) -> Verification:
        """Compare what ``mode`` left in its output with NumPy on the current inputs."""
        return self.compare(mode, self.result(mode))

    def verify(self, mode: str, iters: int = 1, unroll: int = 1) -> Verification:
        """Fresh random inputs, poisoned outputs, ``iters`` iterations of ``mode``, bit-exact comparison."""
        self.randomize()
        self.poison()
        self.run(mode, iters, unroll)
        return self.check_result(mode)

    # --- running ---------------------------------------------------------------------------------------------
    def graph_exec(self, unroll: int = 1):
        """The chain captured ``unroll`` times into one graph, instantiated and uploaded (made once, then kept)."""
        return self.runner.graph_exec(unroll)

    def capture(self, unroll: int = 1):
        """Capture ``unroll`` iterations of the chain into a new Graph (owned by the caller)."""
        return self.runner.capture(unroll)

    def fused_graph_exec(self):
        """A graph of FUSED_PER_GRAPH fused launches, instantiated and uploaded (made once)."""
        return self.fused_runner.graph_exec(FUSED_PER_GRAPH)

    def run(self, mode: str, iters: int, unroll: int = 1) -> None:
        """Enqueue ``iters`` iterations of ``mode`` ("eager", "graph", "fused") on the chain's stream.

        eager: one launch per op per iteration; graph: one cuGraphLaunch per ``unroll`` iterations; fused: one fused
        kernel per iteration, replayed from graphs of FUSED_PER_GRAPH launches (the fused kernel runs faster than
        Python can launch it, so launched one by one it would measure the host), the remainder launched directly.
        """
        positive_int("iterations", iters)
        if mode == "fused":
            full, rest = divmod(iters, FUSED_PER_GRAPH)
            if full:
                self.fused_runner.graphs(full, FUSED_PER_GRAPH)
            if rest:
                self.fused_runner.eager(rest)
        elif mode in MODES:
            self.runner.run(mode, iters, unroll)
        else:
            raise InvalidArgumentError(f"unknown mode {mode!r}; modes: {', '.join(MODES)}")

    def describe(self) -> str:
        parts = [f"mul {self.scalar:g}" if op == "mul" else op for op in self.ops]
        return " -> ".join(parts) + f" on {self.n:,} float32"

    def __repr__(self) -> str:
        return f"<Chain {self.describe()}>"
