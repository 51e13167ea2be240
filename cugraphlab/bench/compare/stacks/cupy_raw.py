"""CuPy RawModule loading cugraphlab's NVRTC cubin; ``RawKernel(grid, block, args)`` per launch.

The cubin is written to a temporary file and loaded with ``cupy.RawModule(path=...)`` (``cuModuleLoad`` inside
CuPy); ``get_function(name)`` gives a RawKernel; CuPy packs the argument tuple on every call (its per-launch cost).
Launches go to CuPy's current stream (a non-blocking ``cupy.cuda.Stream`` made current with ``with stream:``).
Graph: ``stream.begin_capture()`` / ``end_capture()`` around one iteration, ``graph.upload(stream)``, then
``graph.launch(stream)`` per iteration. Events: ``cupy.cuda.Event`` and ``cupy.cuda.get_elapsed_time``.
``CupyData`` (buffers, stream, events) is shared with ``cupy_ufunc``.
"""
from __future__ import annotations

import os
import tempfile

import numpy as np

from ..way import POISON_BITS, Stack, StackUnavailable, Way, import_error, short_error

__all__ = ["open_stack", "load_cupy", "CupyData", "CupyRawWay"]


def load_cupy(ordinal: int):
    """The cupy module with device ``ordinal`` current; StackUnavailable with the reason otherwise."""
    try:
        import cupy
    except Exception as e:
        raise import_error(e, "cupy") from e
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        raise StackUnavailable(f"no CUDA in cupy: {short_error(e)}") from e
    if ordinal >= count:
        raise StackUnavailable(f"CuPy sees {count} device(s), not device {ordinal}")
    cupy.cuda.Device(ordinal).use()
    return cupy


def cupy_versions(cp) -> dict:
    try:
        rt = cp.cuda.runtime.runtimeGetVersion()
        runtime = f"{rt // 1000}.{(rt % 1000) // 10}"
    except Exception:
        runtime = None
    return {"cupy": cp.__version__, "cuda_runtime": runtime}


class CupyData(Way):
    """x, y and one output per op as CuPy arrays, a non-blocking stream and two events."""

    def __init__(self, cp, n, ops, scalar):
        super().__init__()
        self.cp, self.n, self.ops = cp, n, tuple(ops)
        self.stream = cp.cuda.Stream(non_blocking=True)
        with self.stream:
            self.x = cp.empty(n, dtype=cp.float32)
            self.y = cp.empty(n, dtype=cp.float32)
            self.outs = [cp.empty(n, dtype=cp.float32) for _ in self.ops]
        self.stream.synchronize()
        self.start, self.end = cp.cuda.Event(), cp.cuda.Event()
        self.graph = None

    def capture(self, iteration) -> None:
        """Capture one call of ``iteration()`` on the stream into ``self.graph`` and upload it."""
        if self.graph is not None:
            return
        with self.stream:
            self.stream.begin_capture()
            try:
                iteration()
            finally:
                graph = self.stream.end_capture()
            graph.upload(self.stream)
        self.stream.synchronize()
        self.graph = graph

    def _run_graph(self, k):
        launch, s = self.graph.launch, self.stream
        for _ in range(k):
            launch(s)

    def set_inputs(self, x, y):
        self.stream.synchronize()
        self.x.set(np.ascontiguousarray(x, np.float32), stream=self.stream)
        self.y.set(np.ascontiguousarray(y, np.float32), stream=self.stream)
        self.stream.synchronize()

    def poison(self):
        with self.stream:
            for out in self.outs:
                out.view(self.cp.uint32).fill(POISON_BITS)
        self.stream.synchronize()

    def result(self, mode):
        self.stream.synchronize()
        src = self.outs[0] if mode == "launch" else self.outs[-1]
        host = src.get(stream=self.stream)
        self.stream.synchronize()
        return host

    def elapsed_ms(self):
        return self.cp.cuda.get_elapsed_time(self.start, self.end)

    def close(self):
        self.stream.synchronize()
        self.graph = None
        self.outs = []


class CupyRawWay(CupyData):
    way = "RawModule kernel(grid, block, args)"
    same_cubin = True

    def __init__(self, stack, n, ops, scalar):
        super().__init__(stack.cp, n, ops, scalar)
        g, b = (stack.grid(n),), (256,)
        un, s = np.uint64(n), np.float32(scalar)
        k = stack.kernels
        self.add_call = (k["add"], g, b, (self.outs[0], self.x, self.y, un))
        calls, src = [], self.x
        for name, dst in zip(self.ops, self.outs):
            args = ((dst, src, self.y, un) if name in ("add", "sub") else
                    (dst, src, s, un) if name == "mul" else (dst, src, un))
            calls.append((k[name], g, b, args))
            src = dst
        self.calls = tuple(calls)
        self.runners = {"launch": self._run_launch, "eager": self._run_eager, "graph": self._run_graph}
        self.unsupported = {"fused": "same fused kernel as cugraphlab's fused row"}
        self.kernels = {"launch": 1, "eager": len(ops), "graph": len(ops)}

    def _run_launch(self, k):
        kern, g, b, args = self.add_call
        with self.stream:
            for _ in range(k):
                kern(g, b, args)

    def _iteration(self):
        for kern, g, b, args in self.calls:
            kern(g, b, args)

    def _run_eager(self, k):
        calls = self.calls
        with self.stream:
            for _ in range(k):
                for kern, g, b, args in calls:
                    kern(g, b, args)

    def prepare(self, mode):
        if mode == "graph":
            self.capture(self._iteration)


class _CupyRawStack(Stack):
    name = "cupy_raw"

    def __init__(self, cp, ops):
        from ..shared import compile_cubins

        self.cp = cp
        dev = cp.cuda.Device()
        cc = dev.compute_capability  # a string such as "90"
        self.sm_count = dev.attributes["MultiProcessorCount"]
        images, kind = compile_cubins((int(cc[:-1]), int(cc[-1])), ops)
        self.modules, self.kernels = {}, {}
        folder = tempfile.mkdtemp(prefix="cgl-cupy-")
        try:
            for name, image in images.items():
                path = os.path.join(folder, f"{name}.{kind}")
                with open(path, "wb") as f:
                    f.write(image)
                self.modules[name] = mod = cp.RawModule(path=path)
                self.kernels[name] = mod.get_function(name)
                self.kernels[name].attributes  # noqa: B018 - forces the module load now, while the file exists
        finally:
            for f in os.listdir(folder):
                os.unlink(os.path.join(folder, f))
            os.rmdir(folder)
        self.versions = cupy_versions(cp)

    def grid(self, n):
        from ..shared import chain_grid

        return chain_grid(n, self.sm_count)

    def ways(self, n, ops, scalar):
        return [CupyRawWay(self, n, ops, scalar)]


def open_stack(device: int, ops, variant: str = "") -> _CupyRawStack:
    """CuPy RawModule of cugraphlab's cubin on device ``device``."""
    return _CupyRawStack(load_cupy(device), ops)
