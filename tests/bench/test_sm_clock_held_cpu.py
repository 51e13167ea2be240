"""bench.sm_clock arithmetic and flags; bench.held's flag protocol on the fake driver."""
from __future__ import annotations

import ctypes
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tests/: fake_driver

from cugraphlab.bench.sm_clock import clock_low, mhz_from  # noqa: E402
from cugraphlab.core.errors import InvalidArgumentError  # noqa: E402


def test_mhz_from_cycles_and_nanoseconds():
    assert mhz_from(1_000, 501_000, 10, 990_010) == pytest.approx(1980.0)
    assert mhz_from(5, 5, 0, 100) is None and mhz_from(0, 10, 7, 7) is None


def test_clock_low_below_three_quarters_of_rated():
    assert clock_low(1484.9, 1980.0) and not clock_low(1485.0, 1980.0)
    assert not clock_low(None, 1980.0) and not clock_low(1000.0, None) and not clock_low(float("nan"), 1980.0)
    assert clock_low(1700.0, 1980.0, fraction=0.9)


class _Kernels:
    def __init__(self):
        self.prepared = []

    def __getitem__(self, name):
        kernels = self

        class K:
            handle = 0x77
            def prepare(self, signature, args, config, stream):
                kernels.prepared.append((name, signature, args, config))
                return lambda: kernels.prepared.append(("fired", name))

        return K()


def test_stream_holder_mapped_flag_protocol(fake_driver, monkeypatch):
    from cugraphlab.bench.held import StreamHolder
    from cugraphlab.core.device import Device

    monkeypatch.setattr(type(fake_driver), "cuMemHostGetDevicePointer", lambda self, p, flags: (0, p),
                        raising=False)
    monkeypatch.setattr(type(fake_driver), "cuMemHostAlloc", lambda self, n, flags: self.cuMemAllocHost(n),
                        raising=False)
    with Device(0) as dev, dev.create_stream() as s:
        ks = _Kernels()
        holder = StreamHolder(dev, ks, s, timeout_s=0.5)
        flag_addr = holder._flag_ptr
        name, signature, args, config = ks.prepared[0]
        assert name == "spin" and signature == ("ptr", "u64", "ptr") and args[:2] == (flag_addr, 500_000_000)
        assert config.grid == (1, 1, 1) and config.block == (32, 1, 1)
        flag = ctypes.c_uint32.from_address(flag_addr)
        flag.value = 7
        holder.hold()
        assert flag.value == 0 and ks.prepared[-1] == ("fired", "spin")
        holder.release()
        assert flag.value == 1
        holder.close()
    assert not fake_driver.live("host memory") and not fake_driver.released_twice()


def test_stream_holder_refuses_bad_settings(fake_driver):
    from cugraphlab.bench.held import StreamHolder
    from cugraphlab.core.device import Device

    with Device(0) as dev, dev.create_stream() as s:
        with pytest.raises(InvalidArgumentError):
            StreamHolder(dev, _Kernels(), s, release="telepathy")
        with pytest.raises(InvalidArgumentError):
            StreamHolder(dev, _Kernels(), s, timeout_s=0)
