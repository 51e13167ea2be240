"""Streams and events."""
from __future__ import annotations

from ._calls import cu, driver_module
from ._resource import Resource

__all__ = ["Stream", "Event"]


class Stream(Resource):
    """A CUDA stream (non-blocking with respect to the legacy default stream unless asked otherwise)."""

    def __init__(self, device, non_blocking: bool = True):
        d = driver_module()
        self.device = device
        device.require_open()
        flags = d.CUstream_flags.CU_STREAM_NON_BLOCKING if non_blocking else d.CUstream_flags.CU_STREAM_DEFAULT
        self.handle = cu("cuStreamCreate", flags)
        handle = self.handle
        self._own(lambda: cu("cuStreamDestroy", handle))

    def synchronize(self) -> None:
        """Block until everything queued on this stream has finished."""
        cu("cuStreamSynchronize", self.handle)

    def wait(self, event: "Event") -> None:
        """Make later work on this stream wait for ``event`` (cuStreamWaitEvent)."""
        cu("cuStreamWaitEvent", self.handle, event.handle, 0)

    def __repr__(self) -> str:
        return f"<Stream {'closed' if self.closed else hex(int(self.handle))}>"


class Event(Resource):
    """A CUDA event; with ``timing`` it can measure device time between two records."""

    def __init__(self, device, timing: bool = True):
        d = driver_module()
        self.device = device
        device.require_open()
        flags = d.CUevent_flags.CU_EVENT_DEFAULT if timing else d.CUevent_flags.CU_EVENT_DISABLE_TIMING
        self.handle = cu("cuEventCreate", flags)
        handle = self.handle
        self._own(lambda: cu("cuEventDestroy", handle))

    def record(self, stream: Stream) -> None:
        """cuEventRecord: the event completes when the work queued on ``stream`` before it has completed."""
        cu("cuEventRecord", self.handle, stream.handle)

    def synchronize(self) -> None:
        """cuEventSynchronize: wait on the host until the event has completed."""
        cu("cuEventSynchronize", self.handle)

    def elapsed_ms(self, end: "Event") -> float:
        """Device milliseconds from this event to ``end`` (both recorded and complete)."""
        return cu("cuEventElapsedTime", self.handle, end.handle)
