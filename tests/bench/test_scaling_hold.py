"""The device hold on a fake driver: engaged, timed, released; a kernel that never starts, or that lets go by its
timeout, is reported and never leaves the stream held (no GPU needed)."""
from __future__ import annotations

import ctypes
import pathlib

import pytest

from cugraphlab.core.errors import CugraphlabError, InvalidArgumentError
from cugraphlab.core.module import Kernel


class Kernels(dict):
    pass


@pytest.fixture
def setup(monkeypatch):
    from graph_fake import GraphFakeDriver

    from cugraphlab.core.device import Device

    fake = GraphFakeDriver()
    monkeypatch.setattr("cugraphlab.core._calls._driver", fake)
    monkeypatch.setattr("cugraphlab.core.device._initialised", False)
    ks = Kernels(hold=Kernel(None, "hold", 0x51), stamp=Kernel(None, "stamp", 0x52))
    with Device(0) as dev, dev.create_stream() as s:
        yield fake, dev, ks, s


def _ctl(params):
    slot = ctypes.cast(int(params), ctypes.POINTER(ctypes.c_void_p))[0]
    return (ctypes.c_uint64 * 8).from_address(ctypes.c_uint64.from_address(slot).value)


def test_a_hold_is_released_and_reads_the_device_clock(setup):
    from cugraphlab.bench.hold import DeviceHold

    fake, dev, ks, s = setup
    state = {}

    def on_launch(func, stream, params):
        if func == 0x51:
            state["ctl"] = c = _ctl(params)
            c[1] = 1

    fake.on_launch = on_launch
    real_sync = fake.cuStreamSynchronize

    def sync(h):
        c = state.get("ctl")
        if c is not None:
            assert c[0] == 1, "synchronized before releasing"
            c[3], c[5] = 5000, 5000 + 8 * 1500
        return real_sync(h)

    fake.cuStreamSynchronize = sync
    with DeviceHold(dev, ks, s) as hold:
        r = hold.time_graph_launches(0x99, 8)
        assert r.launches == 8 and not r.timed_out and r.device_us == pytest.approx(1.5)
        assert r.host_us > 0 and hold.was_released and not hold.engaged
        assert len(fake.graph_launches) == 8
        with pytest.raises(InvalidArgumentError):
            hold.time_graph_launches(0x99, 65)  # at most 64 queued behind one hold
    assert fake.live("host memory") == []


def test_a_timed_out_hold_is_flagged(setup):
    from cugraphlab.bench.hold import DeviceHold

    fake, dev, ks, s = setup

    def on_launch(func, stream, params):
        if func == 0x51:
            c = _ctl(params)
            c[1], c[3], c[4] = 1, 100, 1  # it let go by itself
    fake.on_launch = on_launch
    with DeviceHold(dev, ks, s) as hold:
        r = hold.time_graph_launches(0x99, 4)
        assert r.timed_out


def test_a_hold_that_never_starts_is_an_error_and_is_released(setup):
    from cugraphlab.bench.hold import DeviceHold

    fake, dev, ks, s = setup
    with DeviceHold(dev, ks, s, start_deadline_s=0.05) as hold:
        with pytest.raises(CugraphlabError, match="did not start"):
            hold.time_graph_launches(0x99, 4)
        assert hold.slots[0] == 1 and not hold.engaged  # the flag is set: a late kernel exits at once
        assert fake.graph_launches == []


def test_hold_kernel_source_compiles_for_several_archs():
    from cugraphlab.core.cache import Cache
    from cugraphlab.core.program import compile_source

    src = (pathlib.Path(__file__).resolve().parents[2] / "kernels" / "hold.cu").read_text()
    for arch in ("sm_75", "sm_90"):
        c = compile_source(src, "hold", arch=arch, kind="cubin", headers={}, cache=Cache(None))
        assert c.image[:4] == b"\x7fELF"
