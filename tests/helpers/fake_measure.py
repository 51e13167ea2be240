"""A fake driver for ``cugraphlab.measure`` on a machine without a GPU: the capture rules of capture_driver (so the
doctor, empty captures and stream checks behave as on a GPU) plus timing events that read the host clock (as in
fake_timed_driver). Install it with ``install_measure_driver(monkeypatch)``; ``fake_kernel(dev, stream)`` gives a
prepared Launch of a kernel that does nothing, ``memset_work(dev)`` a callable enqueuing one memset on the stream it
is given (a node when captured)."""
from __future__ import annotations

import time

from capture_driver import CaptureFakeDriver
from fake_driver import OK, patch_driver


class MeasureFakeDriver(CaptureFakeDriver):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.stamps: dict[int, int] = {}
        self.launches = 0

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
        return r

    def cuEventSynchronize(self, event):
        return (OK,)

    def cuEventElapsedTime(self, start, end):
        return (OK, (self.stamps[int(end)] - self.stamps[int(start)]) / 1e6)

    def cuLaunchKernel(self, *args):
        self.launches += 1
        return super().cuLaunchKernel(*args)

    def cuGraphLaunch(self, exe, stream):
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
