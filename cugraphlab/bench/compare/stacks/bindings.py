"""cuda.bindings by hand: the floor every Python way is measured against.

Our cubin is loaded with ``cuModuleLoadData`` / ``cuModuleGetFunction``; each launch's arguments are packed ONCE
with ctypes (``driver_data.pack_args``) and the whole ``cuLaunchKernel`` argument tuple is built once, so a launch
is one binding call and one status test. Graph: ``cuStreamBeginCapture`` / ``cuStreamEndCapture`` /
``cuGraphInstantiate`` / ``cuGraphUpload``, then one ``cuGraphLaunch`` per iteration. No fused row: the fused
figure is cugraphlab's (same kernel).
"""
from __future__ import annotations

from ..driver_data import DriverData, DriverStack, pack_args
from ..way import import_error

__all__ = ["open_stack", "BindingsWay"]


def _check(result, call: str):
    """Unpack a cuda.bindings result tuple, raising on a non-zero CUresult."""
    status = result[0]
    if int(status) != 0:
        raise RuntimeError(f"{call} failed: {getattr(status, 'name', status)}")
    return result[1] if len(result) == 2 else result[1:]


class BindingsWay(DriverData):
    way = "cuLaunchKernel, args packed once"
    same_cubin = True

    def __init__(self, stack, n, ops, scalar):
        from cuda.bindings import driver

        super().__init__(stack.device, n, ops, scalar)
        self.d = driver
        self._modules, self._keep_args, self._exec = [], [], None
        funcs = {}
        for name in {*ops, "add"}:
            mod = _check(driver.cuModuleLoadData(stack.images[name]), "cuModuleLoadData")
            self._modules.append(mod)
            funcs[name] = _check(driver.cuModuleGetFunction(mod, name.encode()), "cuModuleGetFunction")
        g, b, s = stack.grid(n), 256, self.stream.handle

        def call(name, kinds, values):
            keep, address = pack_args(kinds, values)
            self._keep_args.append(keep)
            return (funcs[name], g, 1, 1, b, 1, 1, 0, s, address, 0)

        self.launch_call = call(*self.launch_values())
        self.chain_calls = tuple(call(*v) for v in self.op_values())
        self.runners = {"launch": self._run_launch, "eager": self._run_eager, "graph": self._run_graph}
        self.unsupported = {"fused": "same fused kernel as cugraphlab's fused row"}
        self.kernels = {"launch": 1, "eager": len(ops), "graph": len(ops)}

    def _run_launch(self, k):
        fn, c = self.d.cuLaunchKernel, self.launch_call
        for _ in range(k):
            r = fn(*c)
            if r[0]:
                _check(r, "cuLaunchKernel")

    def _run_eager(self, k):
        fn, calls = self.d.cuLaunchKernel, self.chain_calls
        for _ in range(k):
            for c in calls:
                r = fn(*c)
                if r[0]:
                    _check(r, "cuLaunchKernel")

    def prepare(self, mode):
        if mode != "graph" or self._exec is not None:
            return
        d, s = self.d, self.stream.handle
        _check(d.cuStreamBeginCapture(s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
               "cuStreamBeginCapture")
        try:
            for c in self.chain_calls:
                _check(d.cuLaunchKernel(*c), "cuLaunchKernel")
        finally:
            graph = _check(d.cuStreamEndCapture(s), "cuStreamEndCapture")
        try:
            self._exec = _check(d.cuGraphInstantiate(graph, 0), "cuGraphInstantiate")
        finally:
            _check(d.cuGraphDestroy(graph), "cuGraphDestroy")
        _check(d.cuGraphUpload(self._exec, s), "cuGraphUpload")

    def _run_graph(self, k):
        fn, h, s = self.d.cuGraphLaunch, self._exec, self.stream.handle
        for _ in range(k):
            r = fn(h, s)
            if r[0]:
                _check(r, "cuGraphLaunch")

    def close(self):
        try:
            self.stream.synchronize()
            if self._exec is not None:
                self.d.cuGraphExecDestroy(self._exec)
            for m in self._modules:
                self.d.cuModuleUnload(m)
        finally:
            self._exec, self._modules = None, []
            super().close()


class _BindingsStack(DriverStack):
    def __init__(self, ordinal, ops):
        super().__init__("bindings", ordinal, ops)
        from importlib.metadata import version

        self.versions = {"cuda-bindings": version("cuda-bindings")}

    def ways(self, n, ops, scalar):
        return [BindingsWay(self, n, ops, scalar)]


def open_stack(device: int, ops, variant: str = "") -> _BindingsStack:
    """The bare cuda.bindings stack on device ``device``; StackUnavailable when cuda.bindings cannot run."""
    try:
        from cuda.bindings import driver  # noqa: F401
    except Exception as e:
        raise import_error(e, "cuda") from e
    return _BindingsStack(device, ops)

