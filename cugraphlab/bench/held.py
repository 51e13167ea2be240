"""The device held: a spin kernel occupies the stream while a bounded number of launches is queued behind it.

In a long loop of launches the host may be waiting on the GPU (a full queue pushes back), so "µs per launch" mixes the
call with the GPU's pace. Held, it cannot: the stream's first kernel spins (``kernels/spin.cu``), every launch the
host makes is only written into the driver's queue, and the time per launch is the call itself. The number queued is
kept below the driver's queue depth (512 by default; the queue holds about a thousand launches), or the host would
block on a full queue again. Then the host releases the kernel and the queued launches run.

    holder = StreamHolder(device, kernels, stream)   # the spin kernel's flag, report and launch, made once
    with holder.held():                              # flag = 0; launch spin(flag, timeout, report) on the stream
        ns = loop(512)                               # the launches being measured queue behind it
                                                     # exit: flag = 1; cuStreamSynchronize; check the report

Release: ``"mapped"`` (default) writes the flag in mapped, page-locked host memory (cuMemHostAlloc with
CU_MEMHOSTALLOC_DEVICEMAP, cuMemHostGetDevicePointer) from the host: it works whatever CUDA_DEVICE_MAX_CONNECTIONS
is. ``"memset"`` writes a device-memory flag with cuMemsetD32Async on ANOTHER stream: that stream must map to
another hardware queue, so it deadlocks (until the timeout) with CUDA_DEVICE_MAX_CONNECTIONS=1. Either way the spin
kernel gives up after ``timeout_s`` of %globaltimer, so the GPU can never hang; a hold that ended by the timeout is
reported (``HoldReport.released`` False) and its figure must be thrown away.
"""
from __future__ import annotations

import ctypes
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..core._calls import cu, driver_module
from ..core._resource import Resource
from ..core.errors import InvalidArgumentError
from ..core.launch import LaunchConfig

__all__ = ["StreamHolder", "HoldReport", "RELEASES", "DEFAULT_HELD_LAUNCHES", "MAX_HELD_LAUNCHES"]

RELEASES = ("mapped", "memset")
DEFAULT_HELD_LAUNCHES = 512
MAX_HELD_LAUNCHES = 900  # below the driver's queue depth (about 1,024 kernel launches in flight per stream)


@dataclass(frozen=True)
class HoldReport:
    """How one hold ended: released by the host (True) or by the timeout (False), and how long it spun (ns,
    %globaltimer)."""

    released: bool
    spun_ns: int


class StreamHolder(Resource):
    """The spin kernel of ``kernels`` (a KernelSet holding ``spin``) ready to hold ``stream``.

    ``release``: "mapped" or "memset" (module docstring); ``timeout_s``: the spin's upper bound.
    """

    def __init__(self, device, kernels, stream, *, release: str = "mapped", timeout_s: float = 2.0):
        if release not in RELEASES:
            raise InvalidArgumentError(f"release must be one of {', '.join(RELEASES)}, got {release!r}")
        if not (isinstance(timeout_s, (int, float)) and 0 < timeout_s <= 60):
            raise InvalidArgumentError(f"the spin timeout must be 0..60 s, got {timeout_s!r}")
        self.device, self.stream, self.release_mode = device, stream, release
        self.timeout_ns = int(timeout_s * 1e9)
        self.report = self.adopt(device.array(2, "uint64"))
        self._host_flag = None
        if release == "mapped":
            d = driver_module()
            host = cu("cuMemHostAlloc", 64, d.CU_MEMHOSTALLOC_DEVICEMAP | d.CU_MEMHOSTALLOC_PORTABLE)
            self._own(lambda: cu("cuMemFreeHost", host))
            self._host_flag = ctypes.c_uint32.from_address(int(host))
            self._host_flag.value = 0
            flag_ptr = int(cu("cuMemHostGetDevicePointer", host, 0))
            self.other = None
        else:
            self.flag = self.adopt(device.array(1, "uint32"))
            flag_ptr = self.flag.ptr
            self.other = self.adopt(device.create_stream())
        self.spin = kernels["spin"].prepare(("ptr", "u64", "ptr"), (flag_ptr, self.timeout_ns, self.report),
                                            LaunchConfig(1, 32), stream)
        self._flag_ptr = flag_ptr

    def _set_flag(self, value: int, stream_handle) -> None:
        if self._host_flag is not None:
            self._host_flag.value = value
        else:
            cu("cuMemsetD32Async", self._flag_ptr, value, 1, stream_handle)

    def hold(self) -> None:
        """Start holding: the flag cleared (in order before the spin kernel), the spin kernel launched."""
        self.require_open()
        self._set_flag(0, self.stream.handle)  # memset mode: on the held stream itself, so ordered before the spin
        self.spin()

    def release(self) -> None:
        """Let the spin kernel end (the host writes the flag; memset mode: on the other stream)."""
        self._set_flag(1, None if self.other is None else self.other.handle)

    def finish(self) -> HoldReport:
        """Wait for the held stream (the spin and everything queued behind it) and read how the hold ended."""
        self.stream.synchronize()
        if self.other is not None:
            self.other.synchronize()
        how, spun = (int(v) for v in self.report.to_numpy(stream=self.stream))
        return HoldReport(released=how == 1, spun_ns=spun)

    @contextmanager
    def held(self):
        """``with holder.held() as result:`` the stream is held inside; on exit it is released and drained, and
        ``result["report"]`` is the HoldReport."""
        result: dict = {}
        self.hold()
        try:
            yield result
        finally:
            self.release()
            result["report"] = self.finish()

    def check_released(self) -> HoldReport:
        """One empty hold, to prove the release works here (a timeout would say the flag never reached the GPU)."""
        with self.held() as r:
            pass
        return r["report"]


def read_report(values) -> HoldReport:
    """A HoldReport from the two u64 the spin kernel writes (for tests and fakes)."""
    how, spun = (int(v) for v in np.asarray(values, dtype=np.uint64)[:2])
    return HoldReport(released=how == 1, spun_ns=spun)
