"""The host's view of how work on CUDA streams is ordered, for the replay watch (graphs.doctor.launches).

The rule of the CUDA Programming Guide ("Streams", "Events"): each stream is a sequence; cuEventRecord takes a
snapshot of what its stream has queued; cuStreamWaitEvent makes a stream follow that snapshot; a host wait
(cuStreamSynchronize, cuEventSynchronize, cuCtxSynchronize, a query that answered done, a synchronous copy, or
any work on the legacy stream, which synchronizes with every blocking stream) orders everything it waited for
before all later work. Each stream keeps a vector clock: for every stream, how many of its operations are known to
come before this stream's next one. Pure bookkeeping: no driver call.
"""
from __future__ import annotations

__all__ = ["LEGACY", "StreamOrder"]

LEGACY = (0, 1)  # NULL and CU_STREAM_LEGACY: taken as a host wait for everything (no false alarm, at worst a miss)


class StreamOrder:
    """Operations numbered per stream, and what is known to be ordered before what."""

    def __init__(self):
        self.seq: dict[int, int] = {}  # stream -> operations queued on it so far
        self.clock: dict[int, dict[int, int]] = {}  # stream -> {stream: operations known ordered before its next}
        self.host: dict[int, int] = {}  # what the host has waited for: ordered before every later operation
        self.events: dict[int, dict[int, int]] = {}  # event -> the snapshot its last record took

    def _clock(self, s: int) -> dict[int, int]:
        c = self.clock.get(s)
        if c is None:
            c = self.clock[s] = {}
        return c

    def enqueue(self, s: int) -> int:
        """One more operation on stream ``s``, ordered after what the host has waited for; its number (0 on the
        legacy stream, which counts as a host wait)."""
        if s in LEGACY:
            self.host_wait_all()
            return 0
        c = self._clock(s)
        _merge(c, self.host)
        n = self.seq.get(s, 0) + 1
        self.seq[s] = n
        c[s] = n
        return n

    def record(self, event: int, s: int) -> None:
        """cuEventRecord(event, s)."""
        if s in LEGACY:
            self.host_wait_all()
            self.events[event] = dict(self.host)
        else:
            self.events[event] = dict(self._clock(s))

    def wait(self, s: int, event: int) -> None:
        """cuStreamWaitEvent(s, event)."""
        _merge(self._clock(s), self.events.get(event, {}))

    def event_done(self, event: int) -> None:
        """cuEventSynchronize, or cuEventQuery that answered CUDA_SUCCESS."""
        _merge(self.host, self.events.get(event, {}))

    def stream_done(self, s: int) -> None:
        """cuStreamSynchronize, or cuStreamQuery that answered CUDA_SUCCESS."""
        if s in LEGACY:
            self.host_wait_all()
        else:
            _merge(self.host, {s: self.seq.get(s, 0)})

    def host_wait_all(self) -> None:
        self.host = dict(self.seq)

    def ordered(self, before: tuple[int, int], s: int) -> bool:
        """Whether operation ``before`` (stream, number) comes before the next operation on stream ``s``."""
        bs, bn = before
        if bs == s:
            return True
        return max(self._clock(s).get(bs, 0), self.host.get(bs, 0)) >= bn


def _merge(into: dict[int, int], snapshot: dict[int, int]) -> None:
    for k, v in snapshot.items():
        if into.get(k, 0) < v:
            into[k] = v
