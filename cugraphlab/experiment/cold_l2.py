"""The fused kernel with a cold L2: enough input sets in rotation that every launch reads from DRAM.

At 2^20 floats the fused kernel moves 12 MiB (x and y read, out written) and an H200's L2 holds 50 MB, so a replayed
fused kernel finds its inputs in L2 and seems to beat HBM ("5.5 TB/s"). Two ways to make it honest: flush the L2
between launches (write a 2 x L2 buffer: extra work inside the timed loop), or rotate among input sets whose bytes
together exceed twice the L2, so that by the time a set comes round again everything it touched has been evicted.
This module does the second, which keeps the launch loop pure (launches only, nothing else):

    K = sets_for(L2_CACHE_SIZE, 3 * 4 * n)    # cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
    K sets of (x, y, out) buffers; launch i uses set i % K
    graphs of K x ceil(FUSED_PER_GRAPH / K) launches (one cuGraphLaunch replays whole rotations), captured once

Each set has its own random inputs and poisoned output; ``mismatches()`` compares every set with NumPy, so a
launch that skipped a set or read another's data fails. Between timed loops the rotation starts again at set 0:
at most one launch per loop may find part of its set still in L2.
"""
from __future__ import annotations

import math

import numpy as np

from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, positive_int
from ..core.launch import Launch, LaunchConfig, PackedArgs
from ..core.memory import validate_size
from .chain_buffers import ChainBuffers
from .ops import DEFAULT_OPS, FUSED_PER_GRAPH, FUSED_SIGNATURE, parse_ops
from .runners import Runner

__all__ = ["ColdFused", "sets_for", "fused_bytes", "ROTATE_FACTOR", "COLD_METHOD"]

#: The sets in rotation together exceed this many times the L2.
ROTATE_FACTOR = 2
COLD_METHOD = "rotating input sets (launch i uses set i % K; K sets exceed twice the L2)"


def fused_bytes(n: int) -> int:
    """Bytes one fused launch over ``n`` float32 really moves: x and y read, out written (3 x 4 x n)."""
    return 3 * 4 * validate_size(n)


def sets_for(l2_bytes: int, set_bytes: int, factor: int = ROTATE_FACTOR) -> int:
    """How many input sets of ``set_bytes`` each exceed ``factor`` x ``l2_bytes`` together (at least 2)."""
    if set_bytes <= 0 or l2_bytes < 0:
        raise InvalidArgumentError(f"need set_bytes > 0 and l2_bytes >= 0, got {set_bytes}, {l2_bytes}")
    positive_int("factor", factor)
    return max(2, math.floor(factor * l2_bytes / set_bytes) + 1)


class _Set(ChainBuffers):
    """One set of the rotation: its inputs and output, checked as every chain variant is (chain_buffers)."""

    def __init__(self, rotation, x, y, out):
        self.ops, self.n, self.scalar = rotation.ops, rotation.n, rotation.scalar
        self.rng, self.stream = rotation.rng, rotation.stream
        self.x, self.y, self.out = x, y, out

    def output_buffers(self):
        return (self.out,)


class ColdFused(Resource):
    """K sets of (x, y, out) and the fused kernel launched on them in rotation (one Runner over the K launches).

    ``kernels``: a KernelSet holding "fused" (the chain's); ``config``: the chain's LaunchConfig (same shape as the
    warm fused row); ``sets``: K (default ``sets_for(L2, fused_bytes(n))``). ``run(iters)`` enqueues ``iters``
    fused launches; ``randomize()``, ``poison()`` and ``mismatches()`` cover every set.
    """

    def __init__(self, device, ops=DEFAULT_OPS, n: int = 1 << 20, scalar: float = 2.0, *, kernels, stream,
                 config: LaunchConfig, sets: int | None = None, factor: int = ROTATE_FACTOR,
                 seed: int | None = None):
        self.ops = parse_ops(ops)
        self.n = validate_size(n)
        self.scalar = float(scalar)
        self.device, self.stream = device, stream
        self.l2_bytes = int(device.attribute("L2_CACHE_SIZE"))
        self.set_bytes = fused_bytes(self.n)
        self.factor = factor
        self.sets = sets_for(self.l2_bytes, self.set_bytes, factor) if sets is None else positive_int("sets", sets)
        free, _ = device.memory_info()
        if self.sets * self.set_bytes > free // 2:
            raise InvalidArgumentError(f"a cold-L2 rotation of {self.sets} sets x {self.set_bytes:,} bytes needs more "
                                       f"than half the free device memory ({free:,} bytes)")
        self.rng = np.random.default_rng(seed)
        self.unroll = -(-FUSED_PER_GRAPH // self.sets)  # rotations per graph
        self.per_graph = self.unroll * self.sets
        self.set_buffers: list[_Set] = []
        try:
            for _ in range(self.sets):
                x, y, out = (self.adopt(device.array(self.n)) for _ in range(3))
                self.set_buffers.append(_Set(self, x, y, out))
            self.launches = [Launch(kernels["fused"], PackedArgs(FUSED_SIGNATURE, (s.out, s.x, s.y, self.scalar,
                                                                                   self.n)), config, stream)
                             for s in self.set_buffers]
            self.runner = self.adopt(Runner(self.launches, stream))
            self.randomize()
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_chain(cls, chain, sets: int | None = None, factor: int = ROTATE_FACTOR, seed: int | None = None):
        """A rotation on ``chain``'s kernels, stream, launch shape, ops, size and scalar."""
        return cls(chain.device, chain.ops, chain.n, chain.scalar, kernels=chain.kernels, stream=chain.stream,
                   config=chain.config, sets=sets, factor=factor, seed=seed)

    @property
    def rotation_bytes(self) -> int:
        return self.sets * self.set_bytes

    def randomize(self) -> None:
        """Fresh standard-normal inputs in every set."""
        for s in self.set_buffers:
            s.randomize()

    def poison(self) -> None:
        """Every set's output filled with the NaN pattern."""
        for s in self.set_buffers:
            s.poison()

    def run(self, iters: int) -> None:
        """Enqueue ``iters`` fused launches in rotation: whole graphs, then whole rotations eagerly, then the rest."""
        positive_int("iterations", iters)
        full, rest = divmod(iters, self.per_graph)
        if full:
            self.runner.graphs(full, self.unroll)
        rounds, single = divmod(rest, self.sets)
        if rounds:
            self.runner.eager(rounds)
        for launch in self.launches[:single]:
            launch()

    def mismatches(self) -> int:
        """Elements differing from NumPy, summed over every set (each set holds its last launch's result)."""
        return sum(s.compare("fused (cold L2)", s.out.to_numpy(stream=self.stream)).mismatches
                   for s in self.set_buffers)

    def describe(self) -> str:
        return (f"fused on {self.sets} rotating sets x {self.set_bytes / 2**20:.1f} MiB = "
                f"{self.rotation_bytes / 2**20:.0f} MiB (L2 {self.l2_bytes / 2**20:.0f} MiB)")
