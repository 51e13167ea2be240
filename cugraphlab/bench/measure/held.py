"""The GPU's own time per call, for every way of ``measure``: the ``held`` and ``cold`` clocks.

Events recorded around calls the host makes one by one measure the host too: a call shorter than a Python launch
(a few µs) reaches an idle GPU after the previous one ended, and the gap lands inside the events. Queued behind the
hold kernel (``bench.probes.hold``: one thread spinning on a flag in mapped host memory, released by the host), the
calls are all in the stream before the GPU starts on any of them, so the events time the GPU alone:

    held (K calls, per call)                          cold (one call, after an L2 flush: nvbench's cold recipe)
      hold.engage()     hold kernel spinning            flush: cuMemsetD32Async over 2 x the L2, on the stream
      cuEventRecord(start, S)                           hold.engage()
      way.run(K)        K calls queued, none run yet    cuEventRecord(start, S)
      cuEventRecord(end, S)                             way.run(1)
      hold.release()    flag set; cuStreamSynchronize   cuEventRecord(end, S)
      elapsed(start, end) / K                           hold.release(); elapsed(start, end)

What the events hold: held, the K calls back to back with no host gap (what nvbench's batch reads when the host
keeps up); cold, one call into a GPU that has just finished the hold kernel, with a cold L2 (what nvbench's cold
measurement reads). Neither holds the host's cost of a call: that is the ``host`` clock.

K fits the driver's queue. Launches queued behind a kernel that does not end fill the stream's launch queue (the
driver's pushbuffer); once it is full the host blocks inside the next launch, which with a spin-wait hold would be a
deadlock, so the hold lets go by itself after ``HOLD_TIMEOUT_MS`` and says so (``ctl[4]``, ``release()``'s
``timed_out``). How much fits "depends on device and driver": NVIDIA's nvbench, whose blocking kernel has the same
kind of timeout ("Deadlock detected"), advises scheduling conservatively, about 32 kernel launches at most
(nvbench/blocking_kernel.cuh). Here K is at most ``HELD_CALLS`` calls and ``MAX_QUEUED_LAUNCHES`` kernel launches
(a list of L launches: K = 32 // L; a graph launch counts as one); a callable, whose launches per call are
unknown, starts at 8 calls. A sample whose hold timed out is refused, and K is halved for the next one (a
callable's drops to 1).

A work that synchronises (a callable calling ``stream.synchronize()``, ``cupy.asnumpy``, ``.item()``, anything that
waits for the held stream) cannot be held: its call does not return until the hold gives up. One call timing out
the hold proves it: the way's held and cold rows are then refused, with ``"n/a: the work synchronises ..."`` as
their note, and no figure.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GpuClocks", "HELD_CALLS", "MAX_QUEUED_LAUNCHES", "HOLD_TIMEOUT_MS", "SYNCHRONISES", "L2Flush"]

HELD_CALLS = 32  # calls per held sample at most
MAX_QUEUED_LAUNCHES = 32  # kernel launches behind one hold at most: what nvbench's blocking_kernel advises
HOLD_TIMEOUT_MS = 100.0  # the longest the hold spins: hundreds of times what queuing K calls takes
SYNCHRONISES = ("n/a: the work synchronises (or waits for the held stream): one call did not return while the stream "
                "was held, so the GPU's own time cannot be isolated from the host's")


class L2Flush:
    """A buffer of 2 x the L2, overwritten on the stream (cuMemsetD32Async) before a cold call: nothing the call
    reads or writes is left in the L2 after it."""

    def __init__(self, device, stream):
        from ...core._calls import cu

        self.cu, self.stream = cu, stream
        l2 = int(device.attribute("L2_CACHE_SIZE"))
        self.count = max(1, 2 * l2 // 4)
        self.buffer = device.array(self.count, "uint32")
        self.value = 0

    def __call__(self) -> None:
        self.value = (self.value + 1) & 0xFFFF  # a new value each time: the memset cannot be skipped
        self.cu("cuMemsetD32Async", self.buffer.handle, self.value, self.count, self.stream.handle)

    def close(self) -> None:
        self.buffer.close()


@dataclass
class _WayState:
    k: int
    known: bool = True  # launches per call known (else a timeout drops K to 1 at once)
    refused: str = ""
    timeouts: int = 0


class GpuClocks:
    """The hold, two events and the L2 flush on ``stream``; ``held(way)`` and ``cold(way)`` take one sample each
    (µs per call, or None when the sample was refused: ``note(way)`` says why once a way cannot be held at all).

    ``per_call``: kernel launches one call of the way makes (None: unknown, a callable), for K. Everything is
    made here and freed by ``close()``; the stream is never left held (a failure releases it first).
    """

    def __init__(self, device, stream, *, timeout_ms: float = HOLD_TIMEOUT_MS, held_calls: int = HELD_CALLS,
                 max_queued: int = MAX_QUEUED_LAUNCHES):
        from ..probes.hold import DeviceHold

        self.device, self.stream = device, stream
        self.held_calls, self.max_queued = int(held_calls), int(max_queued)
        self._made: list = []
        try:
            self.kernels = device.load_kernels(names=["hold"])
            self._made.append(self.kernels)
            self.hold = DeviceHold(device, self.kernels, stream, timeout_ms=timeout_ms)
            self._made.append(self.hold)
            self.start, self.end = device.create_event(), device.create_event()
            self._made += [self.start, self.end]
            self.flush = L2Flush(device, stream)
            self._made.append(self.flush)
        except BaseException:
            self.close()
            raise
        self.ways: dict[str, _WayState] = {}

    # --- K per way ------------------------------------------------------------------------------------------------
    def _state(self, way) -> _WayState:
        st = self.ways.get(way.name)
        if st is None:
            per_call = getattr(way, "per_call", None)
            if per_call:
                k = max(1, min(self.held_calls, self.max_queued // max(1, int(per_call))))
            else:  # a callable: unknown launches per call; a timeout halves K
                k = max(1, self.held_calls // 4)
            st = self.ways[way.name] = _WayState(k, known=bool(per_call))
        return st

    def calls(self, way) -> int:
        """K, the calls of the next held sample of ``way``."""
        return self._state(way).k

    def note(self, way_name: str) -> str:
        st = self.ways.get(way_name)
        return st.refused if st is not None else ""

    # --- one sample -----------------------------------------------------------------------------------------------
    def _held_run(self, way, n: int, flush: bool) -> float | None:
        """Events around ``n`` calls queued behind the hold: µs in all, None when the hold let go by its
        timeout (the host blocked while the stream was held)."""
        s = self.stream
        if flush:
            self.flush()
        self.hold.engage()
        try:
            self.start.record(s)
            way.run(n)
            self.end.record(s)
        finally:
            _, _, timed_out = self.hold.release()
        if timed_out:
            return None
        self.end.synchronize()
        return self.start.elapsed_us(self.end)

    def _refuse_or_shrink(self, st: _WayState, n: int) -> None:
        """After a timeout: one call timing out the hold proves the work waits for the stream (refused from
        now on); K calls may only have filled the queue, so the next sample takes fewer (half of them; one for a
        callable, whose launches per call are unknown: a second timeout then settles it)."""
        st.timeouts += 1
        if n <= 1:
            st.refused = SYNCHRONISES
        else:
            st.k = max(1, n // 2) if st.known else 1

    def held(self, way) -> float | None:
        """One held sample of ``way``: µs per call over K calls (module docstring); None when refused."""
        st = self._state(way)
        if st.refused:
            return None
        k = st.k
        us = self._held_run(way, k, flush=False)
        if us is None:
            self._refuse_or_shrink(st, k)
            return None
        return us / k

    def cold(self, way) -> float | None:
        """One cold sample of ``way``: µs of one call after an L2 flush, queued behind the hold; None when
        refused."""
        st = self._state(way)
        if st.refused:
            return None
        us = self._held_run(way, 1, flush=True)
        if us is None:
            self._refuse_or_shrink(st, 1)
            return None
        return us

    def close(self) -> None:
        for thing in reversed(self._made):
            try:
                thing.close()
            except Exception:  # noqa: BLE001, S110 - closing what was made; the first error is the one to see
                pass
        self._made.clear()
