"""Fork and join in stream capture, on the chain: two independent chains become two parallel branches of one graph.

    capture on A:  fork(A, B)   chain 1 on A   chain 2 on B   join(A, B)   add(final, out1, out2) on A

(graphs.capture explains fork and join.) The join add has two predecessors; both chains' nodes may run at once.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core._resource import Resource
from ..core.errors import InvalidArgumentError
from ..core.launch import Launch, PackedArgs
from ..graphs.capture import capture, fork, join
from ..graphs.exec import Graph, run_once
from .chain import Chain
from .ops import DEFAULT_OPS, Verification, compare_bits, parse_ops

__all__ = ["ForkJoin", "ForkJoinCheck", "DEFAULT_SECOND_OPS", "branch_count"]

DEFAULT_SECOND_OPS = ("sub", "mul", "relu")


@dataclass(frozen=True)
class ForkJoinCheck:
    """What the fork/join graph looked like and whether it computed the right bits."""

    nodes: int
    edges: int
    join_predecessors: int  # predecessors of the node with the most: 2 for a fork/join of two branches
    verification: Verification

    @property
    def ok(self) -> bool:
        return self.join_predecessors >= 2 and self.verification.ok


def branch_count(topology) -> int:
    """The largest number of predecessors of any node in a Topology (2 where two branches join)."""
    counts: dict[int, int] = {}
    for _, b in topology.edges:
        counts[b] = counts.get(b, 0) + 1
    return max(counts.values(), default=0)


class ForkJoin(Resource):
    """Two chains over their own inputs, each on its own stream, and ``final = out1 + out2`` after both.

    ``chain1`` runs on stream A (its own stream) and ``chain2`` on stream B (its own); ``capture()`` records both
    as parallel branches joined by the final add. Both chains share one kernel set.
    """

    def __init__(self, device, ops1=DEFAULT_OPS, ops2=DEFAULT_SECOND_OPS, n: int = 1 << 20,
                 scalar1: float = 2.0, scalar2: float = -0.5, *, kernels=None, seed: int | None = None):
        self.device = device
        self.ops1, self.ops2 = parse_ops(ops1), parse_ops(ops2)
        try:
            if kernels is None:
                kernels = self.adopt(device.load_kernels(names=sorted({*self.ops1, *self.ops2, "add", "fused"})))
            if "add" not in kernels:
                raise InvalidArgumentError("the join needs the 'add' kernel in the kernel set")
            self.kernels = kernels
            rng = np.random.default_rng(seed)
            self.chain1 = self.adopt(Chain(device, self.ops1, n, scalar1, kernels=kernels,
                                           seed=int(rng.integers(1 << 31))))
            self.chain2 = self.adopt(Chain(device, self.ops2, n, scalar2, kernels=kernels,
                                           seed=int(rng.integers(1 << 31))))
            self.n = self.chain1.n
            self.final = self.adopt(device.array(self.n))
            # The join runs on stream A after both branches: final = out1 + out2.
            c1 = self.chain1
            self.join = Launch(kernels["add"], PackedArgs(("ptr", "ptr", "ptr", "u64"),
                                                          (self.final, c1.out, self.chain2.out, self.n)),
                               c1.config, c1.stream)
            self.fork_event = self.adopt(device.create_event(timing=False))
            self.join_event = self.adopt(device.create_event(timing=False))
        except BaseException:
            self.close()
            raise

    @property
    def stream(self):
        """Stream A: the one that captures, launches the graph and does the join."""
        return self.chain1.stream

    def capture(self) -> Graph:
        """Capture both chains as two branches joined by the final add (the caller owns the Graph)."""
        a, b = self.chain1.stream, self.chain2.stream
        with capture(a) as cap:
            fork(a, b, self.fork_event)  # B joins A's capture
            for launch in self.chain1.launches:
                launch()  # branch 1, on A
            for launch in self.chain2.launches:
                launch()  # branch 2, on B
            join(a, b, self.join_event)  # B's branch flows back into A
            self.join()  # after both branches
        return cap.graph

    def randomize(self) -> None:
        self.chain1.randomize()
        self.chain2.randomize()

    def poison(self) -> None:
        self.chain1.poison()
        self.chain2.poison()
        self.final.poison()

    def expected(self) -> np.ndarray:
        """NumPy float32: both chains, then their sum rounded like one float32 add."""
        return np.add(self.chain1.expected(), self.chain2.expected(), dtype=np.float32)

    def check(self, graph: Graph | None = None) -> ForkJoinCheck:
        """Capture (unless given a graph), run once on fresh inputs with poisoned outputs, and compare with NumPy."""
        own = graph is None
        graph = self.capture() if own else graph
        try:
            topo = graph.topology()
            self.randomize()
            self.poison()
            run_once(graph, self.stream)
            got = self.final.to_numpy()
            return ForkJoinCheck(len(topo.nodes), len(topo.edges), branch_count(topo),
                                 compare_bits("forkjoin", got, self.expected()))
        finally:
            if own:
                graph.close()

    def describe(self) -> str:
        return (f"({self.chain1.describe()}) + ({' -> '.join(self.ops2)}, s={self.chain2.scalar:g}) "
                f"joined by add")
