"""ctypes straight into libcuda.so.1: our cubin, our launches, no binding layer at all on the launch path.

Driver entry points are fetched with ``cuGetProcAddress_v2`` (the driver's own way to hand out the ABI matching a
CUDA version; falls back to the exported ``cuXxx``/``cuXxx_v2`` symbols) and given ctypes prototypes. The module
is loaded with ``cuModuleLoadData`` of cugraphlab's cubin and ``cuModuleGetFunction``; each launch's 11
``cuLaunchKernel`` arguments are ctypes objects built ONCE (kernelParams packed once). Graph: ``cuStreamBeginCapture``
(v2, with a mode) / ``cuStreamEndCapture`` / ``cuGraphInstantiateWithFlags`` / ``cuGraphUpload`` /
``cuGraphLaunch``. Memory, copies and events are cugraphlab's (``driver_data``), outside the timed loop.
"""
from __future__ import annotations

import ctypes

from ..driver_data import DriverData, DriverStack, pack_args
from ..way import StackUnavailable, short_error

__all__ = ["open_stack", "CtypesWay", "LibCuda"]

_P, _U, _I, _ULL = ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulonglong
# (name asked of cuGetProcAddress, exported fallback name, argument types); every one returns CUresult (int)
_PROTOS = {
    "cuModuleLoadData": ("cuModuleLoadData", (ctypes.POINTER(_P), ctypes.c_char_p)),
    "cuModuleGetFunction": ("cuModuleGetFunction", (ctypes.POINTER(_P), _P, ctypes.c_char_p)),
    "cuModuleUnload": ("cuModuleUnload", (_P,)),
    "cuLaunchKernel": ("cuLaunchKernel", (_P, _U, _U, _U, _U, _U, _U, _U, _P, _P, _P)),
    "cuStreamBeginCapture": ("cuStreamBeginCapture_v2", (_P, _I)),
    "cuStreamEndCapture": ("cuStreamEndCapture", (_P, ctypes.POINTER(_P))),
    "cuGraphInstantiateWithFlags": ("cuGraphInstantiateWithFlags", (ctypes.POINTER(_P), _P, _ULL)),
    "cuGraphUpload": ("cuGraphUpload", (_P, _P)),
    "cuGraphLaunch": ("cuGraphLaunch", (_P, _P)),
    "cuGraphDestroy": ("cuGraphDestroy", (_P,)),
    "cuGraphExecDestroy": ("cuGraphExecDestroy", (_P,)),
}
CAPTURE_MODE_THREAD_LOCAL = 1  # CU_STREAM_CAPTURE_MODE_THREAD_LOCAL


class LibCuda:
    """libcuda.so.1 through ctypes: ``fn(name)`` is a prototyped function pointer, ``call(name, *args)`` checks."""

    def __init__(self, cuda_version: int):
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise StackUnavailable(f"libcuda.so.1 not loadable: {short_error(e)}") from e
        self.version = cuda_version
        self._fns = {}

    def fn(self, name: str):
        f = self._fns.get(name)
        if f is None:
            exported, argtypes = _PROTOS[name]
            proto = ctypes.CFUNCTYPE(_I, *argtypes)
            address = self._proc_address(name)
            f = proto(address) if address else proto((exported, self.lib))
            self._fns[name] = f
        return f

    def _proc_address(self, name: str) -> int:
        """cuGetProcAddress_v2(symbol, &pfn, cudaVersion, CU_GET_PROC_ADDRESS_DEFAULT, &status); 0 if unavailable."""
        try:
            get = self.lib.cuGetProcAddress_v2
        except AttributeError:
            return 0
        get.restype = _I
        get.argtypes = (ctypes.c_char_p, ctypes.POINTER(_P), _I, ctypes.c_uint64, ctypes.POINTER(_I))
        pfn, status = _P(), _I(0)
        if get(name.encode(), ctypes.byref(pfn), self.version, 0, ctypes.byref(status)) != 0 or status.value != 0:
            return 0
        return pfn.value or 0

    def call(self, name: str, *args) -> None:
        r = self.fn(name)(*args)
        if r != 0:
            raise RuntimeError(f"{name} returned CUresult {r}")


