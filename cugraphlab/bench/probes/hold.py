"""The device held: a spinning kernel keeps the stream busy while a bounded number of launches queue behind it.

In a long loop of launches on an idle stream the host may be waiting on the GPU (a full queue pushes back), so "µs per
launch" mixes the call with the GPU's pace. Held, it cannot: the stream's first kernel spins (``kernels/hold.cu``),
every launch the host makes is only written into the driver's queue, and the time per launch is the call itself.
NVIDIA's ``cudaGraphsPerfScaling`` sample does the same. The number queued stays below the driver's queue depth
(``MAX_HELD_LAUNCHES`` kernels; ``MAX_HELD_GRAPH_LAUNCHES`` graphs, each of many nodes), or the host would block on a
full queue again. This is the package's one device hold (``cugraphlab scaling`` and the paired harness use it):

    ctl = cuMemHostAlloc(64, DEVICEMAP); cuMemHostGetDevicePointer(ctl)   # slots the host and the kernel share
    hold = DeviceHold(device, kernels, S)   # kernels: a KernelSet holding "hold" (and "stamp" from the same module)
    hold.engage()                      # [memset mode: cuMemsetD32Async(flag, 0, S)] cuLaunchKernel(hold, S);
                                       #   wait until ctl[1] == 1: the kernel spins, the device is held
    t0; cuGraphLaunch(exe, S) x K; t1  # what is measured queues behind it: host µs per launch = (t1 - t0) / K
    hold.mark_end()                    # cuLaunchKernel(stamp, S): after the K graphs, writes %globaltimer into ctl[5]
    hold.release()                     # mapped: ctl[0] = 1 from the host; memset: cuMemsetD32Async(flag, 1) on
                                       #   ANOTHER stream; then cuStreamSynchronize(S)
    device µs per launch = (ctl[5] - ctl[3]) / K          # release to stamp, on the GPU's own clock

``time_graph_launches(exe, K, loop=None)`` does all of that for K cuGraphLaunch calls (from Python, or from a C loop
of ``bench.native``), and ``with hold.held() as r:`` holds the stream around any code (``r["report"]`` on exit says
how the hold ended).

Release: ``"mapped"`` (default) writes the flag in mapped, page-locked host memory from the host: nothing on the GPU
has to run first, so it works whatever CUDA_DEVICE_MAX_CONNECTIONS is. ``"memset"`` writes a device-memory flag with
cuMemsetD32Async on another stream: that stream must map to another hardware queue, so it deadlocks (until the
timeout) with CUDA_DEVICE_MAX_CONNECTIONS=1. It can never hang: the host waits for the start with a deadline, the
kernel lets go by itself after ``timeout_ms`` of %globaltimer (``timed_out``/``HoldReport.released`` say so: the host
may then have blocked inside a launch, and the figure is not a held one), and any failure while held releases the
stream before it propagates. CUDA Driver API, "Memory Management" (cuMemHostAlloc) and "Execution Control".
"""
from __future__ import annotations

import ctypes
import time
from contextlib import contextmanager
from dataclasses import dataclass

from ...core._calls import cu, driver_fn, driver_module
from ...core._resource import Resource
from ...core.errors import CugraphlabError, InvalidArgumentError, check, positive_int
from ...core.launch import Launch, LaunchConfig, PackedArgs

__all__ = ["DeviceHold", "HeldSample", "HoldReport", "RELEASES", "HOLD_KERNEL", "MAX_HELD_LAUNCHES",
           "MAX_HELD_GRAPH_LAUNCHES"]

RELEASES = ("mapped", "memset")
HOLD_KERNEL = "hold"
MAX_HELD_LAUNCHES = 900  # kernel launches behind one hold: below the driver's queue depth (about 1,024 per stream)
MAX_HELD_GRAPH_LAUNCHES = 64  # graph launches behind one hold: far below any queue depth, whatever the graph
_SLOTS = 8
_RELEASE, _STARTED, _T_START, _T_RELEASE, _TIMED_OUT, _T_STAMP = range(6)


@dataclass(frozen=True)
class HeldSample:
    """One hold: host µs per launch (perf_counter_ns / K, or the C loop's CLOCK_MONOTONIC / K), device µs per launch
    (%globaltimer / K), K, and whether the hold let go by its timeout (then the host figure is not a held one)."""

    host_us: float
    device_us: float
    launches: int
    timed_out: bool


@dataclass(frozen=True)
class HoldReport:
    """How one hold ended: released by the host (True) or by the timeout (False), and how long it spun (ns,
    %globaltimer)."""

    released: bool
    spun_ns: int


