"""PyCUDA, where installed: ``module_from_buffer`` of cugraphlab's cubin, ``prepare``d functions.

PyCUDA runs on the device's primary context (``Device.retain_primary_context().push()``), loads our cubin with
``pycuda.driver.module_from_buffer`` (``cuModuleLoadDataEx``), and launches with ``Function.prepare("PPPQ")`` +
``prepared_async_call(grid, block, stream, *args)`` (argument format fixed once; values packed per call by PyCUDA).
Memory is ``pycuda.driver.mem_alloc``; events ``pycuda.driver.Event`` and ``time_till``. No graph row: PyCUDA's
graph support is not wired here (PyCUDA is not on the device image this was written for). UNTESTED on a GPU.
"""
from __future__ import annotations

import numpy as np

from ..way import POISON_BITS, Stack, StackUnavailable, Way, import_error, short_error

__all__ = ["open_stack", "PycudaWay"]

_FORMATS = {"add": "PPPQ", "sub": "PPPQ", "mul": "PPfQ", "relu": "PPQ"}


class PycudaWay(Way):
    way = "prepared_async_call"
    same_cubin = True

    def __init__(self, stack, n, ops, scalar):
        super().__init__()
        drv = self.drv = stack.drv
        self.n, self.ops = n, tuple(ops)
        self.stream = drv.Stream()
        self.x, self.y = drv.mem_alloc(4 * n), drv.mem_alloc(4 * n)
        self.outs = [drv.mem_alloc(4 * n) for _ in self.ops]
        self.start, self.end = drv.Event(), drv.Event()
        grid, block = (stack.grid(n), 1), (256, 1, 1)
        f = stack.functions
        un, s = np.uint64(n), np.float32(scalar)
        self.add_call = (f["add"].prepared_async_call, (grid, block, self.stream, self.outs[0], self.x, self.y, un))
        calls, src = [], self.x
        for name, dst in zip(self.ops, self.outs):
            args = ((dst, src, self.y, un) if name in ("add", "sub") else
                    (dst, src, s, un) if name == "mul" else (dst, src, un))
            calls.append((f[name].prepared_async_call, (grid, block, self.stream, *args)))
            src = dst
        self.calls = tuple(calls)
        self.runners = {"launch": self._run_launch, "eager": self._run_eager}
        self.unsupported = {"graph": "not wired for PyCUDA", "fused": "same fused kernel as cugraphlab's fused row"}
        self.kernels = {"launch": 1, "eager": len(ops)}

    def _run_launch(self, k):
        call, args = self.add_call
        for _ in range(k):
            call(*args)

    def _run_eager(self, k):
        calls = self.calls
        for _ in range(k):
            for call, args in calls:
                call(*args)

    def set_inputs(self, x, y):
        self.drv.memcpy_htod_async(self.x, np.ascontiguousarray(x, np.float32), self.stream)
        self.drv.memcpy_htod_async(self.y, np.ascontiguousarray(y, np.float32), self.stream)
        self.stream.synchronize()

    def poison(self):
        for out in self.outs:
            self.drv.memset_d32_async(out, POISON_BITS, self.n, self.stream)
        self.stream.synchronize()

    def result(self, mode):
        out = np.empty(self.n, np.float32)
        self.drv.memcpy_dtoh_async(out, self.outs[0] if mode == "launch" else self.outs[-1], self.stream)
        self.stream.synchronize()
        return out

    def elapsed_ms(self):
        return self.start.time_till(self.end)


class _PycudaStack(Stack):
    name = "pycuda"

    def __init__(self, pycuda, drv, ordinal, ops):
        from ..shared import chain_grid, compile_cubins

        self.drv = drv
        drv.init()
        dev = drv.Device(ordinal)
        self.context = dev.retain_primary_context()
        self.context.push()
        self.sm_count = dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
        self._grid = chain_grid
        images, _kind = compile_cubins(dev.compute_capability(), ops)
        self.modules = {name: drv.module_from_buffer(img) for name, img in images.items()}
        self.functions = {}
        for name, fmt in _FORMATS.items():
            if name in self.modules:
                fn = self.modules[name].get_function(name)
                fn.prepare(fmt)
                self.functions[name] = fn
        self.versions = {"pycuda": getattr(pycuda, "VERSION_TEXT", None)}

    def grid(self, n):
        return self._grid(n, self.sm_count)

    def ways(self, n, ops, scalar):
        return [PycudaWay(self, n, ops, scalar)]

    def close(self):
        try:
            self.context.pop()
        except Exception:
            pass


def open_stack(device: int, ops, variant: str = "") -> _PycudaStack:
    """PyCUDA on device ``device``; "not installed (pycuda)" where absent."""
    try:
        import pycuda
        import pycuda.driver as drv
    except Exception as e:
        raise import_error(e, "pycuda") from e
    try:
        return _PycudaStack(pycuda, drv, device, ops)
    except Exception as e:
        raise StackUnavailable(f"PyCUDA could not start: {short_error(e)}") from e
