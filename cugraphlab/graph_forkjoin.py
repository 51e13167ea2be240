"""Fork and join in stream capture: two independent chains become two parallel branches of one graph.

Capture follows the stream that began it. A second stream joins the capture by waiting on an event recorded on the
capturing stream, and must hand its work back the same way before the capture ends::

    cuStreamBeginCapture(A)
    cuEventRecord(fork, A);  cuStreamWaitEvent(B, fork)    # B is now part of A's capture (fork)
    chain 1 on A             chain 2 on B                   # no order between them: two branches
    cuEventRecord(join, B);  cuStreamWaitEvent(A, join)    # B's branch flows back into A (join)
    add(final, out1, out2) on A                              # one node with two predecessors
    cuStreamEndCapture(A)

Nothing here runs during capture; the events only draw edges. Ending the capture while B still has unjoined work
fails with CUDA_ERROR_STREAM_CAPTURE_UNJOINED.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .chain import DEFAULT_OPS, Chain, Verification, compare_bits, parse_ops, reference
from .errors import InvalidArgumentError
from .graph import Graph, capture
from .launch import PackedArgs, Launch
from .resource import Resource

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
        self._owned: list[Resource] = []
        self._own(self._release)
        try:
            if kernels is None:
                kernels = device.load_kernels(names=sorted({*self.ops1, *self.ops2, "add", "fused"}))
                self._owned.append(kernels)
            if "add" not in kernels:
                raise InvalidArgumentError("the join needs the 'add' kernel in the kernel set")
            self.kernels = kernels
            rng = np.random.default_rng(seed)
            self.chain1 = self._keep(Chain(device, self.ops1, n, scalar1, kernels=kernels,
                                           seed=int(rng.integers(1 << 31))))
            self.chain2 = self._keep(Chain(device, self.ops2, n, scalar2, kernels=kernels,
                                           seed=int(rng.integers(1 << 31))))
            self.n = self.chain1.n
            self.final = self._keep(device.array(self.n))
            # The join runs on stream A after both branches: final = out1 + out2.
            c1 = self.chain1
            self.join = Launch(kernels["add"], PackedArgs(("ptr", "ptr", "ptr", "u64"),
                                                          (self.final, c1.out, self.chain2.out, self.n)),
                               c1.grid, c1.block, c1.stream)
            self.fork_event = self._keep(device.create_event(timing=False))
            self.join_event = self._keep(device.create_event(timing=False))
        except BaseException:
            self.close()
            raise

    def _keep(self, r):
        self._owned.append(r)
        return r

    def _release(self) -> None:
        for r in reversed(self._owned):
            r.close()

    @property
    def stream(self):
        """Stream A: the one that captures, launches the graph and does the join."""
        return self.chain1.stream

    def capture(self) -> Graph:
        """Capture both chains as two branches joined by the final add (the caller owns the Graph)."""
        a, b = self.chain1.stream, self.chain2.stream
        with capture(a) as cap:
            self.fork_event.record(a)
            b.wait(self.fork_event)  # B joins A's capture
            for launch in self.chain1.launches:
                launch()  # branch 1, on A
            for launch in self.chain2.launches:
                launch()  # branch 2, on B
            self.join_event.record(b)
            a.wait(self.join_event)  # B's branch flows back into A
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
        out1 = reference(self.ops1, self.chain1.x_host, self.chain1.y_host, self.chain1.scalar)
        out2 = reference(self.ops2, self.chain2.x_host, self.chain2.y_host, self.chain2.scalar)
        return np.add(out1, out2, dtype=np.float32)

    def check(self, graph: Graph | None = None) -> ForkJoinCheck:
        """Capture (unless given a graph), run once on fresh inputs with poisoned outputs, and compare with NumPy."""
        own = graph is None
        graph = self.capture() if own else graph
        try:
            topo = graph.topology()
            self.randomize()
            self.poison()
            with graph.instantiate() as exe:
                exe.upload(self.stream)
                exe.launch(self.stream)
                self.stream.synchronize()
            got = self.final.to_numpy()
            return ForkJoinCheck(len(topo.nodes), len(topo.edges), branch_count(topo),
                                 compare_bits("forkjoin", got, self.expected()))
        finally:
            if own:
                graph.close()

    def describe(self) -> str:
        return (f"({self.chain1.describe()}) + ({' -> '.join(self.ops2)}, s={self.chain2.scalar:g}) "
                f"joined by add")
