"""TimedFakeDriver plus what the floor and latency measurements call beyond it (device copies, the current context),
so their whole logic runs on a machine without a GPU (the figures mean nothing there; the rows and checks do)."""
from __future__ import annotations

from cuda.bindings import driver as _real

from fake_driver import OK, patch_driver
from fake_timed_driver import TimedFakeDriver


class FloorFakeDriver(TimedFakeDriver):
    def __init__(self, *args, l2_bytes: int = 4 << 20, **kwargs):
        super().__init__(*args, **kwargs)
        self.l2_bytes = l2_bytes

    def cuDeviceGetAttribute(self, attr, dev):
        if attr.name == "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE":
            return (OK, self.l2_bytes)
        return super().cuDeviceGetAttribute(attr, dev)

    def cuMemcpyDtoDAsync(self, dst, src, nbytes, stream):
        return (OK,)

    def cuCtxGetCurrent(self):
        return (OK, 0x42)

    def cuGraphExecUpdate(self, exe, graph):
        return (OK, None)

    # --- capture of programmatic launches: a chain of n cuLaunchKernelEx makes n - 1 programmatic edges --------
    def cuStreamBeginCapture(self, stream, mode):
        self._captured_ex = 0
        return (OK,)

    def cuLaunchKernelEx(self, *args):
        if getattr(self, "_captured_ex", None) is not None:
            self._captured_ex += 1
        return (OK,)

    def cuStreamEndCapture(self, stream):
        r = super().cuStreamEndCapture(stream)
        self.programmatic = getattr(self, "programmatic", {})
        self.programmatic[int(r[1])] = max((self._captured_ex or 0) - 1, 0)
        self._captured_ex = None
        return r

    def cuGraphGetEdges(self, graph, count=0):
        n = getattr(self, "programmatic", {}).get(int(graph), 0)
        if not count:
            return (OK, None, None, None, n)
        data = []
        for _ in range(min(n, count)):
            d = _real.CUgraphEdgeData()
            d.type = _real.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC
            data.append(d)
        return (OK, list(range(len(data))), list(range(1, len(data) + 1)), data, len(data))


class FakeNativeFloor:
    """Stands in for bench.native.NativeFloor: C loops that 'take' ``ns_per_call`` each and count their calls."""

    def __init__(self, ns_per_call: int = 1_500):
        self.ns, self.calls = ns_per_call, []

    def launch_loop(self, launch):
        def loop(n):
            self.calls.append(("cuLaunchKernel", launch.kernel.name, n))
            return self.ns * n
        return loop

    def graph_loop(self, exe, stream):
        def loop(n):
            self.calls.append(("cuGraphLaunch", int(exe.handle), n))
            return self.ns * n
        return loop


def install_floor_driver(monkeypatch) -> FloorFakeDriver:
    """A FloorFakeDriver made the package's driver for one test (device state reset): the floor studies' fixture."""
    fake = FloorFakeDriver()
    patch_driver(monkeypatch, fake)
    return fake


def stamped_timeline(ops, iters=3):
    """A timeline record stand-in: each op busy 1.5 µs, 0.9 µs between ops, 2.5 µs between iterations."""
    from types import SimpleNamespace

    events, t = [], 1_000
    for _ in range(iters):
        for j, op in enumerate(ops):
            events.append({"kernel": op, "start_ns": t, "end_ns": t + 1_500})
            t += 1_500 + (900 if j < len(ops) - 1 else 2_500)
    return SimpleNamespace(modes=[], mode=lambda name: SimpleNamespace(events=events, verified=True))
