"""The SM clock per sample: a probe kernel counts SM cycles (``clock64``) against ``%globaltimer`` nanoseconds.

A GPU that lowers its clocks (idle between samples, power or thermal limits) runs the same work slower, and a host
figure taken while it does is not the same figure. nvbench reads the SM clock per sample and flags throttling; so
does this package: right after each timed block the probe (``kernels/clockprobe.cu``) runs on the same stream,

    cuLaunchKernel(clockprobe, 1 block of 32, (out, cycles))   # thread 0: t0, c0; count `cycles`; c1, t1
    cuMemcpyDtoHAsync + cuStreamSynchronize                    # read out[0..3]
    MHz = (c1 - c0) / (t1 - t0) * 1000

and a sample whose clock is below ``LOW_CLOCK_FRACTION`` (75%) of the rated clock (``CU_DEVICE_ATTRIBUTE_CLOCK_RATE``)
is flagged. The probe costs about half a millisecond of device time, outside the timed block.
"""
from __future__ import annotations

import math

from ...core.launch import LaunchConfig

__all__ = ["SmClockProbe", "LOW_CLOCK_FRACTION", "mhz_from", "clock_low", "rated_clock_mhz"]

LOW_CLOCK_FRACTION = 0.75
DEFAULT_CYCLES = 1_000_000


def mhz_from(t0: int, t1: int, c0: int, c1: int) -> float | None:
    """SM MHz from two %globaltimer readings (ns) and two clock64 readings (cycles); None if no time passed."""
    dt, dc = int(t1) - int(t0), int(c1) - int(c0)
    if dt <= 0 or dc <= 0:
        return None
    return dc / dt * 1e3


def clock_low(mhz: float | None, rated_mhz: float | None, fraction: float = LOW_CLOCK_FRACTION) -> bool:
    """True when a measured SM clock is below ``fraction`` of the rated one (unknown values: not flagged)."""
    if mhz is None or rated_mhz is None or not math.isfinite(mhz) or rated_mhz <= 0:
        return False
    return mhz < fraction * rated_mhz


def rated_clock_mhz(device) -> float | None:
    """The rated SM clock in MHz (CU_DEVICE_ATTRIBUTE_CLOCK_RATE, reported in kHz), or None where not reported."""
    try:
        khz = device.attribute("CLOCK_RATE")
    except Exception:
        return None
    return khz / 1e3 if khz and khz > 0 else None


class SmClockProbe:
    """The clock probe of ``kernels`` (a KernelSet holding ``clockprobe``) on ``stream``; ``read()`` -> MHz."""

    def __init__(self, device, kernels, stream, cycles: int = DEFAULT_CYCLES):
        self.stream = stream
        self.out = device.array(4, "uint64")
        self.launch = kernels["clockprobe"].prepare(("ptr", "u64"), (self.out, int(cycles)), LaunchConfig(1, 32),
                                                    stream)

    def read(self) -> float | None:
        """Run the probe once on the stream and return the SM clock in MHz (waits for the stream)."""
        self.launch()
        t0, t1, c0, c1 = (int(v) for v in self.out.to_numpy(stream=self.stream))
        return mhz_from(t0, t1, c0, c1)

    def close(self) -> None:
        self.out.close()
