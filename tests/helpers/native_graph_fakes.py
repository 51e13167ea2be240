"""Fake driver entry points for the C loops of bench.native_graph and bench.native (ctypes callbacks)."""
from __future__ import annotations

import ctypes
import time

_VP = ctypes.c_void_p
INSTANTIATE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(_VP), _VP, ctypes.c_ulonglong)
DESTROY = ctypes.CFUNCTYPE(ctypes.c_int, _VP)
GRAPH = ctypes.CFUNCTYPE(ctypes.c_int, _VP, _VP)


class FakeEntry:
    """cuGraphInstantiateWithFlags / cuGraphExecDestroy / cuGraphLaunch stand-ins. Instantiation takes
    ``us_per_node(graph)`` µs (busy wait) and hands out executables 0x9000, 0x9001, ...; ``fail``: (call, n, status)
    makes the n-th call of that function fail."""

    def __init__(self, us_for=lambda graph: 0.0, fail=None):
        self.instantiated, self.destroyed, self.launched = [], [], []
        self.us_for, self.fail = us_for, fail

        def failing(call, count):
            if self.fail and self.fail[0] == call and self.fail[1] == count:
                return self.fail[2]
            return 0

        def instantiate(p_exec, graph, flags):
            self.instantiated.append((graph, int(flags)))
            status = failing("instantiate", len(self.instantiated))
            if status:
                return status
            end = time.perf_counter() + self.us_for(graph) / 1e6
            while time.perf_counter() < end:
                pass
            p_exec[0] = 0x9000 + len(self.instantiated) - 1
            return 0

        def destroy(exe):
            self.destroyed.append(exe)
            return failing("destroy", len(self.destroyed))

        def launch(exe, stream):
            self.launched.append((exe, stream))
            return 0

        self.callbacks = (INSTANTIATE(instantiate), DESTROY(destroy), GRAPH(launch))

    @property
    def entry(self) -> dict:
        i, d, g = (ctypes.cast(c, _VP).value for c in self.callbacks)
        return {"cuGraphInstantiateWithFlags": i, "cuGraphExecDestroy": d, "cuGraphLaunch": g,
                "cuLaunchKernel": g}
