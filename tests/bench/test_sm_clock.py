"""bench.sm_clock arithmetic and flags (the device hold's tests: tests/bench/test_hold.py)."""
from __future__ import annotations

import pytest

from cugraphlab.bench.probes.sm_clock import clock_low, mhz_from


def test_mhz_from_cycles_and_nanoseconds():
    assert mhz_from(1_000, 501_000, 10, 990_010) == pytest.approx(1980.0)
    assert mhz_from(5, 5, 0, 100) is None and mhz_from(0, 10, 7, 7) is None


def test_clock_low_below_three_quarters_of_rated():
    assert clock_low(1484.9, 1980.0) and not clock_low(1485.0, 1980.0)
    assert not clock_low(None, 1980.0) and not clock_low(1000.0, None) and not clock_low(float("nan"), 1980.0)
    assert clock_low(1700.0, 1980.0, fraction=0.9)
