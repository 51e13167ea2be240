"""A fake driver for the paired cuGraphExecUpdate measurement: graphs kept by capture (GraphFakeDriver), every
executable remembers the graph its parameters last came from (instantiate, then each update), and every update is
logged; plus a libcuda-like ctypes function and a C-loop stand-in that update through the same ledger."""
from __future__ import annotations

import ctypes

from cuda.bindings import driver as _real

from fake_driver import OK
from graph_fake import GraphFakeDriver

PROTO = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


class ExecUpdateFakeDriver(GraphFakeDriver):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.updates: list[tuple[str, int, int]] = []  # (who, exec, graph)
        self.captured: list[int] = []  # graphs in the order captures made them

    def cuGraphNodeGetType(self, node):
        return (OK, _real.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL)

    def cuStreamEndCapture(self, stream):
        r = super().cuStreamEndCapture(stream)
        if r[0] == OK:
            self.captured.append(int(r[1]))
        return r

    def update(self, who: str, exe: int, graph: int) -> int:
        self.updates.append((who, int(exe), int(graph)))
        self.exec_graph[int(exe)] = int(graph)
        return 0

    def cuGraphExecUpdate(self, exe, graph):
        self.update("bindings", exe, graph)
        return (OK, _real.CUgraphExecUpdateResultInfo())

    def libcuda_fn(self, *, noop: bool = False):
        """A CFUNCTYPE standing in for libcuda's cuGraphExecUpdate_v2 (``noop``: answers success, changes nothing)."""
        def c_fn(exe, graph, info):
            if not noop:
                self.update("ctypes", exe, graph)
            return 0

        fn = PROTO(c_fn)
        self._keep = getattr(self, "_keep", []) + [fn]
        return fn


class FakeUpdateFloor:
    """Stands in for bench.native_update.UpdateFloor: each loop updates through the fake's ledger, 'taking'
    ``ns_per_call`` nanoseconds per call."""

    def __init__(self, driver: ExecUpdateFakeDriver, ns_per_call: int = 150):
        self.driver, self.ns = driver, ns_per_call

    def update_loop(self, exe, graphs):
        hs = [int(getattr(g, "handle", g)) for g in graphs]
        e = int(exe.handle)

        def loop(n):
            for i in range(n):
                self.driver.update("C", e, hs[i % len(hs)])
            return self.ns * n

        loop.each = lambda n: [self.ns] * (loop(n) and n)
        return loop
