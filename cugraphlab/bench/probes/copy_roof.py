"""The memory roof: device-to-device copy bandwidth, bytes read + written per second, timed with events.

The chain's kernels are memory-bound at large sizes; this is the ceiling they run into (``cuMemcpyDtoDAsync`` of a
large buffer, back to back, between two events).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...core._calls import driver_fn
from ...core._resource import Resource
from ...core.errors import InvalidArgumentError, check
from ..records.record import CLOCKS
from ..stats.summary import Summary, summarize

__all__ = ["CopyBandwidth", "CopyProbe", "copy_bandwidth", "COPY_CLOCK", "DEFAULT_COPY_BYTES"]

COPY_CLOCK = CLOCKS["copy"]
DEFAULT_COPY_BYTES = 256 << 20
COPIES_PER_SAMPLE = 10


@dataclass
class CopyBandwidth:
    """Device-to-device copy bandwidth, bytes read + written per second (the memory roof the chain runs into)."""

    nbytes: int
    copies_per_sample: int
    gbps: Summary

    def to_dict(self) -> dict:
        return {"bytes": self.nbytes, "copies_per_sample": self.copies_per_sample, "gbps": self.gbps.to_dict()}


def copy_bandwidth(device, nbytes: int = DEFAULT_COPY_BYTES, samples: int = 5,
                   copies: int = COPIES_PER_SAMPLE) -> CopyBandwidth:
    """Device-to-device copy bandwidth of ``device``: ``copies`` back-to-back ``cuMemcpyDtoDAsync`` of ``nbytes``
    per sample, timed with events; GB/s counts bytes read + written (2 x nbytes per copy)."""
    with CopyProbe(device, nbytes, copies) as probe:
        return probe.summary([probe.sample() for _ in range(samples)])


class CopyProbe(Resource):
    """Two buffers, a stream and two events for timing device copies; sampled between the chain's ways."""

    def __init__(self, device, nbytes: int, copies: int = COPIES_PER_SAMPLE):
        free, _ = device.memory_info()
        # a quarter of what is free at most, so the probe never starves the chain's own buffers
        nbytes = int(min(nbytes, free // 4)) // 16 * 16
        if nbytes < 16:
            raise InvalidArgumentError("not enough free device memory to measure the copy bandwidth")
        self.nbytes, self.copies = nbytes, copies
        try:
            self.src = self.adopt(device.array(nbytes // 4))
            self.dst = self.adopt(device.array(nbytes // 4))
            self.stream = self.adopt(device.create_stream())
            self.start = self.adopt(device.create_event())
            self.end = self.adopt(device.create_event())
            self.src.poison()  # defined contents; what is copied does not matter, that it is memory does
            self._fn = driver_fn("cuMemcpyDtoDAsync")
            self._copy(2)  # warm-up
            self.stream.synchronize()
        except BaseException:
            self.close()
            raise

    def _copy(self, k: int) -> None:
        fn, d, s, nb, st = self._fn, self.dst.handle, self.src.handle, self.nbytes, self.stream.handle
        for _ in range(k):
            r = fn(d, s, nb, st)
            if r[0]:
                check(r, "cuMemcpyDtoDAsync")

    def sample(self) -> float:
        """GB/s of one sample (bytes read + written / device time)."""
        self.start.record(self.stream)
        self._copy(self.copies)
        self.end.record(self.stream)
        self.end.synchronize()
        seconds = self.start.elapsed_us(self.end) / 1e6
        return 2 * self.nbytes * self.copies / seconds / 1e9

    def summary(self, samples) -> CopyBandwidth:
        return CopyBandwidth(self.nbytes, self.copies, summarize(samples, unit="GB/s", clock=COPY_CLOCK))