class CtypesWay(DriverData):
    way = "ctypes cuLaunchKernel, args packed once"
    same_cubin = True

    def __init__(self, stack, n, ops, scalar):
        super().__init__(stack.device, n, ops, scalar)
        cu = self.cu = stack.libcuda
        self._modules, self._keep, self._exec = [], [], None
        funcs = {}
        for name in {*ops, "add"}:
            mod, fn = _P(), _P()
            image = stack.images[name]
            self._keep.append(image)
            cu.call("cuModuleLoadData", ctypes.byref(mod), image)
            self._modules.append(mod)
            cu.call("cuModuleGetFunction", ctypes.byref(fn), mod, name.encode())
            funcs[name] = fn
        self.s = _P(int(self.stream.handle))
        g, b = _U(stack.grid(n)), _U(256)
        one, zero = _U(1), _U(0)

        def call(name, kinds, values):
            keep, address = pack_args(kinds, values)
            self._keep.append(keep)
            return (funcs[name], g, one, one, b, one, one, zero, self.s, _P(address), None)

        self.launch_call = call(*self.launch_values())
        self.chain_calls = tuple(call(*v) for v in self.op_values())
        self.runners = {"launch": self._run_launch, "eager": self._run_eager, "graph": self._run_graph}
        self.unsupported = {"fused": "same fused kernel as cugraphlab's fused row"}
        self.kernels = {"launch": 1, "eager": len(ops), "graph": len(ops)}

    def _run_launch(self, k):
        fn, c = self.cu.fn("cuLaunchKernel"), self.launch_call
        for _ in range(k):
            if fn(*c):
                raise RuntimeError("cuLaunchKernel failed")

    def _run_eager(self, k):
        fn, calls = self.cu.fn("cuLaunchKernel"), self.chain_calls
        for _ in range(k):
            for c in calls:
                if fn(*c):
                    raise RuntimeError("cuLaunchKernel failed")

    def prepare(self, mode):
        if mode != "graph" or self._exec is not None:
            return
        cu, graph, exe = self.cu, _P(), _P()
        cu.call("cuStreamBeginCapture", self.s, CAPTURE_MODE_THREAD_LOCAL)
        try:
            for c in self.chain_calls:
                cu.call("cuLaunchKernel", *c)
        finally:
            cu.call("cuStreamEndCapture", self.s, ctypes.byref(graph))
        try:
            cu.call("cuGraphInstantiateWithFlags", ctypes.byref(exe), graph, 0)
        finally:
            cu.call("cuGraphDestroy", graph)
        self._exec = exe
        cu.call("cuGraphUpload", exe, self.s)

    def _run_graph(self, k):
        fn, h, s = self.cu.fn("cuGraphLaunch"), self._exec, self.s
        for _ in range(k):
            if fn(h, s):
                raise RuntimeError("cuGraphLaunch failed")

    def close(self):
        try:
            self.stream.synchronize()
            if self._exec is not None:
                self.cu.call("cuGraphExecDestroy", self._exec)
            for m in self._modules:
                self.cu.call("cuModuleUnload", m)
        finally:
            self._exec, self._modules = None, []
            super().close()


class _CtypesStack(DriverStack):
    def __init__(self, ordinal, ops):
        super().__init__("ctypes", ordinal, ops)
        from ....core.device import driver_version

        major, minor = driver_version()
        self.libcuda = LibCuda(major * 1000 + minor * 10)
        import platform

        self.versions = {"ctypes": f"Python {platform.python_version()}", "libcuda": f"CUDA {major}.{minor}"}

    def ways(self, n, ops, scalar):
        return [CtypesWay(self, n, ops, scalar)]


def open_stack(device: int, ops, variant: str = "") -> _CtypesStack:
    """ctypes into libcuda.so.1 (memory and events through cugraphlab's core)."""
    return _CtypesStack(device, ops)
