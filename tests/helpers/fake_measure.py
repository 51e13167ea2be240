"""A fake driver for ``cugraphlab.measure`` on a machine without a GPU: the capture rules of capture_driver (so the
doctor, empty captures and stream checks behave as on a GPU) plus timing events that read the host clock (as in
fake_timed_driver). Install it with ``install_measure_driver(monkeypatch)``; ``fake_kernel(dev, stream)`` gives a
prepared Launch of a kernel that does nothing, ``memset_work(dev)`` a callable enqueuing one memset on the stream it
is given (a node when captured).

The hold kernel (``bench.probes.hold``) is simulated: its launch says it started (``ctl[1]``), and a wait for the
held stream (cuStreamSynchronize, cuCtxSynchronize) while the release flag is still 0 is what a GPU would do when
the hold lets go by its timeout (``ctl[4] = 1``). ``log`` keeps the order of the calls that matter to the held and
cold recipes: ("launch", kernel name), ("record", event), ("graph", exe), ("memset",), ("sync", released?)."""
from __future__ import annotations

import ctypes
import struct
import time

from capture_driver import CaptureFakeDriver
from fake_driver import OK, patch_driver


class MeasureFakeDriver(CaptureFakeDriver):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.stamps: dict[int, int] = {}
        self.launches = 0
        self.log: list[tuple] = []
        self.held: dict[int, tuple[int, int]] = {}  # stream -> (ctl address, release flag address) while held
        self.timeouts = 0
        self._pinned: dict[int, object] = {}

    current = None  # the context current on this thread (compile_source's default arch asks for it)

    def cuCtxSetCurrent(self, ctx):
        self.current = ctx
        return (OK,)

    def cuCtxGetCurrent(self):
        return (OK, self.current if self.current is not None else 0)

    def cuCtxGetDevice(self):
        return (OK, 0)

    def cuEventRecord(self, event, stream):
        r = super().cuEventRecord(event, stream)
        self.stamps[int(event)] = time.perf_counter_ns()
        if int(stream) not in self.captures:
            self.log.append(("record", int(event)))
        return r

    # --- mapped host memory and the hold --------------------------------------------------------------------------
    def cuMemHostAlloc(self, nbytes, flags):
        buf = ctypes.create_string_buffer(int(nbytes))
        addr = ctypes.addressof(buf)
        self._pinned[addr] = buf
        self.made[addr] = "host memory"
        return (OK, addr)

    def cuMemFreeHost(self, p):
        self._pinned.pop(int(p), None)
        return self._release(p, "host memory")

    def cuMemHostGetDevicePointer(self, p, flags):
        return (OK, int(p))

    def _let_go(self, stream: int) -> None:
        """The held stream drains: released if the host set the flag, else by the hold's timeout."""
        ctl, flag = self.held.pop(stream)
        released = ctypes.c_uint32.from_address(flag).value != 0
        ctypes.c_uint64.from_address(ctl + 8 * 4).value = 0 if released else 1
        ctypes.c_uint64.from_address(ctl + 8 * 3).value = time.perf_counter_ns()
        if not released:
            self.timeouts += 1
        self.log.append(("sync", released))

    def cuStreamSynchronize(self, h):
        if int(h) in self.held:
            self._let_go(int(h))
        return super().cuStreamSynchronize(h)

    def cuCtxSynchronize(self):
        for s in list(self.held):
            self._let_go(s)
        return super().cuCtxSynchronize()

    def cuMemsetD32Async(self, dst, value, count, stream):
        if int(stream) not in self.captures:
            self.log.append(("memset",))
        return super().cuMemsetD32Async(dst, value, count, stream)

    def cuEventSynchronize(self, event):
        return (OK,)

    def cuEventElapsedTime(self, start, end):
        return (OK, (self.stamps[int(end)] - self.stamps[int(start)]) / 1e6)

    def cuLaunchKernel(self, *args):
        self.launches += 1
        name = self.func_names.get(int(args[0]), b"?").decode()
        stream = int(args[8])
        if stream not in self.captures:
            self.log.append(("launch", name))
            if name == "hold":
                slots = ctypes.cast(int(args[9]), ctypes.POINTER(ctypes.c_void_p))
                ctl, _, flag = (struct.unpack("<Q", ctypes.string_at(slots[i], 8))[0] for i in range(3))
                ctypes.c_uint64.from_address(ctl + 8).value = 1  # started
                ctypes.c_uint64.from_address(ctl + 16).value = time.perf_counter_ns()
                self.held[stream] = (ctl, flag)
        return super().cuLaunchKernel(*args)

    def cuGraphLaunch(self, exe, stream):
        self.log.append(("graph", int(exe)))
        return (OK,)


def install_measure_driver(monkeypatch) -> MeasureFakeDriver:
    fake = MeasureFakeDriver()
    patch_driver(monkeypatch, fake)
    return fake


def fake_kernel(dev, stream, n: int = 1024):
    """A prepared Launch (``ptr, u64``) of a kernel loaded from a fake image, on ``stream``."""
    from cugraphlab.core.launch import LaunchConfig

    module = dev.load_module(b"fake cubin")
    buf = dev.array(n)
    launch = module.kernel("noop").prepare(("ptr", "u64"), (buf, n), LaunchConfig(4, 256), stream)
    launch.keep = (module, buf)
    return launch


def memset_work(dev, n: int = 1024):
    """``(fn, buffer)``: ``fn(stream)`` enqueues cuMemsetD32Async over ``buffer`` on the stream it is given."""
    from cugraphlab.core._calls import cu

    buf = dev.array(n)

    def fn(stream):
        cu("cuMemsetD32Async", buf.handle, 0, n, stream.handle)

    return fn, buf
