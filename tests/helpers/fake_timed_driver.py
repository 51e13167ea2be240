"""FakeDriver with timing events: cuEventRecord stamps perf_counter_ns, cuEventElapsedTime returns the difference
in ms and cuEventSynchronize returns at once, so a timed loop runs on a machine without a GPU (its "device" clock
is then the host's: enough to test the logic of a measurement, never its figures)."""
from __future__ import annotations

import time

from fake_driver import OK, FakeDriver


class TimedFakeDriver(FakeDriver):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.stamps: dict[int, int] = {}

    def cuEventRecord(self, event, stream):
        self.stamps[int(event)] = time.perf_counter_ns()
        return (OK,)

    def cuEventSynchronize(self, event):
        return (OK,)

    def cuEventElapsedTime(self, start, end):
        return (OK, (self.stamps[int(end)] - self.stamps[int(start)]) / 1e6)
