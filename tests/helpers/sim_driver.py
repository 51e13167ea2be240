"""A driver that runs kernels on the CPU: "device" memory is host memory, and a launch reads its kernelParams the
way the GPU would (one pointer per parameter, that parameter's size read from it) and calls a NumPy stand-in of the
kernel. Stream capture and explicit kernel nodes copy the parameter bytes when they are recorded, as the driver
does. So a CPU test can run a lesson end to end and see its checks pass or fail on the packing itself.

Kernels are registered by name with their C parameter types (``SimDriver.kernel(name, types)(fn)``); ``fn``
receives the decoded values (ints for pointers) and works on memory through ``sim.floats(address, n)``.
"""
from __future__ import annotations

import ctypes
import struct

import numpy as np
from cuda.bindings import driver as _real

from fake_driver import OK
from fake_interop import InteropDriver

#: C parameter type -> (size, struct format); "bytesN" is a struct of N bytes handed over raw.
C_TYPES = {"ptr": (8, "<Q"), "u64": (8, "<Q"), "i64": (8, "<q"), "u32": (4, "<I"), "i32": (4, "<i"),
           "u16": (2, "<H"), "i16": (2, "<h"), "u8": (1, "<B"), "i8": (1, "<b"), "f64": (8, "<d"),
           "f32": (4, "<f")}


def _size(t: str) -> int:
    return int(t[5:]) if t.startswith("bytes") else C_TYPES[t][0]


class SimDriver(InteropDriver):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._buffers: dict[int, ctypes.Array] = {}
        self._functions: dict[int, str] = {}
        self._kernels: dict[str, tuple] = {}
        self._capturing: dict[int, list] = {}
        self._graphs: dict[int, list] = {}
        self.launches: list[str] = []

    # --- kernels -----------------------------------------------------------------------------------------------
    def kernel(self, name: str, types):
        def register(fn):
            self._kernels[name] = (tuple(types), fn)
            return fn

        return register

    def floats(self, address: int, n: int, dtype=np.float32) -> np.ndarray:
        dt = np.dtype(dtype)
        return np.ctypeslib.as_array((ctypes.c_uint8 * (n * dt.itemsize)).from_address(int(address))).view(dt)

    def _snapshot(self, name: str, params: int) -> tuple:
        types, _ = self._kernels[name]
        ptrs = (ctypes.c_void_p * max(len(types), 1)).from_address(int(params)) if types else ()
        return name, tuple(ctypes.string_at(ptrs[i], _size(t)) for i, t in enumerate(types))

    def _run(self, snapshot: tuple) -> None:
        name, raw = snapshot
        types, fn = self._kernels[name]
        values = [r if t.startswith("bytes") else struct.unpack(C_TYPES[t][1], r)[0] for t, r in zip(types, raw)]
        self.launches.append(name)
        fn(*values)

    def _launch(self, f, stream, params):
        name = self._functions[int(f)]
        snap = self._snapshot(name, params)
        if int(stream) in self._capturing:
            self._capturing[int(stream)].append(snap)
        else:
            self._run(snap)
        return (OK,)

    def cuModuleGetFunction(self, module, name):
        h = next(self._ids)
        self._functions[h] = name.decode() if isinstance(name, bytes) else str(name)
        return (OK, h)

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        return self._launch(f, stream, params)

    def cuLaunchKernelEx(self, config, f, params, extra):
        return self._launch(f, config.hStream, params)

    # --- memory ----------------------------------------------------------------------------------------------
    def cuMemAlloc(self, nbytes):
        buf = ctypes.create_string_buffer(max(int(nbytes), 1))
        address = ctypes.addressof(buf)
        self._buffers[address] = buf  # kept after cuMemFree: nothing reads freed memory by accident
        self.made[address] = "memory"
        return (OK, address)

    def cuPointerGetAttribute(self, attr, ptr):
        for base, buf in self._buffers.items():
            if base <= int(ptr) < base + ctypes.sizeof(buf):
                return (OK, 0)
        return super().cuPointerGetAttribute(attr, ptr)

    def cuMemcpyHtoDAsync(self, dst, src, nbytes, stream):
        ctypes.memmove(int(dst), int(src), int(nbytes))
        return (OK,)

    def cuMemcpyDtoHAsync(self, dst, src, nbytes, stream):
        ctypes.memmove(int(dst), int(src), int(nbytes))
        return (OK,)

    def cuMemsetD32Async(self, dst, value, count, stream):
        self.floats(int(dst), int(count), np.uint32)[:] = int(value)
        return (OK,)

    # --- graphs ----------------------------------------------------------------------------------------------
    def cuStreamBeginCapture(self, stream, mode):
        self._capturing[int(stream)] = []
        return (OK,)

    def cuStreamEndCapture(self, stream):
        g = self._make("graph")
        self._graphs[g] = self._capturing.pop(int(stream))
        return (OK, g)

    def cuGraphCreate(self, flags):
        g = self._make("graph")
        self._graphs[g] = []
        return (OK, g)

    def cuGraphAddKernelNode(self, graph, deps, count, params):
        self._graphs[int(graph)].append(self._snapshot(self._functions[int(params.func)], params.kernelParams))
        return (OK, next(self._ids))

    def cuGraphInstantiate(self, graph, flags):
        e = self._make("graph exec")
        self._graphs[e] = list(self._graphs[int(graph)])
        return (OK, e)

    def cuGraphLaunch(self, exe, stream):
        for snap in self._graphs[int(exe)]:
            self._run(snap)
        return (OK,)


def saxpy_kernels(sim: SimDriver) -> None:
    """examples/saxpy.cu's two kernels."""

    @sim.kernel("saxpy", ("ptr", "ptr", "ptr", "f32", "u64"))
    def saxpy(out, x, y, a, n):
        sim.floats(out, n)[:] = np.float32(a) * sim.floats(x, n) + sim.floats(y, n)

    @sim.kernel("saxpy_struct", ("ptr", "ptr", "ptr", "bytes16"))
    def saxpy_struct(out, x, y, params):
        a, n = struct.unpack("<f4xQ", params)
        sim.floats(out, n)[:] = np.float32(a) * sim.floats(x, n) + sim.floats(y, n)


__all__ = ["SimDriver", "saxpy_kernels", "C_TYPES", "_real"]
