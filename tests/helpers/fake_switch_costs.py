"""FakeConditionalDriver that charges for executables: device time per launch and device memory per upload, both
from the nodes of the graph instantiated (its conditional bodies included), so bench.switch's pairing, contrasts,
holding costs and verdicts can be checked end to end without a GPU.

- time: each cuGraphLaunch of an executable adds ``us_per_node`` x its nodes (+ ``us_extra(nodes, graph)``) to a
  clock; cuEventRecord stamps the clock, cuEventElapsedTime answers the difference in ms.
- memory: the first cuGraphUpload of an executable uses ``bytes_per_node`` x its nodes; cuMemGetInfo answers free
  memory in whole pages of ``page`` bytes below the high-water mark of what was ever in use (the driver keeps what
  a destroyed executable used), which is how free memory moves on the H200.
- ``max_execs``: executables alive at once beyond which cuGraphInstantiate answers CUDA_ERROR_OUT_OF_MEMORY.
"""
from __future__ import annotations

import math

from cuda.bindings import driver as _real

from fake_conditional import FakeConditionalDriver
from fake_driver import OK

TOTAL = 1 << 37


class FakeCostDriver(FakeConditionalDriver):
    def __init__(self, us_per_node: float = 0.5, bytes_per_node: int = 1024, page: int = 2 << 20,
                 max_execs: int | None = None, **kw):
        super().__init__(**kw)
        self.max_execs = max_execs  # cuGraphInstantiate answers CUDA_ERROR_OUT_OF_MEMORY with this many alive
        self.alive: set[int] = set()
        self.us_per_node, self.bytes_per_node, self.page = us_per_node, bytes_per_node, page
        self.exec_nodes: dict[int, int] = {}  # counted at instantiate: the graph may be destroyed after it
        self.uploaded: dict[int, int] = {}
        self.in_use = self.high = 0
        self.clock_us = 0.0
        self.stamps: dict[int, float] = {}
        self.instantiated = 0

    def nodes_of(self, graph: int) -> int:
        return len(self.graphs[graph]["nodes"]) + sum(self.nodes_of(b) for b in self.bodies_of.get(graph, []))

    def cuGraphInstantiate(self, graph, flags):
        if self.max_execs is not None and len(self.alive) >= self.max_execs:
            return (_real.CUresult.CUDA_ERROR_OUT_OF_MEMORY, None)
        r = super().cuGraphInstantiate(graph, flags)
        self.alive.add(int(r[1]))
        self.exec_nodes[int(r[1])] = self.nodes_of(int(graph))
        self.instantiated += 1
        return r

    def cuGraphUpload(self, exe, stream):
        e = int(exe)
        if e not in self.uploaded:
            self.uploaded[e] = self.bytes_per_node * self.exec_nodes[e]
            self.in_use += self.uploaded[e]
            self.high = max(self.high, self.in_use)
        return (OK,)

    def cuGraphExecDestroy(self, h):
        self.alive.discard(int(h))
        self.in_use -= self.uploaded.pop(int(h), 0)
        return super().cuGraphExecDestroy(h)

    def cuMemGetInfo(self):
        return (OK, TOTAL - math.ceil(self.high / self.page) * self.page, TOTAL)

    def cuGraphLaunch(self, exe, stream):
        self.clock_us += self.us_per_node * self.exec_nodes[int(exe)]
        return (OK,)

    def cuEventRecord(self, event, stream):
        self.stamps[int(event)] = self.clock_us
        return (OK,)

    def cuEventSynchronize(self, event):
        return (OK,)

    def cuEventElapsedTime(self, a, b):
        return (OK, (self.stamps[int(b)] - self.stamps[int(a)]) / 1e3)