class DeviceHold(Resource):
    """The hold and stamp kernels on ``stream`` and the page-locked slots they share with the host.

    ``kernels``: a KernelSet holding ``hold`` (kernels/hold.cu; ``stamp`` is read from the same module), or a mapping
    with both. ``release``: "mapped" or "memset" (module docstring). ``timeout_ms``: the longest the kernel spins.
    ``start_deadline_s``: how long the host waits for it to start. InvalidArgumentError for bad settings.
    """

    def __init__(self, device, kernels, stream, *, release: str = "mapped", timeout_ms: float = 200.0,
                 start_deadline_s: float = 5.0):
        if release not in RELEASES:
            raise InvalidArgumentError(f"release must be one of {', '.join(RELEASES)}, got {release!r}")
        if not (isinstance(timeout_ms, (int, float)) and 0 < timeout_ms <= 60_000 and start_deadline_s > 0):
            raise InvalidArgumentError(f"the hold's timeout must be 0..60000 ms and its start deadline > 0, got "
                                       f"{timeout_ms!r} ms and {start_deadline_s!r} s")
        self.device, self.stream, self.release_mode = device, stream, release
        self.timeout_ms, self.start_deadline_s = float(timeout_ms), float(start_deadline_s)
        d = driver_module()
        self._live_in(device)  # the mapped host memory belongs to the context
        flags = int(d.CU_MEMHOSTALLOC_DEVICEMAP) | int(d.CU_MEMHOSTALLOC_PORTABLE)
        self.host_ptr = int(cu("cuMemHostAlloc", _SLOTS * 8, flags))
        ptr = self.host_ptr
        self._own(lambda: cu("cuMemFreeHost", ptr))
        self.slots = (ctypes.c_uint64 * _SLOTS).from_address(self.host_ptr)
        for i in range(_SLOTS):
            self.slots[i] = 0
        self.device_ptr = int(cu("cuMemHostGetDevicePointer", self.host_ptr, 0))
        if release == "mapped":
            self.flag, self.other = None, None
            self.flag_ptr = self.device_ptr + 8 * _RELEASE  # the low 32 bits of ctl[0] (little-endian, as CUDA is)
        else:
            self.flag = self.adopt(device.array(1, "uint32"))
            self.flag_ptr = int(self.flag.ptr)
            self.other = self.adopt(device.create_stream())
        hold = kernels[HOLD_KERNEL]
        stamp = kernels.modules[HOLD_KERNEL].kernel("stamp") if hasattr(kernels, "modules") else kernels["stamp"]
        one = LaunchConfig(1, 1)
        self._hold = Launch(hold, PackedArgs(("ptr", "u64", "ptr"),
                                             (self.device_ptr, int(self.timeout_ms * 1e6), self.flag_ptr)),
                            one, stream)
        self._stamp = Launch(stamp, PackedArgs(("ptr",), (self.device_ptr + 8 * _T_STAMP,)), one, stream)
        self.engaged = False
        # Launch both once, released from the start: with lazy module loading (CUDA_MODULE_LOADING=LAZY, the
        # default) a kernel loads at its first launch, and loading while the hold spins could make the host wait
        # for the device inside cuLaunchKernel until the hold's timeout.
        self._set_flag(1, stream.handle)
        self._hold()
        self._stamp()
        cu("cuStreamSynchronize", stream.handle)
        for i in range(_SLOTS):
            self.slots[i] = 0

    def _set_flag(self, value: int, stream_handle) -> None:
        if self.flag is None:
            self.slots[_RELEASE] = value
        else:
            cu("cuMemsetD32Async", self.flag_ptr, value, 1, stream_handle)

    # --- the hold itself ----------------------------------------------------------------------------------------
    def engage(self) -> None:
        """Launch the hold kernel and return once it spins (the device is held). CugraphlabError (the stream
        released) when it does not start within ``start_deadline_s``."""
        self.require_open()
        if self.engaged:
            raise CugraphlabError("the stream is already held")
        for i in range(_SLOTS):
            self.slots[i] = 0
        if self.flag is not None:  # memset mode: cleared on the held stream itself, so ordered before the kernel
            self._set_flag(0, self.stream.handle)
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
        self._set_flag(1, None if self.other is None else self.other.handle)
        self.engaged = False
        cu("cuStreamSynchronize", self.stream.handle)
        if self.other is not None:
            cu("cuStreamSynchronize", self.other.handle)
        return int(self.slots[_T_RELEASE]), int(self.slots[_T_STAMP]), bool(self.slots[_TIMED_OUT])

    @property
    def was_released(self) -> bool:
        """After ``release``: the kernel ended (its release time is set)."""
        return self.slots[_T_RELEASE] != 0

    def report(self) -> HoldReport:
        """After ``release``: released by the host (not by the timeout), and how long the kernel spun."""
        t0, t1 = int(self.slots[_T_START]), int(self.slots[_T_RELEASE])
        return HoldReport(released=t1 != 0 and not self.slots[_TIMED_OUT], spun_ns=max(0, t1 - t0))

    @contextmanager
    def held(self):
        """``with hold.held() as result:`` the stream is held inside; on exit it is released and drained, and
        ``result["report"]`` is the HoldReport (``released`` False: the figure taken inside must be dropped)."""
        result: dict = {}
        self.engage()
        try:
            yield result
        finally:
            self.release()
            result["report"] = self.report()

    def check_released(self) -> HoldReport:
        """One empty hold, to prove the release works here (a timeout would say the flag never reached the GPU)."""
        with self.held() as r:
            pass
        return r["report"]

    # --- a timed batch of launches ------------------------------------------------------------------------------
    def time_graph_launches(self, exe_handle, launches: int, loop=None) -> HeldSample:
        """``launches`` cuGraphLaunch calls of ``exe_handle`` on the held stream: host and device µs per launch.

        ``loop``: a C loop of the same executable on the same stream (``bench.native.loops.NativeFloor.graph_loop``,
        ``loop(k) -> ns``) makes the calls instead of Python, and its own clock (CLOCK_MONOTONIC in C) times them.
        At most ``MAX_HELD_GRAPH_LAUNCHES`` (InvalidArgumentError beyond).
        """
        k = positive_int("held launches", launches, MAX_HELD_GRAPH_LAUNCHES)
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
