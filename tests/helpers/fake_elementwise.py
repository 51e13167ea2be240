"""A fake driver that really computes: device memory is host memory (NumPy byte arrays at fake addresses), and a
launch of add, mul, sub, relu or saxpy (eager, or replayed from a captured graph) does the kernel's float32 math
on it, so a workload run without a GPU can be checked bit for bit against NumPy. The hold kernel says it started
(its mapped control slot), events stamp perf_counter_ns (the "device" clock is the host's here: logic, not
figures). Built on graph_fake.GraphFakeDriver (captures, mapped host memory)."""
from __future__ import annotations

import bisect
import ctypes
import struct
import time

import numpy as np

from fake_driver import OK
from graph_fake import GraphFakeDriver

#: kernel name -> argument kinds (struct formats of the 8-byte slots)
SIGNATURES = {"add": "PPPQ", "sub": "PPPQ", "mul": "PPfQ", "relu": "PPQ", "saxpy": "PPPfQ", "hold": "PQP",
              "stamp": "P"}


class ElementwiseFake(GraphFakeDriver):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.mem: dict[int, np.ndarray] = {}
        self._bases: list[int] = []
        self._next = 1 << 40
        self.names: dict[int, str] = {}
        self.node_args: dict[int, tuple] = {}
        self.stamps: dict[int, int] = {}
        self.streams_used: dict[str, set] = {}

    # --- memory -----------------------------------------------------------------------------------------------
    def cuMemAlloc(self, nbytes):
        base = self._next
        self._next += (int(nbytes) + 511) // 256 * 256
        self.mem[base] = np.zeros(int(nbytes), np.uint8)
        bisect.insort(self._bases, base)
        self.made[base] = "memory"
        return (OK, base)

    def cuMemFree(self, h):
        r = self._release(h, "memory")
        self.mem.pop(int(h), None)
        if int(h) in self._bases:
            self._bases.remove(int(h))
        return r

    def _at(self, addr: int, nbytes: int) -> np.ndarray:
        addr = int(addr)
        i = bisect.bisect_right(self._bases, addr) - 1
        base = self._bases[i]
        buf = self.mem[base]
        off = addr - base
        assert 0 <= off and off + nbytes <= buf.size, f"access outside an allocation at {addr:#x}"
        return buf[off:off + nbytes]

    def floats(self, addr: int, n: int) -> np.ndarray:
        return self._at(addr, 4 * n).view(np.float32)

    def cuMemcpyHtoDAsync(self, dst, src, nbytes, stream):
        self._at(dst, nbytes)[:] = np.frombuffer(ctypes.string_at(int(src), int(nbytes)), np.uint8)
        return (OK,)

    def cuMemcpyDtoHAsync(self, dst, src, nbytes, stream):
        data = self._at(src, nbytes)
        ctypes.memmove(int(dst), data.ctypes.data, int(nbytes))
        return (OK,)

    def cuMemsetD32Async(self, dst, value, count, stream):
        self._at(dst, 4 * int(count)).view(np.uint32)[:] = int(value) & 0xFFFFFFFF
        return (OK,)

    # --- kernels --------------------------------------------------------------------------------------------------
    def cuModuleGetFunction(self, module, name):
        h = next(self._ids)
        self.names[h] = name.decode() if isinstance(name, bytes) else str(name)
        return (OK, h)

    def _args(self, func: int, params) -> tuple:
        sig = SIGNATURES[self.names[func]]
        slots = ctypes.cast(int(params), ctypes.POINTER(ctypes.c_void_p))
        out = []
        for i, kind in enumerate(sig):
            raw = ctypes.string_at(slots[i], 8)
            out.append(struct.unpack("<f", raw[:4])[0] if kind == "f" else struct.unpack("<Q", raw)[0])
        return tuple(out)

    def _run(self, name: str, args: tuple) -> None:
        if name == "hold":  # started: ctl[1] = 1 (the host waits for it, then releases)
            ctypes.c_uint64.from_address(int(args[0]) + 8).value = 1
            return
        if name == "stamp":
            return
        f32 = np.float32
        if name == "saxpy":
            out, x, y, a, n = args
            self.floats(out, n)[:] = np.add(np.multiply(f32(a), self.floats(x, n), dtype=f32), self.floats(y, n),
                                            dtype=f32)
        elif name in ("add", "sub"):
            out, x, y, n = args
            op = np.add if name == "add" else np.subtract
            self.floats(out, n)[:] = op(self.floats(x, n), self.floats(y, n), dtype=f32)
        elif name == "mul":
            out, x, s, n = args
            self.floats(out, n)[:] = np.multiply(self.floats(x, n), f32(s), dtype=f32)
        else:
            out, x, n = args
            v = self.floats(x, n)
            self.floats(out, n)[:] = np.where(v > 0, v, f32(0))

    def cuLaunchKernel(self, func, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        func, name = int(func), self.names.get(int(func))
        cap = self.capturing.get(int(stream))
        args = self._args(func, params) if name in SIGNATURES else ()
        if cap is not None:
            node = self._add(cap["graph"], cap["deps"], func)
            cap["deps"] = [node]
            self.node_args[node] = (name, args)
            return (OK,)
        self.launches.append((func, int(stream)))
        self.streams_used.setdefault(name, set()).add(int(stream))
        if name in SIGNATURES:
            self._run(name, args)
        if self.on_launch:
            self.on_launch(func, int(stream), params)
        return (OK,)

    def cuGraphLaunch(self, exe, stream):
        self.graph_launches.append((int(exe), int(stream)))
        for node in self.graphs[self.exec_graph[int(exe)]]["nodes"]:
            name, args = self.node_args.get(node, (None, ()))
            if name:
                self._run(name, args)
        return (OK,)

    # --- events: the host's clock ---------------------------------------------------------------------------------
    def cuEventRecord(self, event, stream):
        if int(stream) not in self.capturing:
            self.stamps[int(event)] = time.perf_counter_ns()
        return super().cuEventRecord(event, stream)

    def cuEventSynchronize(self, event):
        return (OK,)

    def cuEventElapsedTime(self, start, end):
        return (OK, (self.stamps[int(end)] - self.stamps[int(start)]) / 1e6)
