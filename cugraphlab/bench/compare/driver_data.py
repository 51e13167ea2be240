"""Buffers, stream and events made with cugraphlab's core, for the ways whose LAUNCH path is the bare driver
(cuda.bindings by hand, cugraphlab's own objects, ctypes into libcuda).

Only the launch path differs between those ways; memory, copies, poisoning and timing are the same cugraphlab calls
(``cuMemAlloc``, ``cuMemcpyHtoDAsync``, ``cuMemsetD32Async``, ``cuEventRecord``, ``cuEventElapsedTime``), all
outside the timed loops except the two event records.
"""
from __future__ import annotations

import numpy as np

from ...core._resource import Resource
from .way import Stack, StackUnavailable, Way, import_error, short_error

__all__ = ["open_device", "DriverData", "DriverStack", "pack_args"]


def open_device(ordinal: int):
    """cugraphlab's Device (primary context retained and current), or StackUnavailable with the reason."""
    try:
        from ...core.device import Device
    except Exception as e:  # cuda-bindings missing or broken
        raise import_error(e, "cuda") from e
    try:
        return Device(ordinal)
    except Exception as e:
        raise StackUnavailable(f"no device: {short_error(e)}") from e


class _Owned(Resource):
    """The device objects of one DriverData, owned through core's Resource: closed in reverse order of adoption by
    ``close()``, and freed by the garbage collector if the way is forgotten."""


class DriverData(Way):
    """x, y, one output per op, a fused output, a non-blocking stream and two timing events on ``device``."""

    def __init__(self, device, n: int, ops, scalar: float):
        super().__init__()
        self.device, self.n, self.ops, self.scalar = device, n, tuple(ops), float(scalar)
        self._owned = _Owned()
        self.stream = self._keep(device.create_stream())
        self.start = self._keep(device.create_event())
        self.end = self._keep(device.create_event())
        self.x = self._keep(device.array(n))
        self.y = self._keep(device.array(n))
        self.outs = [self._keep(device.array(n)) for _ in self.ops]
        self.out_fused = self._keep(device.array(n))

    def _keep(self, r):
        return self._owned.adopt(r)

    def set_inputs(self, x, y):
        self.x.copy_from(np.ascontiguousarray(x, dtype=np.float32), self.stream)
        self.y.copy_from(np.ascontiguousarray(y, dtype=np.float32), self.stream)

    def poison(self):
        for a in (*self.outs, self.out_fused):
            a.poison(self.stream)

    def result(self, mode):
        src = self.outs[0] if mode == "launch" else (self.out_fused if mode == "fused" else self.outs[-1])
        return src.to_numpy(stream=self.stream)

    def elapsed_ms(self):
        return self.start.elapsed_us(self.end) / 1e3  # the Way protocol speaks ms, as every stack's events do

    def op_values(self):
        """(kernel name, argument kinds, argument values) per op, wired like Chain.op_args()
        (experiment.ops.op_arguments), with the device buffers as their addresses."""
        from ...experiment.ops import op_arguments

        return [(name, kinds, tuple(getattr(v, "ptr", v) for v in args))
                for name, kinds, args in op_arguments(self.ops, self.x, self.y, self.outs, self.scalar, self.n)]

    def launch_values(self):
        """add's arguments for the ``launch`` rows: outs[0] = x + y."""
        return ("add", ("ptr", "ptr", "ptr", "u64"), (self.outs[0].ptr, self.x.ptr, self.y.ptr, self.n))

    def fused_values(self):
        return ("fused", ("ptr", "ptr", "ptr", "f32", "u64"),
                (self.out_fused.ptr, self.x.ptr, self.y.ptr, self.scalar, self.n))

    def close(self):
        try:
            self.stream.synchronize()
        finally:
            self._owned.close()


def pack_args(kinds, values):
    """Kernel arguments packed ONCE by hand with ctypes: returns (keep-alive list, address of the ``void**``).

    Each value lives in its own ctypes object (``c_uint64`` for pointers and sizes, ``c_float`` for f32); the
    pointer array holds their addresses. This is what cuLaunchKernel's ``kernelParams`` wants; the driver copies
    the values at launch, so one packing serves every launch.
    """
    import ctypes

    cells = []
    for kind, v in zip(kinds, values):
        cells.append(ctypes.c_float(float(v)) if kind == "f32" else ctypes.c_uint64(int(v)))
    array = (ctypes.c_void_p * max(1, len(cells)))(*[ctypes.addressof(c) for c in cells])
    return [cells, array], (ctypes.addressof(array) if cells else 0)


class DriverStack(Stack):
    """A stack on cugraphlab's Device: the device, its sm count and the cubins compiled for it."""

    def __init__(self, name: str, ordinal: int, ops):
        from .shared import compile_cubins

        self.name = name
        self.device = open_device(ordinal)
        self.images, self.kind = compile_cubins(self.device.compute_capability, ops)
        self.versions = {}

    def grid(self, n: int) -> int:
        from .shared import chain_grid

        return chain_grid(n, self.device.sm_count)

    def gpu(self) -> dict:
        """The GPU and driver, for the comparison's environment record."""
        from ...core.device import driver_version

        d = self.device
        return {"name": d.name, "compute_capability": "%d.%d" % d.compute_capability, "sm_count": d.sm_count,
                "driver_cuda": "%d.%d" % driver_version()}

    def close(self):
        self.device.close()
