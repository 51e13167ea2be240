"""The host cost of a launch with the device held: a spinning kernel keeps the stream busy while launches queue.

Timing ``cuGraphLaunch`` back to back on an idle stream mixes the host's cost with the device's: once the GPU falls
behind, the driver may wait for room in its queue. NVIDIA's ``cudaGraphsPerfScaling`` sample holds the stream with a
spinning kernel instead; so does this module, with a bounded number of launches so that the queue never fills:

    ctl = cuMemHostAlloc(64, DEVICEMAP); cuMemHostGetDevicePointer(ctl)   # flags the host and the kernel share
    cuLaunchKernel(hold, S)            # spins on ctl[0], with a %globaltimer timeout (kernels/hold.cu)
    wait until ctl[1] == 1             # the kernel runs: the device is held
    t0; cuGraphLaunch(exe, S) x K; t1  # K <= 64: host µs per launch = (t1 - t0) / K
    cuLaunchKernel(stamp, S)           # after the K graphs: writes %globaltimer into ctl[5]
    ctl[0] = 1                         # release, from the host, through mapped memory: nothing on the GPU has to
    cuStreamSynchronize(S)             #   run first, so the release cannot deadlock
    device µs per launch = (ctl[5] - ctl[3]) / K          # release to stamp, on the GPU's own clock

It can never hang: the host waits for the start with a deadline, the kernel lets go by itself after its timeout
(``timed_out`` says so: the host may then have blocked inside a launch, and the sample is not a held one), and any
failure while held releases the stream before it propagates.
"""
from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass

from ..core._calls import cu, driver_fn, driver_module
from ..core._resource import Resource
from ..core.errors import CugraphlabError, InvalidArgumentError, check, positive_int
from ..core.launch import Launch, LaunchConfig, PackedArgs

__all__ = ["DeviceHold", "HeldSample", "MAX_HELD_LAUNCHES", "HOLD_KERNEL"]

MAX_HELD_LAUNCHES = 64  # launches queued behind one hold: far below any driver queue depth
HOLD_KERNEL = "hold"
_SLOTS = 8
_RELEASE, _STARTED, _T_START, _T_RELEASE, _TIMED_OUT, _T_STAMP = range(6)


@dataclass(frozen=True)
class HeldSample:
    """One hold: host µs per launch (perf_counter_ns / K), device µs per launch (%globaltimer / K), K, and whether
    the hold let go by its timeout (then the host figure is not a held one)."""

    host_us: float
    device_us: float
    launches: int
    timed_out: bool


class DeviceHold(Resource):
    """The hold and stamp kernels on ``stream`` and the page-locked flags they share with the host.

    ``kernels`` is a KernelSet holding ``hold`` (kernels/hold.cu; ``stamp`` is read from the same module).
    ``timeout_ms``: the longest the kernel spins. ``start_deadline_s``: how long the host waits for it to start.
    """

    def __init__(self, device, kernels, stream, *, timeout_ms: float = 200.0, start_deadline_s: float = 5.0):
        if not (timeout_ms > 0 and start_deadline_s > 0):
            raise InvalidArgumentError("the hold's timeout and start deadline must be > 0")
        self.device, self.stream = device, stream
        self.timeout_ms, self.start_deadline_s = float(timeout_ms), float(start_deadline_s)
        d = driver_module()
        flags = int(d.CU_MEMHOSTALLOC_DEVICEMAP) | int(d.CU_MEMHOSTALLOC_PORTABLE)
        self.host_ptr = int(cu("cuMemHostAlloc", _SLOTS * 8, flags))
        ptr = self.host_ptr
        self._own(lambda: cu("cuMemFreeHost", ptr))
        self.slots = (ctypes.c_uint64 * _SLOTS).from_address(self.host_ptr)
        for i in range(_SLOTS):
            self.slots[i] = 0
        self.device_ptr = int(cu("cuMemHostGetDevicePointer", self.host_ptr, 0))
        hold = kernels[HOLD_KERNEL]
        stamp = kernels.modules[HOLD_KERNEL].kernel("stamp") if hasattr(kernels, "modules") else kernels["stamp"]
        one = LaunchConfig(1, 1)
        self._hold = Launch(hold, PackedArgs(("ptr", "u64"), (self.device_ptr, int(self.timeout_ms * 1e6))), one,
                            stream)
        self._stamp = Launch(stamp, PackedArgs(("ptr",), (self.device_ptr + 8 * _T_STAMP,)), one, stream)
        self.engaged = False
        # Launch both once, released from the start: with lazy module loading (CUDA_MODULE_LOADING=LAZY, the
        # default) a kernel loads at its first launch, and loading while the hold spins could make the host wait
        # for the device inside cuLaunchKernel until the hold's timeout.
        self.slots[_RELEASE] = 1
        self._hold()
        self._stamp()
        cu("cuStreamSynchronize", stream.handle)
        for i in range(_SLOTS):
            self.slots[i] = 0

    # --- the hold itself ----------------------------------------------------------------------------------------
    def engage(self) -> None:
        """Launch the hold kernel and return once it spins (the device is held)."""
        self.require_open()
        if self.engaged:
            raise CugraphlabError("the stream is already held")
        for i in range(_SLOTS):
            self.slots[i] = 0
        self._hold()
        self.engaged = True
        deadline = time.perf_counter() + self.start_deadline_s
        while self.slots[_STARTED] == 0:
            if time.perf_counter() > deadline:
                self.release()
                raise CugraphlabError(f"the hold kernel did not start within {self.start_deadline_s:g} s; the "
                                      "stream was busy with other work, or the GPU is shared")

    def mark_end(self) -> None:
        """Queue the stamp kernel: it records when everything queued before it has run."""
        self._stamp()

    def release(self) -> tuple[int, int, bool]:
        """Let go and wait for the stream; returns (release ns, stamp ns or 0, timed out)."""
        self.slots[_RELEASE] = 1
        self.engaged = False
        cu("cuStreamSynchronize", self.stream.handle)
        return int(self.slots[_T_RELEASE]), int(self.slots[_T_STAMP]), bool(self.slots[_TIMED_OUT])

    @property
    def was_released(self) -> bool:
        """After ``release``: the kernel ended (its release time is set)."""
        return self.slots[_T_RELEASE] != 0

    # --- a timed batch of launches ------------------------------------------------------------------------------
    def time_graph_launches(self, exe_handle, launches: int, loop=None) -> HeldSample:
        """``launches`` cuGraphLaunch calls of ``exe_handle`` on the held stream: host and device µs per launch.

        ``loop``: a C loop of the same executable on the same stream (``bench.native.NativeFloor.graph_loop``,
        ``loop(k) -> ns``) makes the calls instead of Python, and its own clock (CLOCK_MONOTONIC in C) times them.
        """
        k = positive_int("held launches", launches, MAX_HELD_LAUNCHES)
        fn, s = driver_fn("cuGraphLaunch"), self.stream.handle
        perf = time.perf_counter_ns
        self.engage()
        try:
            if loop is None:
                t0 = perf()
                for _ in range(k):
                    r = fn(exe_handle, s)
                    if r[0]:
                        check(r, "cuGraphLaunch")
                host_ns = perf() - t0
            else:
                host_ns = loop(k)
            self.mark_end()
        finally:
            t_release, t_stamp, timed_out = self.release()
        device = (t_stamp - t_release) / 1e3 / k if t_stamp > t_release else float("nan")
        return HeldSample(host_ns / 1e3 / k, device, k, timed_out)
